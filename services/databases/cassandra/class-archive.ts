/**
 * A class-data archive (Java's AppCDS) of the Cassandra server for the local fleet. A server JVM
 * started with it maps the classes it would otherwise load, verify and link one by one: serving CQL
 * took 7.1-7.8 CPU s (4.1-4.5 s) on this 2-core host without it, 5.1-5.4 CPU s (2.9-3.2 s) with it,
 * and a test run starts dozens of servers. Setup makes it once (scripts/build.d/java-class-archive.sh) from a
 * training start of one server in a namespace of its own: Java writes the classes that start loaded
 * when the JVM exits. The JVM checks the archive against its own build and the class path's jars
 * and ignores one that does not match (a line in the node's system.log says so), so a stale archive
 * costs the speed-up, never a start; test/db/cassandra checks that the servers map it.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { diesWithCaller, netnsArgv, runHost } from '../../../platform/command';
import { ManagedProcess } from '../../../platform/process';
import { cassandraYaml, configPath, evenTokens, LOCAL_LIB, LOGBACK_XML, logbackPath, serverArgv, type CassandraNodeConfig } from './config';

/** Beside the jars it was made from (scripts/build.d/java-class-archive.sh makes it again when they change). */
export const SERVER_ARCHIVE = resolve(LOCAL_LIB, '../server.jsa');

/** The archive when this host has one (the local fleet's nodes share this host's files). */
export function localServerArchive(): string | undefined {
  return existsSync(SERVER_ARCHIVE) ? SERVER_ARCHIVE : undefined;
}

const TRAINING_NAMESPACE = 'fb-cassandra-archive';
const SERVING_LINE = /Starting listening for CQL clients/;
const SERVING_TIMEOUT_MS = 180_000;
/** Writing the archive (~57 MB) is part of the JVM's exit. */
const EXIT_GRACE_MS = 60_000;

/**
 * Starts one server with the local fleet's command line in a network namespace of its own (its
 * ports are Cassandra's defaults: none of this host's are taken), waits until it serves CQL, stops
 * it with SIGTERM and keeps the archive it wrote as it exited. Everything it made is gone
 * afterwards, the namespace too, whether it worked or not; the server dies with its caller.
 * Needs root.
 */
export async function trainServerArchive(log: (line: string) => void = console.log): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'fb-cassandra-archive-'));
  // Written beside the archive, then renamed over it: a server never maps half of one.
  const written = `${SERVER_ARCHIVE}.new`;
  await runHost(['ip', 'netns', 'delete', TRAINING_NAMESPACE], { allowFailure: true });
  try {
    await runHost(['ip', 'netns', 'add', TRAINING_NAMESPACE]);
    await runHost(['ip', '-n', TRAINING_NAMESPACE, 'link', 'set', 'lo', 'up']);
    const config: CassandraNodeConfig = {
      clusterName: 'fb-archive',
      address: '127.0.0.1',
      seeds: ['127.0.0.1'],
      dir: join(work, 'node'),
      numTokens: 16,
      heapMb: 512,
      ringDelayMs: 1_000,
      classpath: `${LOCAL_LIB}/*`,
      initialTokens: evenTokens(1, 16)[0],
    };
    mkdirSync(join(config.dir, 'conf'), { recursive: true });
    writeFileSync(configPath(config.dir), cassandraYaml(config));
    writeFileSync(logbackPath(config.dir), LOGBACK_XML);
    const [java, ...flags] = serverArgv(config);
    const server = ManagedProcess.start({
      argv: [java, `-XX:ArchiveClassesAtExit=${written}`, ...flags],
      prefix: diesWithCaller(netnsArgv(TRAINING_NAMESPACE, [])),
      logFile: join(work, 'server.log'),
      name: 'the training Cassandra server',
    });
    const started = Date.now();
    await server.waitReady({ logLine: SERVING_LINE }, { timeoutMs: SERVING_TIMEOUT_MS, intervalMs: 250 });
    log(`cassandra class archive: the training server served CQL in ${((Date.now() - started) / 1000).toFixed(1)} s; stopping it`);
    await server.stop(EXIT_GRACE_MS);
    if (!existsSync(written)) throw new Error(`the training server exited without writing ${written}; its last lines:\n${server.logTail()}`);
    renameSync(written, SERVER_ARCHIVE);
    log(`cassandra class archive: ${SERVER_ARCHIVE}`);
  } finally {
    await runHost(['ip', 'netns', 'delete', TRAINING_NAMESPACE], { allowFailure: true });
    rmSync(work, { recursive: true, force: true });
    rmSync(written, { force: true });
  }
}
