/**
 * Cassandra 5.0: one CassandraDaemon per node bound to its overlay address, the first node the
 * seed. Nodes join by bootstrapping from the seed, one at a time; a node leaves with
 * `nodetool decommission`. The seed is never removed. nodetool and CQL run on the node itself
 * (inside its namespace locally) against the node's loopback JMX and its overlay address.
 *
 * Replication: keyspace `ycsb` gets settings.replication replicas, default 3 capped at the cluster
 * size, with NetworkTopologyStrategy in `datacenter1` (the SimpleSnitch's data centre).
 * Going below three nodes: Cassandra refuses (system_distributed has RF 3) and so does the
 * adapter, unless options.allowBelowSystemReplication is set; then decommission gets `--force`,
 * which a shrinking scenario (8 -> 2) needs.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DatabaseAdapter, YcsbBinding, ClusterInfo, ClusterSettings, ResizeTiming } from '../../../core/database';
import { InputError } from '../../../core/errors';
import { CommandError } from '../../../core/exec';
import type { Inventory, InventoryNode } from '../../../core/inventory';
import { ClusterAdapter, type Member } from '../cluster-adapter';
import { sleep, waitFor } from '../../../platform/wait';
import { defaultExecProvider, startServer, type ExecProvider, type ProcessMarker } from '../node-shell';
import { installFromVendor } from '../vendor-apt';
import {
  cassandraYaml,
  configPath,
  configProperty,
  cqlArgv,
  cqlSourcePath,
  logbackPath,
  LOGBACK_XML,
  logPath,
  NATIVE_PORT,
  nodetoolArgv,
  serverArgv,
  speedUpProperties,
  TOOL_LOGBACK_XML,
  toolLogbackPath,
  type CassandraNodeConfig,
} from './config';
import { parseNodetoolStatus, type EndpointStatus } from './nodetool-status';

/**
 * The speed-up's ring delay. Cassandra also waits at most this long for a seed to answer a
 * joining node's gossip shadow round: 1 s was too short when the 2 cores were busy
 * ("Unable to contact any seeds"), 5 s still forms 3 nodes well within 90 s.
 */
const RING_DELAY_MS = 5000;

type CassandraMember = Member;

interface CassandraOptions {
  heapMb: number;
  numTokens: number;
  /** Cassandra's ring delay when the speed-ups are on; undefined = Cassandra's defaults. */
  ringDelayMs?: number;
  replication: number;
  fieldCount: number;
  readConsistency: string;
  writeConsistency: string;
  allowBelowSystemReplication: boolean;
}

interface CassandraState {
  clusterName: string;
  version: string;
  seed: string;
  options: CassandraOptions;
  members: CassandraMember[];
}

export const KEYSPACE = 'ycsb';
export const TABLE = 'usertable';
const DATACENTER = 'datacenter1';
/** system_distributed's replication factor: fewer nodes than this and decommission needs --force. */
const SYSTEM_REPLICATION = 3;
const START_TIMEOUT_MS = 180_000;
const STREAM_TIMEOUT_MS = 60 * 60_000;
const POLL_MS = 250;

/** Local fleet: the jars scripts/build.d/cassandra.sh put in the project's cache. */
const LOCAL_LIB = resolve(__dirname, '../../../.cache/cassandra/lib');
/** VMs: the layout of Apache's Debian package. */
const PACKAGE_CLASSPATH = '/usr/share/cassandra/*:/usr/share/cassandra/lib/*';
const CQL_SOURCE = readFileSync(join(__dirname, 'Cql.java'), 'utf8');

const CASSANDRA_REPOSITORY = {
  name: 'cassandra',
  keyUrl: 'https://downloads.apache.org/cassandra/KEYS',
  sourceLine: () => 'deb [signed-by={keyring}] https://debian.cassandra.apache.org 50x main',
  // A JDK, not a JRE: the CQL tool runs through Java's source launcher, which needs the compiler.
  packages: ['cassandra', 'openjdk-17-jdk-headless'],
  disableServices: ['cassandra'],
};

function readOptions(settings: ClusterSettings, clusterSize: number): CassandraOptions {
  const o = settings.options ?? {};
  const num = (key: string, fallback: number): number => {
    const value = o[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new InputError(`settings.options.${key}`, `must be a whole number >= 1, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const replication = settings.replication ?? Math.min(3, clusterSize);
  if (!Number.isInteger(replication) || replication < 1) {
    throw new InputError('settings.replication', `must be a whole number >= 1, got ${replication}`);
  }
  return {
    heapMb: num('heapMb', 512),
    numTokens: num('numTokens', 16),
    ringDelayMs: o.speedUps === false ? undefined : num('ringDelayMs', RING_DELAY_MS),
    replication,
    fieldCount: num('fieldCount', 10),
    readConsistency: String(o.readConsistency ?? 'QUORUM'),
    writeConsistency: String(o.writeConsistency ?? 'QUORUM'),
    allowBelowSystemReplication: o.allowBelowSystemReplication === true,
  };
}

function tableDdl(fieldCount: number): string {
  const fields = Array.from({ length: fieldCount }, (_, i) => `field${i} varchar`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.${TABLE} (y_id varchar PRIMARY KEY, ${fields})`;
}

export class CassandraAdapter extends ClusterAdapter<CassandraState> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('cassandra', inventory, execOf, 'the Cassandra cluster');
  }

  private classpath(node: InventoryNode): string {
    return node.exec.transport === 'ssh' ? PACKAGE_CLASSPATH : `${LOCAL_LIB}/*`;
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport === 'ssh') return installFromVendor(shell, CASSANDRA_REPOSITORY);
    const jars = await shell.run(['sh', '-c', `ls ${LOCAL_LIB}/cassandra-all-*.jar`], { allowFailure: true });
    if (jars.code !== 0) throw new Error(`cassandra: no jars in ${LOCAL_LIB} on ${shell.label}; run scripts/setup.sh`);
  }

  // ------------------------------------------------------------------ tools on a member's node

  private async nodetool(member: CassandraMember, args: string[], timeoutMs = 60_000) {
    const shell = this.shell(member.node);
    return shell.run(nodetoolArgv(this.classpath(shell.node), member.dir, args), { timeoutMs });
  }

  /** The ring as one member sees it. */
  private async ring(member: CassandraMember): Promise<EndpointStatus[]> {
    return parseNodetoolStatus((await this.nodetool(member, ['status'])).stdout);
  }

  /** Runs CQL statements through `member`; returns the rows, tab-separated. */
  private async cql(member: CassandraMember, statements: string[]): Promise<string> {
    const shell = this.shell(member.node);
    const argv = cqlArgv(this.classpath(shell.node), member.dir, member.address);
    return shell.output(argv, { input: statements.join('\n;\n'), timeoutMs: 120_000 });
  }

  private async logHas(member: CassandraMember, pattern: string): Promise<boolean> {
    const result = await this.shell(member.node).run(['grep', '-q', '-E', pattern, logPath(member.dir)], { allowFailure: true });
    return result.code === 0;
  }

  // ------------------------------------------------------------------ starting and stopping nodes

  /** Writes a fresh node directory and starts Cassandra; resolves once it serves CQL. */
  private async startMember(node: InventoryNode, state: Pick<CassandraState, 'clusterName' | 'seed' | 'options'>): Promise<CassandraMember> {
    const shell = this.shell(node);
    const dir = this.dirOf(node.name);
    const config = this.nodeConfig(node, dir, state);
    await shell.removeDir(dir);
    await shell.makeDir(join(dir, 'conf'));
    await shell.writeFile(configPath(dir), cassandraYaml(config));
    await shell.writeFile(logbackPath(dir), LOGBACK_XML);
    await shell.writeFile(toolLogbackPath(dir), TOOL_LOGBACK_XML);
    await shell.writeFile(cqlSourcePath(dir), CQL_SOURCE);
    const pid = await this.launch(node, config);
    return { node: node.name, address: node.overlayAddress, pid, dir };
  }

  private nodeConfig(node: InventoryNode, dir: string, state: Pick<CassandraState, 'clusterName' | 'seed' | 'options'>): CassandraNodeConfig {
    return {
      clusterName: state.clusterName,
      address: node.overlayAddress,
      seeds: [this.shell(state.seed).node.overlayAddress],
      dir,
      numTokens: state.options.numTokens,
      heapMb: state.options.heapMb,
      ringDelayMs: state.options.ringDelayMs,
      classpath: this.classpath(node),
    };
  }

  /** Cassandra on the config's directory as it is: a fresh one, or a dead member's, whose data makes it rejoin as itself. */
  private launch(node: InventoryNode, config: CassandraNodeConfig): Promise<number> {
    const shell = this.shell(node);
    return startServer(
      shell,
      { database: 'cassandra', argv: serverArgv(config), logFile: logPath(config.dir), marker: configProperty(config.dir) },
      () => shell.portOpen(node.overlayAddress, NATIVE_PORT),
      START_TIMEOUT_MS,
    );
  }

  protected newcomer(_state: CassandraState, node: InventoryNode): CassandraMember {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
  }

  protected serverMarker(member: CassandraMember): ProcessMarker {
    return configProperty(member.dir);
  }

  protected relaunch(member: CassandraMember, state: CassandraState): Promise<number> {
    const node = this.shell(member.node).node;
    return this.launch(node, this.nodeConfig(node, member.dir, state));
  }

  protected async stopMember(member: CassandraMember): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, configProperty(member.dir), 30_000);
    await shell.removeDir(member.dir);
  }

  /** Waits until `via` sees exactly `members`, every one Up and Normal. */
  private async waitRingIs(via: CassandraMember, members: CassandraMember[], timeoutMs = 120_000): Promise<void> {
    const want = members.map((m) => m.address).sort().join(',');
    await waitFor(
      async () => {
        const ring = await this.ring(via).catch(() => []);
        const ok = ring.every((e) => e.up && e.state === 'N') && ring.map((e) => e.address).sort().join(',') === want;
        return ok ? true : undefined;
      },
      { what: `Cassandra's ring to be ${members.map((m) => m.node).join(', ')}, all up and normal`, timeoutMs, intervalMs: 1000 },
    );
  }

  // ------------------------------------------------------------------ the adapter interface

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    if (nodes.length === 0) throw new InputError('nodes', 'at least one node is needed');
    const options = readOptions(settings, nodes.length);
    const state: CassandraState = {
      clusterName: `fragbench-${this.inventory.name}`,
      version: '',
      seed: nodes[0].name,
      options,
      members: [],
    };
    return this.formWith(state, this.nonDefaultSettings(options), async () => {
      // One at a time: Cassandra refuses concurrent bootstraps. The keyspace comes after the
      // joins: a node cannot bootstrap while a keyspace asks for more replicas than there are nodes.
      for (const node of nodes) {
        state.members.push(await this.startMember(node, state));
        this.state.write(state);
      }
      const seed = state.members[0];
      await this.waitRingIs(seed, state.members);
      const rows = await this.cql(seed, [
        `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'NetworkTopologyStrategy', '${DATACENTER}': ${options.replication}}`,
        tableDdl(options.fieldCount),
        'SELECT release_version FROM system.local',
      ]);
      state.version = rows.split('\n').pop() || 'unknown';
    });
  }

  private nonDefaultSettings(options: CassandraOptions): Record<string, string> {
    const labelled: Record<string, string> = { max_heap_size: `${options.heapMb}M` };
    for (const property of speedUpProperties(options.ringDelayMs)) {
      const [key, value] = property.replace(/^-D/, '').split('=');
      labelled[key] = value;
    }
    if (options.allowBelowSystemReplication) labelled['decommission'] = `--force below ${SYSTEM_REPLICATION} nodes`;
    return labelled;
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('cassandra addNode');
    this.assertNotMember(state, node);
    const requestedAt = Date.now();
    // The ring has the newcomer once it announced its bootstrap tokens ("JOINING: sleeping ... for
    // pending range setup"); a node that skips bootstrap goes straight to serving.
    const joining: CassandraMember = { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
    let acceptedAt: number | undefined;
    let started = false;
    const watch = (async () => {
      while (!started && acceptedAt === undefined) {
        if (await this.logHas(joining, 'JOINING: sleeping|state jump to NORMAL|Starting listening for CQL')) acceptedAt = Date.now();
        else await sleep(POLL_MS);
      }
    })();
    let member: CassandraMember;
    try {
      member = await this.startMember(node, state);
    } finally {
      started = true;
      await watch;
    }
    state.members.push(member);
    this.state.write(state);
    await this.waitRingIs(this.seedMember(state), state.members);
    return { node: node.name, requestedAt, acceptedAt: acceptedAt ?? Date.now(), completedAt: Date.now() };
  }

  private seedMember(state: CassandraState): CassandraMember {
    return state.members.find((m) => m.node === state.seed) ?? state.members[0];
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('cassandra removeNode');
    const leaving = this.memberOf(state, node);
    if (node.name === state.seed) {
      throw new InputError('node', `${node.name} is the Cassandra cluster's seed, which is never removed; remove another member`);
    }
    const remaining = state.members.filter((m) => m !== leaving);
    const force = state.options.allowBelowSystemReplication && remaining.length < SYSTEM_REPLICATION;
    const requestedAt = Date.now();
    let acceptedAt: number | undefined;
    let done = false;
    const decommission = this.nodetool(leaving, force ? ['decommission', '--force'] : ['decommission'], STREAM_TIMEOUT_MS).finally(() => {
      done = true;
    });
    while (!done && acceptedAt === undefined) {
      if (await this.logHas(leaving, 'LEAVING: ')) acceptedAt = Date.now();
      else await sleep(POLL_MS);
    }
    try {
      await decommission;
    } catch (err) {
      if (err instanceof CommandError) {
        const said = err.result.stdout.concat(err.result.stderr).split('\n').find((l) => l.startsWith('nodetool:')) ?? err.message;
        const hint = remaining.length < SYSTEM_REPLICATION ? '; set settings.options.allowBelowSystemReplication to force it' : '';
        throw new Error(`Cassandra refused to decommission ${node.name}: ${said.replace(/^nodetool:\s*/, '')} (the cluster is unchanged${hint})`);
      }
      throw err;
    }
    acceptedAt ??= Date.now();
    await this.waitRingIs(this.seedMember(state), remaining);
    const completedAt = Date.now();
    await this.retire(state, [leaving]);
    return { node: node.name, requestedAt, acceptedAt, completedAt };
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    const byAddress = new Map(state.members.map((m) => [m.address, m.node]));
    for (const via of [this.seedMember(state), ...state.members]) {
      const ring = await this.ring(via).catch(() => undefined);
      if (!ring) continue;
      return {
        members: ring.map((e) => byAddress.get(e.address) ?? e.address),
        healthy: ring.length === state.members.length && ring.every((e) => e.up && e.state === 'N' && byAddress.has(e.address)),
      };
    }
    return { members: [], healthy: false };
  }

  /** Empties usertable; with a field count other than the table's, recreates it with that many fields. */
  async flush(options: { fieldCount?: number } = {}): Promise<void> {
    const state = this.state.require('cassandra flush');
    const fieldCount = options.fieldCount ?? state.options.fieldCount;
    const seed = this.seedMember(state);
    if (fieldCount === state.options.fieldCount) {
      await this.cql(seed, [`TRUNCATE ${KEYSPACE}.${TABLE}`]);
      return;
    }
    await this.cql(seed, [`DROP TABLE IF EXISTS ${KEYSPACE}.${TABLE}`, tableDdl(fieldCount)]);
    this.state.write({ ...state, options: { ...state.options, fieldCount } });
  }

  async ycsbBinding(options: { timeoutMs: number; retries: number }): Promise<YcsbBinding> {
    const state = this.state.require('cassandra ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.CassandraClient',
      properties: {
        'cassandra.hosts': state.members.map((m) => `${m.address}:${NATIVE_PORT}`).join(','),
        'cassandra.datacenter': DATACENTER,
        'cassandra.keyspace': KEYSPACE,
        'cassandra.readConsistency': state.options.readConsistency,
        'cassandra.writeConsistency': state.options.writeConsistency,
        'cassandra.timeoutMs': String(options.timeoutMs),
      },
    };
  }
}
