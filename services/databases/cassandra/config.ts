/**
 * What a Cassandra node is started with: its cassandra.yaml, its logback.xml and the java command
 * line. Cassandra runs from the jars of cassandra-all (Maven Central) without its launch scripts,
 * so the JVM flags the scripts would add are spelled out here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface CassandraNodeConfig {
  clusterName: string;
  address: string;
  /** Seed addresses (the first node of the cluster). */
  seeds: string[];
  dir: string;
  numTokens: number;
  heapMb: number;
  /** Speed-ups (not Cassandra's defaults): skip waiting for gossip to settle, shorter ring delay. */
  ringDelayMs?: number;
  /** Java class path of cassandra-all and its dependencies (`<dir>/*` entries). */
  classpath: string;
  /**
   * A member of a cluster formed all at once: its tokens, given rather than allocated, and no
   * bootstrap (a new cluster has no data to stream). Absent for a node that joins a running
   * cluster, which bootstraps and allocates its tokens as Cassandra does by default.
   */
  initialTokens?: string[];
  /** A class-data archive of the server's classes (./class-archive.ts) for the JVM to map, if this host has one. */
  classArchive?: string;
}

const MURMUR3_MIN = -(2n ** 63n);
const MURMUR3_SPAN = 2n ** 64n;

/**
 * Tokens for the `members` of a cluster formed at once, `tokensEach` per member: the Murmur3 ring
 * cut into members × tokensEach equal ranges, dealt out in turn so that every member owns the same
 * share and neighbouring ranges belong to different members (as the replication-aware allocator
 * aims for). Given to each node as `initial_token`, they let every node start at the same time.
 */
export function evenTokens(members: number, tokensEach: number): string[][] {
  const total = BigInt(members * tokensEach);
  return Array.from({ length: members }, (_, member) =>
    Array.from({ length: tokensEach }, (_, k) => String(MURMUR3_MIN + (BigInt(k * members + member) * MURMUR3_SPAN) / total)),
  );
}

/** The local fleet runs the jars scripts/build.d/cassandra.sh put in the project's cache. */
export const LOCAL_LIB = resolve(__dirname, '../../../.cache/cassandra/lib');

/**
 * VMs install Apache's Debian package, which puts the server's jar in `home` and its dependencies
 * in `home`/lib; the adapter runs them with its own command line, not the package's scripts. A
 * JDK beside it, not a JRE: the adapter's own tools (Cql, RingWatch) are compiled on the node.
 */
export const PACKAGE = { name: 'cassandra', jdk: 'openjdk-17-jdk-headless', home: '/usr/share/cassandra' };
export const PACKAGE_CLASSPATH = `${PACKAGE.home}/*:${PACKAGE.home}/lib/*`;

export const STORAGE_PORT = 7000;
export const NATIVE_PORT = 9042;
/** JMX listens on the node's loopback only; nodetool runs inside the node's namespace. */
export const JMX_PORT = 7199;

/**
 * Java 17 module flags from Cassandra's conf/jvm17-server.options: Cassandra reaches into JDK
 * internals (off-heap memory, JMX, the compiler for UDFs) and fails to start without them.
 */
export const JPMS_FLAGS = [
  '-Djdk.attach.allowAttachSelf=true',
  ...[
    'java.base/jdk.internal.misc',
    'java.management.rmi/com.sun.jmx.remote.internal.rmi',
    'java.rmi/sun.rmi.registry',
    'java.rmi/sun.rmi.server',
    'java.sql/java.sql',
    'java.base/java.lang.ref',
    'jdk.unsupported/sun.misc',
    'jdk.compiler/com.sun.tools.javac.file',
    'jdk.attach/sun.tools.attach',
  ].map((m) => `--add-exports=${m}=ALL-UNNAMED`),
  ...[
    'java.base/java.lang.module',
    'java.base/jdk.internal.loader',
    'java.base/jdk.internal.ref',
    'java.base/jdk.internal.reflect',
    'java.base/jdk.internal.math',
    'java.base/jdk.internal.module',
    'java.base/jdk.internal.util.jar',
    'jdk.management/com.sun.management.internal',
    'java.base/sun.nio.ch',
    'java.base/java.io',
    'java.base/java.lang.reflect',
    'jdk.compiler/com.sun.tools.javac',
    'java.base/java.lang',
    'java.base/java.util',
  ].map((m) => `--add-opens=${m}=ALL-UNNAMED`),
];

/** GC and Netty settings of the same file, so the server runs as it would from its scripts. */
const SERVER_FLAGS = [
  '-XX:+UseG1GC',
  '-XX:+ParallelRefProcEnabled',
  '-XX:MaxTenuringThreshold=1',
  '-XX:G1HeapRegionSize=16m',
  '-XX:G1RSetUpdatingPauseTimePercent=5',
  '-XX:MaxGCPauseMillis=300',
  '-XX:InitiatingHeapOccupancyPercent=70',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-Dio.netty.allocator.useCacheForAllThreads=true',
  '-Dio.netty.allocator.maxOrder=11',
  '-Xss256k',
  '-Djava.net.preferIPv4Stack=true',
];

export function configPath(dir: string): string {
  return join(dir, 'conf', 'cassandra.yaml');
}

/** The server's -Dcassandra.config argument: unique per node, so it identifies the process. */
export function configProperty(dir: string): string {
  return `-Dcassandra.config=file://${configPath(dir)}`;
}

export function logPath(dir: string): string {
  return join(dir, 'system.log');
}

export function cassandraYaml(c: CassandraNodeConfig): string {
  const data = (sub: string) => join(c.dir, sub);
  return `# Written by fragbench for one node; anything not set here is Cassandra's default.
cluster_name: '${c.clusterName}'
num_tokens: ${c.numTokens}
allocate_tokens_for_local_replication_factor: 3
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "${c.seeds.map((s) => `${s}:${STORAGE_PORT}`).join(',')}"
listen_address: ${c.address}
rpc_address: ${c.address}
storage_port: ${STORAGE_PORT}
native_transport_port: ${NATIVE_PORT}
start_native_transport: true
data_file_directories:
  - ${data('data')}
commitlog_directory: ${data('commitlog')}
saved_caches_directory: ${data('saved_caches')}
hints_directory: ${data('hints')}
cdc_raw_directory: ${data('cdc_raw')}
commitlog_sync: periodic
commitlog_sync_period: 10000ms
${c.initialTokens ? `initial_token: ${c.initialTokens.join(',')}\nauto_bootstrap: false\n` : ''}`;
}

/** INFO to the process's stdout, which the adapter sends to the node's system.log. */
export const LOGBACK_XML = `<configuration scan="false">
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
`;

export function logbackPath(dir: string): string {
  return join(dir, 'conf', 'logback.xml');
}

/** Tools (nodetool, Cql) print their results on stdout: their logging stays out of it. */
export const TOOL_LOGBACK_XML = `<configuration scan="false">
  <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
    <target>System.err</target>
    <encoder><pattern>%-5level %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="STDERR"/></root>
</configuration>
`;

export function toolLogbackPath(dir: string): string {
  return join(dir, 'conf', 'logback-tools.xml');
}

/** The system properties for the speed-ups; they are labelled as non-default in results. */
export function speedUpProperties(ringDelayMs: number | undefined): string[] {
  if (ringDelayMs === undefined) return [];
  return ['-Dcassandra.skip_wait_for_gossip_to_settle=0', `-Dcassandra.ring_delay_ms=${ringDelayMs}`];
}

/**
 * Not Cassandra's default (which is unset): a node that died bootstrapping, started again on its
 * directory, then streams its ranges afresh. Unset, Cassandra 5.0 refuses to start once any range
 * had arrived ("Discovered existing bootstrap data ... aborting bootstrap"); `false` would keep
 * what had arrived, which misses the writes made while the node was down.
 */
export const RESTART_BOOTSTRAP_PROPERTY = '-Dcassandra.reset_bootstrap_progress=true';

export function serverArgv(c: CassandraNodeConfig): string[] {
  return [
    'java',
    `-Xms${c.heapMb}m`,
    `-Xmx${c.heapMb}m`,
    ...SERVER_FLAGS,
    ...JPMS_FLAGS,
    '-Dcassandra-foreground=yes',
    configProperty(c.dir),
    `-Dlogback.configurationFile=${logbackPath(c.dir)}`,
    `-Dcassandra.logdir=${c.dir}`,
    `-Dcassandra.storagedir=${c.dir}`,
    `-Dcassandra.jmx.local.port=${JMX_PORT}`,
    ...speedUpProperties(c.ringDelayMs),
    RESTART_BOOTSTRAP_PROPERTY,
    '-XX:+ExitOnOutOfMemoryError',
    ...(c.classArchive ? [`-XX:SharedArchiveFile=${c.classArchive}`] : []),
    '-cp',
    c.classpath,
    'org.apache.cassandra.service.CassandraDaemon',
  ];
}

/** A small, quick-starting JVM for command-line tools, logging warnings only (to stderr). */
function toolJava(classpath: string, dir: string): string[] {
  return [
    'java',
    '-Xmx128m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    ...JPMS_FLAGS,
    `-Dlogback.configurationFile=${toolLogbackPath(dir)}`,
    '-cp',
    classpath,
  ];
}

/** nodetool from the same jars, against the node's own JMX port. */
export function nodetoolArgv(classpath: string, dir: string, args: string[]): string[] {
  return [...toolJava(classpath, dir), 'org.apache.cassandra.tools.NodeTool', '-h', '127.0.0.1', '-p', String(JMX_PORT), ...args];
}

/**
 * The adapter's own Java tools (see each file): Cql runs CQL statements, RingWatch reads the ring
 * once a second. Compiled once per host and fleet, into a directory beside the members' (named by
 * the sources' hash, so a changed source is compiled afresh): run through Java's source launcher
 * instead, every CQL call and ring wait compiled its tool again, seconds of CPU each on 2 cores.
 */
export const TOOL_SOURCES = {
  Cql: readFileSync(join(__dirname, 'Cql.java'), 'utf8'),
  RingWatch: readFileSync(join(__dirname, 'RingWatch.java'), 'utf8'),
};
const TOOLS_HASH = createHash('sha256').update(Object.values(TOOL_SOURCES).join('\0')).digest('hex').slice(0, 12);

/** Where the tools' classes are for the member whose directory is `memberDir`. */
export function toolClassesDir(memberDir: string): string {
  return join(dirname(memberDir), `tools-${TOOLS_HASH}`);
}

/**
 * A shell script: compiles the sources in `$2` against class path `$3` into `$1` (the caller has
 * found no classes there). The classes appear at once or not at all (a directory renamed into
 * place), so a tool never starts on half of them, and of two callers racing, one rename wins and
 * both use it.
 */
export const COMPILE_TOOLS_SCRIPT = [
  'javac -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1 -proc:none -nowarn -cp "$3" -d "$2/classes" "$2"/*.java || exit 1',
  'mv -T "$2/classes" "$1" 2>/dev/null || test -f "$1/RingWatch.class"',
].join('\n');

/** Cql (see Cql.java), compiled, against `address`. */
export function cqlArgv(classpath: string, dir: string, address: string): string[] {
  return [...toolJava(`${toolClassesDir(dir)}:${classpath}`, dir), 'Cql', address, String(NATIVE_PORT)];
}

/** RingWatch (see RingWatch.java), compiled: the ring as the node sees it, every `intervalMs`, from one JVM. */
export function ringWatchArgv(classpath: string, dir: string, intervalMs: number): string[] {
  return [...toolJava(`${toolClassesDir(dir)}:${classpath}`, dir), 'RingWatch', '127.0.0.1', String(JMX_PORT), String(intervalMs)];
}

/** Main classes of the tool's own JVMs on a node (nodetool, CQL, the ring watcher): telemetry counts them as the tool's, not the database's. */
export const TOOL_JVM_MAINS = ['org.apache.cassandra.tools.NodeTool', 'Cql', 'RingWatch'];
