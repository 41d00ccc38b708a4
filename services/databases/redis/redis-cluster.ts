/**
 * Redis Cluster: one redis-server per node bound to its overlay address; `redis-cli --cluster`
 * forms the cluster, adds a node (add-node, then rebalance onto it) and removes one (rebalance its
 * slots away with weight 0, then del-node). Replication is copies per key: 1 means masters only.
 * redis-cli moves the slots one by one, about seven round trips each (importing, migrating, keys,
 * then the new owner announced to every master), so a reshard runs from the node whose end of
 * those round trips is local.
 * A resize is recorded in the state as it goes, so that the same resize asked again after its
 * caller died (a killed worker's retried activity) finishes it instead of failing: slots a killed
 * reshard left half-moved are settled with `--cluster fix`, and the rebalance runs again.
 */
import { join } from 'node:path';
import type { DatabaseAdapter, YcsbBinding, ClusterInfo, ClusterSettings, ResizeTiming } from '../../../core/database';
import { InputError } from '../../../core/errors';
import type { Inventory, InventoryNode } from '../../../core/inventory';
import { ClusterAdapter, type Member, type Resize } from '../cluster-adapter';
import { sleep, waitFor } from '../../../platform/wait';
import { defaultExecProvider, NodeShell, startServer, type ExecProvider, type ProcessMarker } from '../node-shell';
import { installFromVendor } from '../vendor-apt';
import { HASH_SLOTS, isMaster, myself, parseClusterInfo, parseClusterNodes, type ClusterNodeLine } from './cluster-nodes';

interface RedisMember extends Member {
  /** Cluster node id (CLUSTER MYID). */
  id: string;
}

interface RedisResize extends Resize {
  /** The server an add started, once it served. */
  started?: RedisMember;
}

interface RedisState {
  port: number;
  /** cluster-node-timeout, when the scenario set it (Redis's default otherwise). */
  clusterNodeTimeoutMs?: number;
  /** WAIT-based writes: replicas each write waits for (0: none), and for how long at most. */
  waitReplicas: number;
  waitTimeoutMs: number;
  replicas: number;
  version: string;
  members: RedisMember[];
  resizing?: RedisResize;
}

const DEFAULT_PORT = 6379;
/** Redis's own cluster-node-timeout, ms. */
const DEFAULT_NODE_TIMEOUT_MS = 15_000;
const DEFAULT_WAIT_TIMEOUT_MS = 1_000;
const START_TIMEOUT_MS = 15_000;
const SETTLE_TIMEOUT_MS = 120_000;
/** Moving slots is slow under high latency (SPEC.md §2): allow long reshards. */
const RESHARD_TIMEOUT_MS = 60 * 60_000;
/** How often a resize is watched for the cluster's acceptance: the resolution of acceptedAt. */
const POLL_MS = 50;

const REDIS_REPOSITORY = {
  name: 'redis',
  keyUrl: 'https://packages.redis.io/gpg',
  sourceLine: (codename: string) => `deb [signed-by={keyring}] https://packages.redis.io/deb ${codename} main`,
  packages: ['redis-server', 'redis-tools'],
  disableServices: ['redis-server'],
};

/**
 * How a member's process is recognised: redis-server starts as `redis-server <conf>` and then
 * rewrites its title to "redis-server <bind>:<port> [cluster]"; either means it is ours.
 */
function redisMarker(address: string, port: number, dir: string): ProcessMarker {
  return [`redis-server ${address}:${port}`, join(dir, 'redis.conf')];
}

/** What a member's configuration depends on besides its address and directory. */
type MemberConfig = Pick<RedisState, 'port' | 'clusterNodeTimeoutMs'>;

function redisConfig(address: string, config: MemberConfig, dir: string): string {
  const { port, clusterNodeTimeoutMs } = config;
  return [
    `bind ${address}`,
    `port ${port}`,
    // No password on the isolated fleet network; protected mode would refuse other nodes.
    'protected-mode no',
    'cluster-enabled yes',
    `cluster-config-file ${join(dir, 'nodes.conf')}`,
    ...(clusterNodeTimeoutMs === undefined ? [] : [`cluster-node-timeout ${clusterNodeTimeoutMs}`]),
    `dir ${dir}`,
    `pidfile ${join(dir, 'redis.pid')}`,
    'daemonize no',
    'logfile ""',
    '',
  ].join('\n');
}

export class RedisClusterAdapter extends ClusterAdapter<RedisState, RedisMember> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('redis', inventory, execOf, 'the Redis cluster');
  }

  private cli(shell: NodeShell, address: string, port: number, args: string[], allowFailure = false) {
    return shell.run(['redis-cli', '-h', address, '-p', String(port), ...args], { allowFailure, timeoutMs: 10_000 });
  }

  /** `redis-cli --cluster <command>`, run from `shell`'s node. */
  private clusterCommand(shell: NodeShell, args: string[], timeoutMs = RESHARD_TIMEOUT_MS) {
    return shell.run(['redis-cli', '--cluster', ...args], { timeoutMs });
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport === 'ssh') return installFromVendor(shell, REDIS_REPOSITORY);
    for (const tool of ['redis-server', 'redis-cli']) {
      const found = await shell.run(['sh', '-c', `command -v ${tool}`], { allowFailure: true });
      if (found.code !== 0) throw new Error(`redis: ${tool} is not installed on ${shell.label}; run scripts/setup.sh`);
    }
  }

  private async startMember(node: InventoryNode, config: MemberConfig): Promise<RedisMember> {
    const { port } = config;
    const shell = this.shell(node);
    const dir = this.dirOf(node.name);
    // A server an interrupted attempt started but never recorded.
    const leftover = await shell.run(['cat', join(dir, 'redis.pid')], { allowFailure: true });
    if (leftover.code === 0) await shell.stopProcess(Number(leftover.stdout.trim()), redisMarker(node.overlayAddress, port, dir));
    await shell.removeDir(dir);
    await shell.makeDir(dir);
    await shell.writeFile(join(dir, 'redis.conf'), redisConfig(node.overlayAddress, config, dir));
    const address = node.overlayAddress;
    const pid = await this.launch(node.name, address, port, dir);
    const id = (await this.cli(shell, address, port, ['CLUSTER', 'MYID'])).stdout.trim();
    return { node: node.name, address, pid, id, dir };
  }

  /** redis-server on `dir` as it is: a fresh one, or a dead member's, whose nodes.conf makes it rejoin as itself. */
  private launch(node: string, address: string, port: number, dir: string): Promise<number> {
    const shell = this.shell(node);
    return startServer(
      shell,
      {
        database: 'redis',
        argv: ['redis-server', join(dir, 'redis.conf')],
        logFile: join(dir, 'redis.log'),
        marker: redisMarker(address, port, dir),
      },
      async () => (await this.cli(shell, address, port, ['PING'], true)).stdout.trim() === 'PONG',
      START_TIMEOUT_MS,
    );
  }

  protected serverMarker(member: RedisMember, state: Pick<RedisState, 'port'>): ProcessMarker {
    return redisMarker(member.address, state.port, member.dir);
  }

  protected relaunch(member: RedisMember, state: Pick<RedisState, 'port'>): Promise<number> {
    return this.launch(member.node, member.address, state.port, member.dir);
  }

  protected newcomer(_state: RedisState, node: InventoryNode): RedisMember {
    return { node: node.name, address: node.overlayAddress, pid: 0, id: '', dir: this.dirOf(node.name) };
  }

  protected async stopMember(member: RedisMember, state: Pick<RedisState, 'port'>): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, redisMarker(member.address, state.port, member.dir));
    await shell.removeDir(member.dir);
  }

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    const copies = settings.replication ?? 1;
    const replicas = copies - 1;
    if (!Number.isInteger(copies) || copies < 1) throw new InputError('settings.replication', `must be a whole number >= 1, got ${copies}`);
    if (nodes.length < 3 * copies) {
      throw new InputError('nodes', `Redis Cluster needs at least 3 masters: ${copies} copies per key need ${3 * copies} nodes, got ${nodes.length}`);
    }
    const options = settings.options ?? {};
    const port = Number(options.port ?? DEFAULT_PORT);
    const state: RedisState = {
      port,
      ...(options.clusterNodeTimeoutMs === undefined ? {} : { clusterNodeTimeoutMs: Number(options.clusterNodeTimeoutMs) }),
      waitReplicas: Number(options.waitReplicas ?? 0),
      waitTimeoutMs: Number(options.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS),
      replicas,
      version: await this.version(this.shell(nodes[0])),
      members: [],
    };
    if (state.waitReplicas > replicas) {
      throw new InputError(
        'settings.options.waitReplicas',
        `is ${state.waitReplicas} but each master has ${replicas} replica(s): every write would fail`,
      );
    }
    const nonDefault: Record<string, string> = { 'protected-mode': 'no' };
    if (state.clusterNodeTimeoutMs !== undefined)
      nonDefault['cluster-node-timeout'] = `${state.clusterNodeTimeoutMs} (default ${DEFAULT_NODE_TIMEOUT_MS})`;
    return this.formWith(
      state,
      nonDefault,
      async () => {
        for (const node of nodes) {
          state.members.push(await this.startMember(node, state));
          this.state.write(state);
        }
        const endpoints = state.members.map((m) => `${m.address}:${port}`);
        await this.clusterCommand(this.shell(nodes[0]), ['create', ...endpoints, '--cluster-replicas', String(replicas), '--cluster-yes']);
        await this.waitSettled(state);
      },
      consistencySettings(state),
    );
  }

  private async version(shell: NodeShell): Promise<string> {
    const text = await shell.output(['redis-server', '--version']);
    return /v=(\S+)/.exec(text)?.[1] ?? text;
  }

  /** CLUSTER NODES as seen by one member. */
  private async clusterNodes(state: RedisState, member: RedisMember): Promise<ClusterNodeLine[]> {
    const reply = await this.cli(this.shell(member.node), member.address, state.port, ['CLUSTER', 'NODES']);
    return parseClusterNodes(reply.stdout);
  }

  /** True when every member says cluster_state:ok, all slots are served and all agree on membership. */
  private async settled(state: RedisState): Promise<boolean> {
    for (const member of state.members) {
      const shell = this.shell(member.node);
      const info = parseClusterInfo((await this.cli(shell, member.address, state.port, ['CLUSTER', 'INFO'], true)).stdout);
      if (info.cluster_state !== 'ok' || Number(info.cluster_known_nodes) !== state.members.length) return false;
    }
    const first = state.members[0];
    const check = await this.shell(first.node).run(['redis-cli', '--cluster', 'check', `${first.address}:${state.port}`], {
      allowFailure: true,
    });
    return check.code === 0 && check.stdout.includes(`All ${HASH_SLOTS} slots covered`) && !/\[(ERR|WARNING)\]/.test(check.stdout);
  }

  private async waitSettled(state: RedisState): Promise<void> {
    await waitFor(() => this.settled(state), {
      what: 'the Redis cluster to agree on its configuration',
      timeoutMs: SETTLE_TIMEOUT_MS,
      intervalMs: 200,
    });
  }

  /**
   * Completes slot moves a killed reshard left open (a slot migrating on one node, importing on
   * another). Only then: fix refuses to run while the nodes disagree, as they do until all know a
   * newcomer that a killed add had just met.
   */
  private async fixOpenSlots(state: RedisState, via: RedisMember): Promise<void> {
    let open = false;
    for (const member of state.members) open ||= myself(await this.clusterNodes(state, member)).migrating;
    if (open) await this.clusterCommand(this.shell(via.node), ['fix', `${via.address}:${state.port}`, '--cluster-yes']);
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('redis addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const via = state.members[0];
    const viaShell = this.shell(via.node);
    if (!state.members.some((m) => m.node === node.name)) {
      try {
        let member = resize.started;
        if (!member || !(await this.shell(node).isOurs(member.pid, redisMarker(member.address, state.port, member.dir)))) {
          member = await this.startMember(node, state);
          resize.started = member;
          this.state.write(state);
        }
        const started = member;
        const known = (await this.clusterNodes(state, via)).some((l) => l.id === started.id);
        const acceptedAt = await this.admit(state, started, async () => {
          if (!known) await this.clusterCommand(viaShell, ['add-node', `${started.address}:${state.port}`, `${via.address}:${state.port}`]);
        });
        this.noteAccepted(state, resize, acceptedAt);
      } catch (err) {
        // The newcomer could not start (a refused join is admit's to forget): nothing to finish.
        this.forgetResize(state);
        throw err;
      }
    }
    // A member already: taken by an attempt that died before it could record when.
    this.noteAccepted(state, resize);
    if (resumed) await this.fixOpenSlots(state, via);
    // rebalance refuses to run until every node knows the newcomer.
    await this.waitSettled(state);
    // Run from the newcomer: every slot's commands to it (the target) are then local.
    await this.clusterCommand(this.shell(node), ['rebalance', `${via.address}:${state.port}`, '--cluster-use-empty-masters']);
    await this.waitSettled(state);
    return this.completed(state, resize);
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('redis removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    const staying = state.members.filter((m) => m !== leaving);
    const via = staying[0];
    // As the staying nodes see it: an interrupted attempt may have shut the leaving node down.
    const view = await this.clusterNodes(state, via);
    const line = view.find((l) => l.id === leaving.id);
    const slots = line?.slots ?? 0;
    if (!resumed && slots > 0 && view.filter((l) => isMaster(l) && l.slots > 0).length <= 1) {
      throw new InputError('node', `${node.name} is the last Redis master serving slots; the cluster cannot give them to anyone`);
    }
    const resize = resumed ?? this.begin(state, 'remove', node);
    if (resumed) await this.fixOpenSlots(state, via);
    const remaining = line ? myself(await this.clusterNodes(state, leaving)).slots : 0;
    if (remaining > 0) {
      // Run from the leaving node: every slot's commands to it (the source) are then local.
      const rebalance = this.clusterCommand(this.shell(leaving.node), [
        'rebalance',
        `${via.address}:${state.port}`,
        '--cluster-weight',
        `${leaving.id}=0`,
      ]);
      this.noteAccepted(state, resize, await this.firstSlotMovedAt(state, leaving, remaining, rebalance));
    }
    await this.forget(state, leaving, staying);
    this.noteAccepted(state, resize);
    await this.waitSettled({ ...state, members: staying });
    const completedAt = Date.now();
    await this.retire(state, [leaving]);
    return this.timingOf(resize, completedAt);
  }

  /**
   * del-node: every staying member forgets the leaving one, which is then reset. A del-node killed
   * part-way leaves some members still knowing it: those are told to forget it one by one (a
   * forgotten node is banned from gossip for a minute, long enough for the rest to follow).
   */
  private async forget(state: RedisState, leaving: RedisMember, staying: RedisMember[]): Promise<void> {
    const knowing: RedisMember[] = [];
    for (const member of staying) if ((await this.clusterNodes(state, member)).some((l) => l.id === leaving.id)) knowing.push(member);
    if (knowing.length === staying.length) {
      const via = staying[0];
      await this.clusterCommand(this.shell(via.node), ['del-node', `${via.address}:${state.port}`, leaving.id]);
      return;
    }
    for (const member of knowing) await this.cli(this.shell(member.node), member.address, state.port, ['CLUSTER', 'FORGET', leaving.id]);
  }

  /**
   * Watches the leaving node while `moving` runs: the cluster has taken the request when a slot is
   * marked migrating on it or its slot count drops. Resolves once `moving` finished.
   */
  private async firstSlotMovedAt(state: RedisState, leaving: RedisMember, slotsBefore: number, moving: Promise<unknown>): Promise<number> {
    let done = false;
    let doneAt = 0;
    const finished = moving.finally(() => {
      done = true;
      doneAt = Date.now();
    });
    let acceptedAt: number | undefined;
    while (!done && acceptedAt === undefined) {
      const me = await this.clusterNodes(state, leaving).then(myself, () => undefined);
      if (me && (me.migrating || me.slots < slotsBefore)) acceptedAt = Date.now();
      else await sleep(POLL_MS);
    }
    await finished;
    return acceptedAt ?? doneAt;
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    for (const member of state.members) {
      const shell = this.shell(member.node);
      const reply = await this.cli(shell, member.address, state.port, ['CLUSTER', 'NODES'], true);
      if (reply.code !== 0) continue;
      const view = parseClusterNodes(reply.stdout);
      const byAddress = new Map(state.members.map((m) => [`${m.address}:${state.port}`, m.node]));
      const members = view.map((l) => byAddress.get(l.address) ?? l.address);
      const slots = view.filter(isMaster).reduce((sum, l) => sum + l.slots, 0);
      const allUp = view.every((l) => l.connected && !l.flags.some((f) => f === 'fail' || f === 'fail?'));
      return { members, healthy: allUp && slots === HASH_SLOTS && (await this.settled(state)) };
    }
    return { members: [], healthy: false };
  }

  async flush(): Promise<void> {
    const state = this.state.require('redis flush');
    const view = await this.clusterNodes(state, state.members[0]);
    for (const line of view.filter(isMaster)) {
      const member = state.members.find((m) => `${m.address}:${state.port}` === line.address);
      if (!member) throw new Error(`redis flush: master ${line.address} is not one of the members this fleet started`);
      await this.cli(this.shell(member.node), member.address, state.port, ['FLUSHALL']);
    }
  }

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
    const state = this.state.require('redis ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.RedisClient',
      properties: {
        'redis.hosts': state.members.map((m) => `${m.address}:${state.port}`).join(','),
        'redis.cluster': 'true',
        'redis.timeoutMs': String(options.timeoutMs),
        'redis.maxAttempts': String(options.retries + 1),
        ...(state.waitReplicas > 0 ? { 'redis.waitReplicas': String(state.waitReplicas), 'redis.waitTimeoutMs': String(state.waitTimeoutMs) } : {}),
      },
    };
  }
}

/** The settings that decide what a Redis Cluster keeps through a failover, recorded with every cell. */
function consistencySettings(state: RedisState): Record<string, string> {
  return {
    'replicas per master': String(state.replicas),
    'cluster-node-timeout': `${state.clusterNodeTimeoutMs ?? DEFAULT_NODE_TIMEOUT_MS} ms`,
    writes:
      state.waitReplicas > 0
        ? `WAIT ${state.waitReplicas} replica(s), ${state.waitTimeoutMs} ms`
        : 'acknowledged by the master alone (asynchronous replication)',
  };
}
