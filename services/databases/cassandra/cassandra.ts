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
import { join } from 'node:path';
import type { DatabaseAdapter, YcsbBinding, ClusterInfo, ClusterSettings, ResizeTiming } from '../../../core/database';
import { InputError } from '../../../core/errors';
import { CommandError } from '../../../core/exec';
import type { Inventory, InventoryNode } from '../../../core/inventory';
import { ClusterAdapter, type Member, type Resize } from '../cluster-adapter';
import { allDone, sleep, waitFor } from '../../../platform/wait';
import { awaitServing, defaultExecProvider, startServer, type ExecProvider, type NodeShell, type ProcessMarker } from '../node-shell';
import { installFromVendor } from '../vendor-apt';
import {
  cassandraYaml,
  configPath,
  configProperty,
  COMPILE_TOOLS_SCRIPT,
  cqlArgv,
  evenTokens,
  logbackPath,
  LOCAL_LIB,
  LOGBACK_XML,
  logPath,
  NATIVE_PORT,
  nodetoolArgv,
  ringWatchArgv,
  PACKAGE,
  PACKAGE_CLASSPATH,
  RESTART_BOOTSTRAP_PROPERTY,
  serverArgv,
  speedUpProperties,
  TOOL_LOGBACK_XML,
  TOOL_SOURCES,
  toolClassesDir,
  toolLogbackPath,
  type CassandraNodeConfig,
} from './config';
import { parseNodetoolStatus, type EndpointStatus } from './nodetool-status';
import { RING_WATCH_INTERVAL_MS, startRingWatch } from './ring-watch';
import { localServerArchive } from './class-archive';

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
  resizing?: Resize;
}

export const KEYSPACE = 'ycsb';
export const TABLE = 'usertable';
const DATACENTER = 'datacenter1';
/** system_distributed's replication factor: fewer nodes than this and decommission needs --force. */
const SYSTEM_REPLICATION = 3;
const START_TIMEOUT_MS = 180_000;
const STREAM_TIMEOUT_MS = 60 * 60_000;
const POLL_MS = 250;

const CASSANDRA_REPOSITORY = {
  name: 'cassandra',
  keyUrl: 'https://downloads.apache.org/cassandra/KEYS',
  sourceLine: () => 'deb [signed-by={keyring}] https://debian.cassandra.apache.org 50x main',
  packages: [PACKAGE.name, PACKAGE.jdk],
  disableServices: [PACKAGE.name],
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

  private async nodetool(member: CassandraMember, args: string[], timeoutMs = 60_000, allowFailure = false) {
    const shell = this.shell(member.node);
    return shell.run(nodetoolArgv(this.classpath(shell.node), member.dir, args), { timeoutMs, allowFailure });
  }

  /**
   * The node's own operation mode (NORMAL, LEAVING, DECOMMISSIONED...), or undefined when its JMX
   * does not answer (its JVM is gone). Others hear of a mode change by gossip, a second or so later.
   */
  private async modeOf(member: CassandraMember): Promise<string | undefined> {
    const result = await this.nodetool(member, ['netstats'], 60_000, true);
    return result.code === 0 ? /^Mode: (\S+)/m.exec(result.stdout)?.[1] : undefined;
  }

  /** The ring as one member sees it. */
  private async ring(member: CassandraMember): Promise<EndpointStatus[]> {
    return parseNodetoolStatus((await this.nodetool(member, ['status'])).stdout);
  }

  /** Runs CQL statements through `member`; returns the rows, tab-separated. */
  private async cql(member: CassandraMember, statements: string[]): Promise<string> {
    const shell = this.shell(member.node);
    await this.ensureTools(shell, member.dir);
    const argv = cqlArgv(this.classpath(shell.node), member.dir, member.address);
    return shell.output(argv, { input: statements.join('\n;\n'), timeoutMs: 120_000 });
  }

  private async logHas(member: Pick<CassandraMember, 'node' | 'dir'>, pattern: string): Promise<boolean> {
    const result = await this.shell(member.node).run(['grep', '-q', '-E', pattern, logPath(member.dir)], { allowFailure: true });
    return result.code === 0;
  }

  // ------------------------------------------------------------------ starting and stopping nodes

  /** Writes a fresh node directory and starts Cassandra; resolves once it serves CQL. */
  private async startMember(node: InventoryNode, state: CassandraState, initialTokens?: string[]): Promise<CassandraMember> {
    const shell = this.shell(node);
    const dir = this.dirOf(node.name);
    const config = { ...this.nodeConfig(node, dir, state), initialTokens };
    // Never two JVMs on one directory: one nobody recorded goes before its files do.
    await this.stopUnrecorded(state, this.newcomer(state, node));
    await shell.removeDir(dir);
    await shell.makeDir(join(dir, 'conf'));
    await shell.writeFile(configPath(dir), cassandraYaml(config));
    await shell.writeFile(logbackPath(dir), LOGBACK_XML);
    await shell.writeFile(toolLogbackPath(dir), TOOL_LOGBACK_XML);
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
      classArchive: node.exec.transport === 'ssh' ? undefined : localServerArchive(),
    };
  }

  /**
   * Cassandra on the config's directory as it is: a fresh one, or a dead member's, whose data makes
   * it rejoin as itself (or bootstrap again, if it died bootstrapping).
   */
  private launch(node: InventoryNode, config: CassandraNodeConfig): Promise<number> {
    const shell = this.shell(node);
    return startServer(shell, { ...this.serverSpec(config.dir), argv: serverArgv(config) }, this.servesCql(node), START_TIMEOUT_MS);
  }

  private serverSpec(dir: string) {
    return { database: 'cassandra', logFile: logPath(dir), marker: configProperty(dir) };
  }

  /** Cassandra opens its CQL port once it has joined the ring (bootstrap included). */
  private servesCql(node: InventoryNode): () => Promise<boolean> {
    return () => this.shell(node).portOpen(node.overlayAddress, NATIVE_PORT);
  }

  protected serverMarker(member: CassandraMember): ProcessMarker {
    return configProperty(member.dir);
  }

  protected relaunch(member: CassandraMember, state: CassandraState): Promise<number> {
    const node = this.shell(member.node).node;
    return this.launch(node, this.nodeConfig(node, member.dir, state));
  }

  protected newcomer(_state: CassandraState, node: InventoryNode): CassandraMember {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
  }

  protected async stopMember(member: CassandraMember): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, configProperty(member.dir), 30_000);
    await shell.removeDir(member.dir);
  }

  /**
   * Waits until `via` sees exactly `members`, every one Up and Normal, reading the ring once a
   * second from one RingWatch JVM. `leaving`, when given, is a node on its way out: if its JVM died
   * before it left, it never will, and the wait ends in an error.
   */
  private async waitRingIs(via: CassandraMember, members: CassandraMember[], timeoutMs = 120_000, leaving?: CassandraMember): Promise<void> {
    const want = members
      .map((m) => m.address)
      .sort()
      .join(',');
    const watch = startRingWatch(this.shell(via.node), await this.ringWatcherOn(via.node, via.dir));
    try {
      await waitFor(
        async () => {
          const ring = watch.take();
          if (ring === undefined) return undefined;
          const stuck = leaving && ring.find((e) => e.address === leaving.address && !e.up);
          if (stuck && !(await this.shell(leaving.node).isOurs(leaving.pid, configProperty(leaving.dir)))) {
            throw new Error(
              `cassandra: ${leaving.node} died while leaving the ring (D${stuck.state}); restart it (restartMember) and ask for its removal again`,
            );
          }
          const ok =
            ring.every((e) => e.up && e.state === 'N') &&
            ring
              .map((e) => e.address)
              .sort()
              .join(',') === want;
          return ok ? true : undefined;
        },
        { what: `Cassandra's ring to be ${members.map((m) => m.node).join(', ')}, all up and normal`, timeoutMs, intervalMs: POLL_MS },
      );
    } finally {
      await watch.stop();
    }
  }

  /**
   * Runs `step` while watching `node`'s log for `pattern`, the line Cassandra writes once it has
   * taken the resize (an earlier attempt's line counts: the cluster took it then).
   */
  private async acceptedWhile<T>(state: CassandraState, resize: Resize, node: string, pattern: string, step: () => Promise<T>): Promise<T> {
    const where = { node, dir: this.dirOf(node) };
    let done = false;
    const watch = (async () => {
      while (!done && resize.acceptedAt === undefined) {
        if (await this.logHas(where, pattern)) this.noteAccepted(state, resize);
        else await sleep(POLL_MS);
      }
    })();
    try {
      return await step();
    } finally {
      done = true;
      await watch;
    }
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
    return this.formWith(
      state,
      this.nonDefaultSettings(options),
      async () => {
        // A new cluster has no data to stream: every member takes its share of evenly spaced tokens
        // without bootstrapping, so all but the seed start at once (one at a time, each bootstrap
        // waited for, took a minute for three nodes on this host). The seed first: the others learn
        // the ring from it. The keyspace comes once the ring is whole.
        const tokens = evenTokens(nodes.length, options.numTokens);
        const start = async (i: number) => {
          const member = await this.startMember(nodes[i], state, tokens[i]);
          state.members.push(member);
          this.state.write(state);
        };
        await start(0);
        await allDone(nodes.slice(1).map((_, i) => start(i + 1)));
        state.members.sort((a, b) => nodes.findIndex((n) => n.name === a.node) - nodes.findIndex((n) => n.name === b.node));
        const seed = state.members[0];
        await this.waitRingIs(seed, state.members);
        const rows = await this.cql(seed, [
          `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'NetworkTopologyStrategy', '${DATACENTER}': ${options.replication}}`,
          tableDdl(options.fieldCount),
          'SELECT release_version FROM system.local',
        ]);
        state.version = rows.split('\n').pop() || 'unknown';
      },
      {
        'replication factor': String(options.replication),
        'read consistency': options.readConsistency,
        'write consistency': options.writeConsistency,
      },
    );
  }

  private nonDefaultSettings(options: CassandraOptions): Record<string, string> {
    const labelled: Record<string, string> = {
      max_heap_size: `${options.heapMb}M`,
      // How the cluster was formed, not how it serves: the same token count, spaced evenly.
      initial_token: `${options.numTokens} per member, evenly spaced, no bootstrap at formation (members started together)`,
    };
    for (const property of [...speedUpProperties(options.ringDelayMs), RESTART_BOOTSTRAP_PROPERTY]) {
      const [key, value] = property.replace(/^-D/, '').split('=');
      labelled[key] = value;
    }
    if (options.allowBelowSystemReplication) labelled['decommission'] = `--force below ${SYSTEM_REPLICATION} nodes`;
    return labelled;
  }

  /**
   * A resize asked again after its caller died resumes from what the node and the ring say: the
   * newcomer's JVM, started detached, outlives its caller and is adopted; the ring tells whether a
   * decommission is still to be asked for or is under way. Its timing starts at the first request.
   */
  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('cassandra addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const seed = this.seedMember(state);
    let member: CassandraMember;
    try {
      // The ring has the newcomer once it announced its bootstrap tokens ("JOINING: sleeping ... for
      // pending range setup"); a node that skips bootstrap goes straight to serving.
      const joined = 'JOINING: sleeping|state jump to NORMAL|Starting listening for CQL';
      const fresh = () => this.startMember(node, state);
      // A JVM that died bootstrapping bootstraps again when started on its directory (serverArgv).
      const resumedServer = () =>
        this.resumedNewcomer(state, this.newcomer(state, node), {
          serving: (pid) => awaitServing(this.shell(node), this.serverSpec(this.dirOf(node.name)), pid, this.servesCql(node), START_TIMEOUT_MS),
          logFile: logPath(this.dirOf(node.name)),
          fresh,
        });
      member = await this.acceptedWhile(state, resize, node.name, joined, resumed ? resumedServer : fresh);
    } catch (err) {
      // Its JVM failed and was stopped; unless the ring still has it, the cluster is as it was.
      const ring = await this.ring(seed).catch(() => undefined);
      if (ring && !ring.some((e) => e.address === node.overlayAddress)) this.forgetResize(state);
      throw err;
    }
    this.recordMember(state, member);
    await this.waitRingIs(seed, state.members);
    return this.completed(state, resize);
  }

  /**
   * The two ways to read the ring as `node` (a member) sees it, as argv on that node: `nodetool
   * status`, a JVM a read, and the ring watcher the waits use, a JVM a wait (its source written
   * there). bench:db prints what each costs.
   */
  async ringReaders(node: InventoryNode): Promise<{ nodetoolStatus: string[]; ringWatch: string[] }> {
    const dir = this.dirOf(node.name);
    return { nodetoolStatus: nodetoolArgv(this.classpath(node), dir, ['status']), ringWatch: await this.ringWatcherOn(node.name, dir) };
  }

  /** The ring watcher's argv on a member, its tools compiled first. */
  private async ringWatcherOn(name: string, dir: string): Promise<string[]> {
    const shell = this.shell(name);
    await this.ensureTools(shell, dir);
    return ringWatchArgv(this.classpath(shell.node), dir, RING_WATCH_INTERVAL_MS);
  }

  /** The adapter's Java tools compiled where the member whose directory is `dir` runs them (once per host and fleet). */
  private async ensureTools(shell: NodeShell, dir: string): Promise<void> {
    const classes = toolClassesDir(dir);
    if ((await shell.run(['test', '-f', join(classes, 'RingWatch.class')], { allowFailure: true })).code === 0) return;
    const sources = `${classes}.${shell.node.name}-${process.pid}`;
    await shell.makeDir(sources);
    try {
      for (const [name, source] of Object.entries(TOOL_SOURCES)) await shell.writeFile(join(sources, `${name}.java`), source);
      await shell.run(['sh', '-c', COMPILE_TOOLS_SCRIPT, 'sh', classes, sources, this.classpath(shell.node)], { timeoutMs: 120_000 });
    } finally {
      await shell.removeDir(sources);
    }
  }

  private seedMember(state: CassandraState): CassandraMember {
    return state.members.find((m) => m.node === state.seed) ?? state.members[0];
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('cassandra removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    if (node.name === state.seed) {
      throw new InputError('node', `${node.name} is the Cassandra cluster's seed, which is never removed; remove another member`);
    }
    const remaining = state.members.filter((m) => m !== leaving);
    const seed = this.seedMember(state);
    const mode = await this.modeOf(leaving);
    if (mode === undefined && (await this.ring(seed)).some((e) => e.address === leaving.address)) {
      throw new Error(
        `cassandra: ${node.name} is in the ring but its nodetool gets no answer (is its JVM down?); restart it (restartMember), then remove it`,
      );
    }
    const left = mode === undefined || mode === 'DECOMMISSIONED';
    if (!left && !['NORMAL', 'LEAVING', 'DECOMMISSION_FAILED'].includes(mode)) {
      throw new InputError('node', `${node.name} is ${mode.toLowerCase().replace('_', ' ')} in Cassandra's ring; remove it once it is normal`);
    }
    const resize = resumed ?? this.begin(state, 'remove', node);
    // LEAVING: a killed caller's decommission goes on in the node's JVM (a second one would only
    // say "This node is still decommissioning."). Left: only its JVM and files remain.
    if (!left && mode !== 'LEAVING') {
      await this.acceptedWhile(state, resize, node.name, 'LEAVING: ', () => this.decommission(state, leaving, remaining));
    }
    this.noteAccepted(state, resize);
    await this.waitRingIs(seed, remaining, mode === 'LEAVING' ? STREAM_TIMEOUT_MS : undefined, leaving);
    const completedAt = Date.now();
    await this.retire(state, [leaving]);
    return this.timingOf(resize, completedAt);
  }

  /**
   * nodetool decommission. A failed nodetool whose node is still normal was refused: the cluster is
   * as it was and the resize is forgotten. One whose node is leaving or has left lost its JMX
   * connection while the decommission went on: the caller waits for it.
   */
  private async decommission(state: CassandraState, leaving: CassandraMember, remaining: CassandraMember[]): Promise<void> {
    const force = state.options.allowBelowSystemReplication && remaining.length < SYSTEM_REPLICATION;
    try {
      await this.nodetool(leaving, force ? ['decommission', '--force'] : ['decommission'], STREAM_TIMEOUT_MS);
    } catch (err) {
      const mode = err instanceof CommandError ? await this.modeOf(leaving) : undefined;
      if (mode === 'LEAVING' || mode === 'DECOMMISSIONED') return;
      if (err instanceof CommandError && mode !== undefined) {
        this.forgetResize(state);
        const said =
          err.result.stdout
            .concat(err.result.stderr)
            .split('\n')
            .find((l) => l.startsWith('nodetool:')) ?? err.message;
        const hint = remaining.length < SYSTEM_REPLICATION ? '; set settings.options.allowBelowSystemReplication to force it' : '';
        // eslint-disable-next-line preserve-caught-error -- nodetool's own line is kept; a cause would add the whole command and output to the activity's failure
        throw new Error(`Cassandra refused to decommission ${leaving.node}: ${said.replace(/^nodetool:\s*/, '')} (the cluster is unchanged${hint})`);
      }
      throw err;
    }
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

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
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
