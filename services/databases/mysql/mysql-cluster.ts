/**
 * MySQL Cluster (NDB): the first node hosts the management server (ndb_mgmd) and the SQL node
 * (mysqld) besides its data node; every node runs a data node (ndbd). config.ini reserves a data
 * node id for every data node of the inventory, so nodes outside the initial cluster can join
 * later: those start in no node group.
 *
 * NDB grows and shrinks by node groups of `replication` data nodes, not single nodes:
 * - add: the node starts in no group; once `replication` such nodes run, CREATE NODEGROUP makes
 *   them a group and every table is reorganized onto it (ALTER TABLE ... REORGANIZE PARTITION).
 *   Until then the node holds no data, and its add completes when it has started.
 * - remove: a node in no group just stops. A node in a group takes its whole group with it, and
 *   only an empty group can go (NDB cannot move fragments off a group): a group that still holds
 *   table fragments is refused. The first node (management and SQL node) is never removed.
 * Runs on Ubuntu VMs, installed from MySQL's apt repository (no package on this machine's registries).
 *
 * A resize asked again after its caller died resumes from what the management server and the SQL
 * node say: a data node that `ndb_mgm show` has connected, or whose ndbd still runs, is not started
 * again; CREATE and DROP NODEGROUP are sent only if the node's group is not yet made or dropped; the
 * reorganization runs unless the new group already holds the table's fragments, once an ALTER a
 * killed caller may have left running in mysqld is over. Only on VMs, like the rest of this
 * adapter; tested at the command level (test/unit/databases-mysql.test.ts).
 */
import { join } from 'node:path';
import type { DatabaseAdapter, YcsbBinding, ClusterInfo, ClusterSettings, ResizeTiming } from '../../../core/database';
import { InputError } from '../../../core/errors';
import { dataNodes, type Inventory, type InventoryNode } from '../../../core/inventory';
import { ClusterAdapter, type Member, type Resize } from '../cluster-adapter';
import { waitFor } from '../../../platform/wait';
import { defaultExecProvider, startFailure, startServer, type ExecProvider, type NodeShell, type ProcessMarker } from '../node-shell';
import { installFromVendor } from '../vendor-apt';
import { parseNdbShow, type NdbNodeStatus } from './ndb-show';

interface DataNodeMember extends Member {
  nodeId: number;
}

interface MysqlResize extends Resize {
  /**
   * The data nodes a removal takes out (its node group's), recorded before the group is dropped:
   * once it is, the cluster no longer says which nodes were in it.
   */
  leaving?: string[];
}

interface ServiceProcess {
  pid: number;
  marker: string;
}

interface MysqlState {
  version: string;
  replicas: number;
  fieldCount: number;
  /** The node with ndb_mgmd and mysqld. */
  host: string;
  mgmd: ServiceProcess;
  mysqld?: ServiceProcess;
  members: DataNodeMember[];
  resizing?: MysqlResize;
}

export const MGM_PORT = 1186;
export const SQL_PORT = 3306;
export const MGM_NODE_ID = 1;
export const SQL_NODE_ID = 100;
/** Free API slots for tools (ndb_waiter, ndb_desc...). */
const SPARE_API_SLOTS = 4;
/** NodeGroup value that keeps a configured data node out of every group until CREATE NODEGROUP. */
const NO_NODEGROUP = 65536;
const FIRST_DATA_NODE_ID = 2;
const START_TIMEOUT_MS = 10 * 60_000;
const REORGANIZE_TIMEOUT_MS = 60 * 60_000;
export const YCSB_USER = 'ycsb';

const MYSQL_REPOSITORY = {
  name: 'mysql-cluster',
  keyUrl: 'https://repo.mysql.com/RPM-GPG-KEY-mysql-2023',
  sourceLine: (codename: string) => `deb [signed-by={keyring}] http://repo.mysql.com/apt/ubuntu/ ${codename} mysql-cluster-8.4-lts`,
  packages: [
    'mysql-cluster-community-management-server',
    'mysql-cluster-community-data-node',
    'mysql-cluster-community-server',
    'mysql-cluster-community-client',
  ],
  disableServices: ['mysql'],
};

export function usertableDdl(fieldCount: number): string {
  const fields = Array.from({ length: fieldCount }, (_, i) => `FIELD${i} VARCHAR(255)`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ycsb.usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, ${fields}) ENGINE=NDBCLUSTER DEFAULT CHARSET=latin1`;
}

export class MysqlClusterAdapter extends ClusterAdapter<MysqlState, DataNodeMember> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('mysql', inventory, execOf, 'the MySQL Cluster');
  }

  /** Data node ids are fixed per inventory: the position among its data nodes, from 2. */
  private nodeId(node: string): number {
    const index = dataNodes(this.inventory).findIndex((n) => n.name === node);
    if (index < 0) throw new InputError('node', `${node} is not a data node of ${this.inventory.name}`);
    return FIRST_DATA_NODE_ID + index;
  }

  private connectString(state: Pick<MysqlState, 'host'>): string {
    return `${this.shell(state.host).node.overlayAddress}:${MGM_PORT}`;
  }

  private paths(dir: string) {
    return {
      configIni: join(dir, 'config.ini'),
      mgmConfigDir: join(dir, 'mgm'),
      ndbData: join(dir, 'ndb'),
      sqlData: join(dir, 'mysqld'),
      socket: join(dir, 'mysqld.sock'),
    };
  }

  private async ndbShow(state: MysqlState): Promise<NdbNodeStatus[]> {
    return parseNdbShow(await this.mgmCommand(state, 'show'));
  }

  private mgmCommand(state: MysqlState, command: string): Promise<string> {
    return this.shell(state.host).output(['ndb_mgm', `--ndb-connectstring=${this.connectString(state)}`, '-e', command]);
  }

  /** SQL through the SQL node's socket, as root; returns tab-separated rows without headers. */
  private sql(state: Pick<MysqlState, 'host'>, statements: string, timeoutMs = 120_000): Promise<string> {
    const socket = this.paths(this.dirOf(state.host)).socket;
    return this.shell(state.host).output(['mysql', `--socket=${socket}`, '-uroot', '-N', '-B', '-e', statements], { timeoutMs });
  }

  private configIni(state: Pick<MysqlState, 'host' | 'replicas'>, initial: InventoryNode[]): string {
    const host = this.shell(state.host).node;
    const lines = [
      '# Written by fragbench: every data node of the inventory has a reserved id.',
      '[ndbd default]',
      `NoOfReplicas=${state.replicas}`,
      '',
      '[ndb_mgmd]',
      `NodeId=${MGM_NODE_ID}`,
      `HostName=${host.overlayAddress}`,
      `DataDir=${this.paths(this.dirOf(host.name)).mgmConfigDir}`,
    ];
    dataNodes(this.inventory).forEach((node) => {
      const position = initial.findIndex((n) => n.name === node.name);
      const group = position < 0 ? NO_NODEGROUP : Math.floor(position / state.replicas);
      lines.push('', '[ndbd]', `NodeId=${this.nodeId(node.name)}`, `HostName=${node.overlayAddress}`);
      lines.push(`DataDir=${this.paths(this.dirOf(node.name)).ndbData}`, `NodeGroup=${group}`);
    });
    lines.push('', '[mysqld]', `NodeId=${SQL_NODE_ID}`, `HostName=${host.overlayAddress}`);
    for (let i = 0; i < SPARE_API_SLOTS; i++) lines.push('', '[api]');
    return `${lines.join('\n')}\n`;
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport === 'ssh') return installFromVendor(shell, MYSQL_REPOSITORY);
    const found = await shell.run(['sh', '-c', 'command -v ndb_mgmd && command -v ndbd && command -v mysqld'], { allowFailure: true });
    if (found.code !== 0) {
      throw new Error(`mysql: MySQL Cluster is not installed on ${shell.label}; it runs on Ubuntu VMs, where the adapter installs it`);
    }
  }

  /** Starts a data node (ndbd); waitStarted() waits for it. */
  private async startDataNode(state: MysqlState, node: InventoryNode, nowait: number[]): Promise<DataNodeMember> {
    const shell = this.shell(node);
    const dir = this.dirOf(node.name);
    const nodeId = this.nodeId(node.name);
    if (node.name !== state.host) await shell.removeDir(dir);
    await shell.makeDir(this.paths(dir).ndbData);
    const argv = [...this.ndbdArgv(state, nodeId), '--initial'];
    if (nowait.length > 0) argv.push(`--nowait-nodes=${nowait.join(',')}`);
    const pid = await shell.spawn(argv, join(dir, 'ndbd.log'));
    return { node: node.name, address: node.overlayAddress, pid, dir, nodeId };
  }

  private ndbdArgv(state: MysqlState, nodeId: number): string[] {
    return ['ndbd', `--ndb-connectstring=${this.connectString(state)}`, `--ndb-nodeid=${nodeId}`, '--nodaemon'];
  }

  protected newcomer(_state: MysqlState, node: InventoryNode): DataNodeMember {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name), nodeId: this.nodeId(node.name) };
  }

  protected serverMarker(member: DataNodeMember): ProcessMarker {
    return `--ndb-nodeid=${member.nodeId}`;
  }

  /** ndbd again without --initial: it recovers its data from its file system and rejoins its node group. */
  protected async relaunch(member: DataNodeMember, state: MysqlState): Promise<number> {
    const pid = await this.shell(member.node).spawn(this.ndbdArgv(state, member.nodeId), join(member.dir, 'ndbd.log'));
    await this.waitStarted(state, [{ ...member, pid }]);
    return pid;
  }

  /** Waits until the data nodes are STARTED; a node that is not gets the error with its log's tail. */
  private async waitStarted(state: MysqlState, members: DataNodeMember[]): Promise<void> {
    const ids = members.map((m) => m.nodeId).join(',');
    const argv = ['ndb_waiter', `--ndb-connectstring=${this.connectString(state)}`, `--wait-nodes=${ids}`, '--timeout=600'];
    const result = await this.shell(state.host).run(argv, { timeoutMs: START_TIMEOUT_MS, allowFailure: true });
    if (result.code === 0) return;
    const show = await this.ndbShow(state).catch(() => []);
    const down = members.find((m) => !show.some((s) => s.id === m.nodeId && s.connected)) ?? members[0];
    throw await startFailure(
      this.shell(down.node),
      'mysql ndbd',
      join(down.dir, 'ndbd.log'),
      `ndb_waiter: ${result.stdout.trim().split('\n').pop()}`,
    );
  }

  private async startManagement(shell: NodeShell, state: MysqlState, initial: InventoryNode[]): Promise<ServiceProcess> {
    const p = this.paths(this.dirOf(shell.node.name));
    await shell.writeFile(p.configIni, this.configIni(state, initial));
    const marker = `--config-file=${p.configIni}`;
    const argv = ['ndb_mgmd', marker, `--configdir=${p.mgmConfigDir}`, '--initial', '--nodaemon'];
    const logFile = join(this.dirOf(shell.node.name), 'ndb_mgmd.log');
    const mgmShow = ['ndb_mgm', `--ndb-connectstring=${this.connectString(state)}`, '-e', 'show'];
    const ready = async () => (await shell.run(mgmShow, { allowFailure: true })).code === 0;
    return { pid: await startServer(shell, { database: 'mysql ndb_mgmd', argv, logFile, marker }, ready, START_TIMEOUT_MS), marker };
  }

  private async startSqlNode(shell: NodeShell, state: MysqlState): Promise<ServiceProcess> {
    const p = this.paths(this.dirOf(shell.node.name));
    const marker = `--datadir=${p.sqlData}`;
    await shell.run(['mysqld', '--initialize-insecure', '--user=root', marker], { timeoutMs: START_TIMEOUT_MS });
    const argv = [
      'mysqld',
      '--user=root',
      marker,
      `--socket=${p.socket}`,
      `--bind-address=${shell.node.overlayAddress}`,
      `--port=${SQL_PORT}`,
      '--ndbcluster',
      `--ndb-connectstring=${this.connectString(state)}`,
      `--ndb-nodeid=${SQL_NODE_ID}`,
    ];
    // Ready once the SQL node sees the data nodes: ndbinfo answers only through a live cluster.
    const ready = async () => {
      const probe = ['mysql', `--socket=${p.socket}`, '-uroot', '-N', '-B', '-e', 'SELECT COUNT(*) FROM ndbinfo.nodes'];
      const result = await shell.run(probe, { allowFailure: true });
      return result.code === 0 && Number(result.stdout.trim()) > 0;
    };
    const logFile = join(this.dirOf(shell.node.name), 'mysqld.log');
    return { pid: await startServer(shell, { database: 'mysql mysqld', argv, logFile, marker }, ready, START_TIMEOUT_MS), marker };
  }

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    const replicas = settings.replication ?? 2;
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > 4) {
      throw new InputError('settings.replication', `NDB keeps 1 to 4 replicas, got ${replicas}`);
    }
    if (nodes.length === 0 || nodes.length % replicas !== 0) {
      throw new InputError('nodes', `NDB forms node groups of ${replicas} data nodes: give a multiple of ${replicas}, got ${nodes.length}`);
    }
    const fieldCount = Number(settings.options?.fieldCount ?? 10);
    const host = this.shell(nodes[0]);
    const state: MysqlState = { version: '', replicas, fieldCount, host: host.node.name, mgmd: { pid: 0, marker: '' }, members: [] };
    return this.formWith(state, {}, async () => {
      await host.removeDir(this.dirOf(host.node.name));
      await host.makeDir(this.paths(this.dirOf(host.node.name)).mgmConfigDir);
      state.mgmd = await this.startManagement(host, state, nodes);
      this.state.write(state);
      const reserved = dataNodes(this.inventory)
        .filter((n) => !nodes.some((m) => m.name === n.name))
        .map((n) => this.nodeId(n.name));
      for (const node of nodes) {
        state.members.push(await this.startDataNode(state, node, reserved));
        this.state.write(state);
      }
      await this.waitStarted(state, state.members);
      state.mysqld = await this.startSqlNode(host, state);
      this.state.write(state);
      await this.sql(
        state,
        [
          'CREATE DATABASE IF NOT EXISTS ycsb',
          usertableDdl(fieldCount),
          `CREATE USER IF NOT EXISTS '${YCSB_USER}'@'%'`,
          `GRANT ALL ON ycsb.* TO '${YCSB_USER}'@'%'`,
        ].join('; '),
      );
      state.version = (await this.sql(state, 'SELECT VERSION()')) || 'unknown';
    });
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('mysql addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const newcomer = this.newcomer(state, node);
    // An interrupted attempt's ndbd, still starting or started, is awaited rather than started again.
    const [running] = resumed ? await this.shell(node).findOurs(this.serverMarker(newcomer)) : [];
    const member = running !== undefined ? { ...newcomer, pid: running } : await this.startDataNode(state, node, []);
    this.noteAccepted(state, resize, await this.admit(state, member, () => this.waitStarted(state, [member])));
    const show = await this.ndbShow(state);
    const seen = (m: DataNodeMember) => show.find((s) => s.id === m.nodeId && s.kind === 'ndbd' && s.connected);
    // In a group already: an attempt that died after CREATE NODEGROUP. In none: with the others in none.
    const group = seen(member)?.nodegroup;
    const newGroup = state.members.filter((m) => seen(m) && seen(m)?.nodegroup === group);
    if (group === undefined) {
      if (newGroup.length < state.replicas) return this.completed(state, resize);
      const reply = await this.mgmCommand(state, `CREATE NODEGROUP ${newGroup.map((m) => m.nodeId).join(',')}`);
      if (!/Nodegroup \d+ created/.test(reply)) throw new Error(`mysql: CREATE NODEGROUP did not confirm: ${reply}`);
    }
    await this.reorganizeOnto(state, newGroup);
    return this.completed(state, resize);
  }

  /** Existing rows move onto a new node group only when each table is reorganized. */
  private async reorganizeOnto(state: MysqlState, group: DataNodeMember[]): Promise<void> {
    const alter = 'ALTER TABLE ycsb.usertable ALGORITHM=INPLACE, REORGANIZE PARTITION';
    const running = `SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '${alter}%'`;
    await waitFor(async () => ((await this.sql(state, running)) === '0' ? true : undefined), {
      // A statement goes on in mysqld after its client died.
      what: 'the reorganization an interrupted add started to finish',
      timeoutMs: REORGANIZE_TIMEOUT_MS,
      intervalMs: 1000,
    });
    const moved = (await this.tablesOn(state, group)) !== '';
    await this.sql(state, moved ? 'OPTIMIZE TABLE ycsb.usertable' : `${alter}; OPTIMIZE TABLE ycsb.usertable`, REORGANIZE_TIMEOUT_MS);
  }

  /** User tables with fragments on these data nodes, one per line. */
  private tablesOn(state: MysqlState, nodes: DataNodeMember[]): Promise<string> {
    const ids = nodes.map((m) => m.nodeId).join(',');
    return this.sql(state, `SELECT DISTINCT fq_name FROM ndbinfo.memory_per_fragment WHERE type = 'User table' AND node_id IN (${ids})`);
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('mysql removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    if (node.name === state.host) {
      throw new InputError(
        'node',
        `${node.name} hosts the management and SQL nodes of the MySQL Cluster, which are never removed; remove another node`,
      );
    }
    const show = await this.ndbShow(state);
    const group = show.find((s) => s.id === leaving.nodeId)?.nodegroup;
    const inGroup = (m: DataNodeMember) => show.some((s) => s.id === m.nodeId && s.nodegroup === group);
    const recorded = resumed?.leaving;
    const groupMembers = state.members.filter((m) => (recorded ? recorded.includes(m.node) : group === undefined ? m === leaving : inGroup(m)));
    if (groupMembers.some((m) => m.node === state.host)) {
      throw new InputError(
        'node',
        `${node.name} shares node group ${group} with ${state.host}, which hosts the management and SQL nodes; remove another group`,
      );
    }
    if (group !== undefined) {
      const tables = await this.tablesOn(state, groupMembers);
      if (tables) {
        const names = groupMembers.map((m) => m.node).join(', ');
        throw new InputError(
          'node',
          `${node.name} is in node group ${group} (${names}), which still holds fragments of ${tables.split('\n').join(', ')}; ` +
            'NDB cannot move data off a node group, so it only drops empty ones: the cluster is unchanged',
        );
      }
    }
    const resize = resumed ?? this.begin(state, 'remove', node);
    resize.leaving = groupMembers.map((m) => m.node);
    this.state.write(state);
    // No group any more: an attempt that died after DROP NODEGROUP; its nodes are left to stop.
    if (group !== undefined) {
      const reply = await this.mgmCommand(state, `DROP NODEGROUP ${group}`);
      if (!/Drop Node Group \d+ done/.test(reply)) throw new Error(`mysql: DROP NODEGROUP ${group} did not confirm: ${reply}`);
    }
    this.noteAccepted(state, resize);
    await this.retire(state, groupMembers);
    await waitFor(
      async () => ((await this.ndbShow(state)).some((s) => groupMembers.some((m) => m.nodeId === s.id) && s.connected) ? undefined : true),
      { what: `data nodes ${groupMembers.map((m) => m.nodeId).join(', ')} to leave the cluster`, timeoutMs: 120_000, intervalMs: 500 },
    );
    return this.timingOf(resize);
  }

  protected async stopMember(member: DataNodeMember, state: MysqlState): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, this.serverMarker(member), 30_000);
    // The host's directory also holds the management and SQL nodes: stop() removes it last.
    if (member.node !== state.host) await shell.removeDir(member.dir);
  }

  async stop(): Promise<void> {
    const state = this.state.read();
    if (!state) return;
    const host = this.shell(state.host);
    if (state.mysqld) await host.stopProcess(state.mysqld.pid, state.mysqld.marker, 30_000);
    for (const member of state.members) await this.stopMember(member, state);
    await this.stopNewcomer(state);
    await host.stopProcess(state.mgmd.pid, state.mgmd.marker, 30_000);
    await host.removeDir(this.dirOf(state.host));
    this.state.remove();
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    const show = await this.ndbShow(state).catch(() => undefined);
    if (!show) return { members: [], healthy: false };
    const connected = (id: number) => show.some((s) => s.id === id && s.connected);
    const members = state.members.filter((m) => connected(m.nodeId)).map((m) => m.node);
    return { members, healthy: members.length === state.members.length && connected(MGM_NODE_ID) && connected(SQL_NODE_ID) };
  }

  async flush(options: { fieldCount?: number } = {}): Promise<void> {
    const state = this.state.require('mysql flush');
    const fieldCount = options.fieldCount ?? state.fieldCount;
    if (fieldCount === state.fieldCount) {
      await this.sql(state, 'TRUNCATE TABLE ycsb.usertable');
      return;
    }
    await this.sql(state, `DROP TABLE IF EXISTS ycsb.usertable; ${usertableDdl(fieldCount)}`);
    this.state.write({ ...state, fieldCount });
  }

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
    const state = this.state.require('mysql ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.JdbcClient',
      properties: {
        'jdbc.url': `jdbc:mysql://${this.shell(state.host).node.overlayAddress}:${SQL_PORT}/ycsb`,
        'jdbc.user': YCSB_USER,
        'jdbc.timeoutMs': String(options.timeoutMs),
      },
    };
  }
}
