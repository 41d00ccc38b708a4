/**
 * MongoDB replica set: one mongod per node bound to its overlay address; `rs.initiate` on the first,
 * `rs.add` / `rs.remove` on the primary (found with `db.hello()`). Every member holds all the data
 * (full replication, as in the published work). Runs on Ubuntu VMs, installed from MongoDB's apt
 * repository: there is no MongoDB package on this machine's registries.
 *
 * A replica set votes with at most 7 members: members past the 7th join with votes 0, priority 0.
 * The primary is never removed (step it down first); removing it is refused.
 *
 * A resize asked again after its caller died resumes from the replica set's configuration
 * (rs.conf()): rs.add and rs.remove are sent only when it lacks, or still has, the member; a
 * newcomer's mongod, started detached, is adopted if it still runs. Like the rest of this adapter
 * this runs only on VMs, and is tested at the command level (test/unit/databases-mongodb.test.ts).
 */
import { join } from 'node:path';
import type { DatabaseAdapter, YcsbBinding, ClusterInfo, ClusterSettings, ResizeTiming } from '../../core/database';
import { InputError } from '../../core/errors';
import type { Inventory, InventoryNode } from '../../core/inventory';
import { ClusterAdapter, type Member, type Resize } from './cluster-adapter';
import { waitFor } from '../../platform/wait';
import { defaultExecProvider, startServer, type ExecProvider, type ProcessMarker } from './node-shell';
import { installFromVendor } from './vendor-apt';

type MongoMember = Member;

interface MongoState {
  version: string;
  readPreference: string;
  writeConcern: string;
  members: MongoMember[];
  resizing?: Resize;
}

export const MONGO_PORT = 27017;
export const REPLICA_SET = 'fragbench';
const MAX_VOTING = 7;
const START_TIMEOUT_MS = 60_000;
const SYNC_TIMEOUT_MS = 60 * 60_000;

const MONGO_REPOSITORY = {
  name: 'mongodb-org-7.0',
  keyUrl: 'https://pgp.mongodb.com/server-7.0.asc',
  sourceLine: (codename: string) =>
    `deb [ arch=amd64,arm64 signed-by={keyring} ] https://repo.mongodb.org/apt/ubuntu ${codename}/mongodb-org/7.0 multiverse`,
  packages: ['mongodb-org'],
  disableServices: ['mongod'],
};

interface MemberStatus {
  name: string;
  state: string;
  health: number;
}

const host = (m: { address: string }) => `${m.address}:${MONGO_PORT}`;

function mongodConfig(address: string, dir: string): string {
  return `# Written by fragbench; anything not set here is MongoDB's default.
storage:
  dbPath: ${join(dir, 'data')}
net:
  bindIp: ${address}
  port: ${MONGO_PORT}
replication:
  replSetName: ${REPLICA_SET}
`;
}

export class MongoReplicaSetAdapter extends ClusterAdapter<MongoState> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('mongodb', inventory, execOf, `replica set ${REPLICA_SET}`);
  }

  /** Evaluates JavaScript in mongosh against one member; the script prints JSON. */
  private async evalJson<T>(member: MongoMember, script: string, allowFailure = false): Promise<T | undefined> {
    const result = await this.shell(member.node).run(['mongosh', '--quiet', '--host', host(member), '--eval', script], {
      allowFailure,
      timeoutMs: 60_000,
    });
    if (result.code !== 0) return undefined;
    return JSON.parse(result.stdout.trim()) as T;
  }

  private async memberStatus(via: MongoMember): Promise<MemberStatus[] | undefined> {
    return this.evalJson<MemberStatus[]>(
      via,
      'JSON.stringify(rs.status().members.map((m) => ({ name: m.name, state: m.stateStr, health: m.health })))',
      true,
    );
  }

  /** Hosts in the replica set's configuration: members it was asked to have, whatever their state. */
  private async configuredHosts(via: MongoMember): Promise<string[]> {
    return (await this.evalJson<string[]>(via, 'JSON.stringify(rs.conf().members.map((m) => m.host))')) ?? [];
  }

  /** The member that is primary, as `db.hello()` on any reachable member says. */
  private async primary(state: MongoState): Promise<MongoMember> {
    for (const member of state.members) {
      const hello = await this.evalJson<{ primary?: string }>(member, 'JSON.stringify({ primary: db.hello().primary })', true);
      const primary = state.members.find((m) => host(m) === hello?.primary);
      if (primary) return primary;
    }
    throw new Error(`mongodb: no member of replica set ${REPLICA_SET} reports a primary`);
  }

  private async checkOk(member: MongoMember, script: string, what: string): Promise<void> {
    const reply = await this.evalJson<{ ok: number; errmsg?: string }>(member, `JSON.stringify(${script})`);
    if (reply?.ok !== 1) throw new Error(`mongodb ${what} on ${member.node} failed: ${reply?.errmsg ?? JSON.stringify(reply)}`);
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport === 'ssh') return installFromVendor(shell, MONGO_REPOSITORY);
    const found = await shell.run(['sh', '-c', 'command -v mongod && command -v mongosh'], { allowFailure: true });
    if (found.code !== 0) {
      throw new Error(`mongodb: mongod/mongosh are not installed on ${shell.label}; MongoDB runs on Ubuntu VMs, where the adapter installs it`);
    }
  }

  private async startMember(state: MongoState, node: InventoryNode): Promise<MongoMember> {
    const shell = this.shell(node);
    const member = this.newcomer(state, node);
    // Never two mongods on one dbPath: one nobody recorded goes before its files do.
    await this.stopUnrecorded(state, member);
    await shell.removeDir(member.dir);
    await shell.makeDir(join(member.dir, 'data'));
    await shell.writeFile(this.confPath(member), mongodConfig(node.overlayAddress, member.dir));
    member.pid = await this.relaunch(member);
    return member;
  }

  protected newcomer(_state: MongoState, node: InventoryNode): MongoMember {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
  }

  private confPath(member: MongoMember): string {
    return join(member.dir, 'mongod.conf');
  }

  protected serverMarker(member: MongoMember): ProcessMarker {
    return this.confPath(member);
  }

  private serverSpec(member: MongoMember) {
    return { database: 'mongodb', logFile: join(member.dir, 'mongod.log'), marker: this.serverMarker(member) };
  }

  private answersPing(member: MongoMember): () => Promise<boolean> {
    return async () => (await this.evalJson<number>(member, 'JSON.stringify(db.adminCommand({ ping: 1 }).ok)', true)) === 1;
  }

  /** mongod on the member's directory as it is: a fresh one, or a dead member's, whose data makes it rejoin the replica set. */
  protected relaunch(member: MongoMember): Promise<number> {
    const argv = ['mongod', '--config', this.confPath(member)];
    return startServer(this.shell(member.node), { ...this.serverSpec(member), argv }, this.answersPing(member), START_TIMEOUT_MS);
  }

  protected async stopMember(member: MongoMember): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, this.serverMarker(member), 30_000);
    await shell.removeDir(member.dir);
  }

  /** Waits until every member in `members` is PRIMARY or SECONDARY and no one else is in the set. */
  private async waitHealthy(via: MongoMember, members: MongoMember[], timeoutMs: number): Promise<void> {
    const want = members.map(host).sort().join(',');
    await waitFor(
      async () => {
        const status = await this.memberStatus(via);
        const ready =
          status &&
          status
            .map((s) => s.name)
            .sort()
            .join(',') === want &&
          status.every((s) => s.health === 1 && (s.state === 'PRIMARY' || s.state === 'SECONDARY'));
        return ready ? true : undefined;
      },
      { what: `replica set ${REPLICA_SET} to be ${members.map((m) => m.node).join(', ')}, each primary or secondary`, timeoutMs, intervalMs: 1000 },
    );
  }

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    if (nodes.length === 0) throw new InputError('nodes', 'at least one node is needed');
    if (settings.replication !== undefined && settings.replication !== nodes.length) {
      throw new InputError('settings.replication', 'a MongoDB replica set keeps a full copy on every member; leave replication unset');
    }
    const state: MongoState = {
      version: '',
      readPreference: String(settings.options?.readPreference ?? 'primary'),
      writeConcern: String(settings.options?.writeConcern ?? 'majority'),
      members: [],
    };
    return this.formWith(
      state,
      {},
      async () => {
        for (const node of nodes) {
          state.members.push(await this.startMember(state, node));
          this.state.write(state);
        }
        const first = state.members[0];
        const config = {
          _id: REPLICA_SET,
          members: state.members.map((m, i) => ({ _id: i, host: host(m), ...(i >= MAX_VOTING ? { votes: 0, priority: 0 } : {}) })),
        };
        await this.checkOk(first, `rs.initiate(${JSON.stringify(config)})`, 'rs.initiate');
        await this.waitHealthy(first, state.members, SYNC_TIMEOUT_MS);
        state.version = (await this.evalJson<string>(first, 'JSON.stringify(db.version())')) ?? 'unknown';
      },
      { 'replica set members': String(nodes.length), 'write concern': state.writeConcern, 'read preference': state.readPreference },
    );
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('mongodb addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const others = state.members.filter((m) => m.node !== node.name);
    const primary = await this.primary({ ...state, members: others });
    const configured = (await this.configuredHosts(primary)).includes(`${node.overlayAddress}:${MONGO_PORT}`);
    const newcomer = this.newcomer(state, node);
    const member = await this.servingNewcomer(state, resumed !== undefined, {
      newcomer,
      logFile: this.serverSpec(newcomer).logFile,
      ready: this.answersPing(newcomer),
      timeoutMs: START_TIMEOUT_MS,
      fresh: () => this.startMember(state, node),
      taken: configured,
    });
    if (configured) {
      // An attempt that died after rs.add: the set has it, and syncs it once its mongod runs.
      this.recordMember(state, member);
      this.noteAccepted(state, resize);
    } else {
      const voting = others.length < MAX_VOTING;
      const spec = { host: host(member), ...(voting ? {} : { votes: 0, priority: 0 }) };
      this.noteAccepted(state, resize, await this.admit(state, member, () => this.checkOk(primary, `rs.add(${JSON.stringify(spec)})`, 'rs.add')));
    }
    // Completed once the newcomer finished its initial sync and serves as a secondary.
    await this.waitHealthy(primary, state.members, SYNC_TIMEOUT_MS);
    return this.completed(state, resize);
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('mongodb removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    const primary = await this.primary(state);
    if (primary === leaving) {
      throw new InputError(
        'node',
        `${node.name} is the replica set's primary, which is never removed; step it down (rs.stepDown) or remove a secondary`,
      );
    }
    const remaining = state.members.filter((m) => m !== leaving);
    const configured = (await this.configuredHosts(primary)).includes(host(leaving));
    const resize = resumed ?? this.begin(state, 'remove', node);
    // Not configured any more: an attempt that died after rs.remove; only its mongod is left to stop.
    if (configured) await this.checkOk(primary, `rs.remove(${JSON.stringify(host(leaving))})`, 'rs.remove');
    return this.removalTaken(state, resize, leaving, () => this.waitHealthy(primary, remaining, SYNC_TIMEOUT_MS));
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    const byHost = new Map(state.members.map((m) => [host(m), m.node]));
    for (const via of state.members) {
      const status = await this.memberStatus(via);
      if (!status) continue;
      const healthy =
        status.length === state.members.length &&
        status.filter((s) => s.state === 'PRIMARY').length === 1 &&
        status.every((s) => s.health === 1 && (s.state === 'PRIMARY' || s.state === 'SECONDARY'));
      return { members: status.map((s) => byHost.get(s.name) ?? s.name), healthy };
    }
    return { members: [], healthy: false };
  }

  async flush(): Promise<void> {
    const state = this.state.require('mongodb flush');
    const primary = await this.primary(state);
    await this.checkOk(primary, 'db.getSiblingDB("ycsb").dropDatabase()', 'dropDatabase');
  }

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
    const state = this.state.require('mongodb ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.MongoClient',
      properties: {
        'mongodb.url': `mongodb://${state.members.map(host).join(',')}/ycsb?replicaSet=${REPLICA_SET}`,
        'mongodb.readPreference': state.readPreference,
        'mongodb.writeConcern': state.writeConcern,
        'mongodb.timeoutMs': String(options.timeoutMs),
      },
    };
  }
}
