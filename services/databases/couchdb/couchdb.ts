/**
 * Apache CouchDB 3 in cluster mode: one node per VM, couchdb@<overlay address>, from Apache's apt
 * repository with its debconf questions answered (clustered mode, node name, Erlang cookie, bind
 * address, admin password). The cluster is formed with the Cluster Setup API (`enable_cluster` on
 * every node, `add_node` for each from the first, `finish_cluster`); later resizes use the node
 * database (`PUT`/`DELETE /_node/_local/_nodes/<node>`), as the CouchDB "Cluster Management"
 * pages describe, and `GET /_membership` says who is in.
 *
 * CouchDB never moves shards by itself. An added node serves requests (any node coordinates) but
 * holds no copy of the `ycsb` database until one is placed on it: its add completes when it is
 * connected. A node is removed only once no shard range would be left without a copy: its copies
 * are dropped from the database's shard map (`/_node/_local/_dbs/ycsb`), then its node document
 * is deleted; a node holding a range's only copy is refused.
 *
 * A resize asked again after its caller died resumes from `/_membership`, the shard map and the
 * node document: each is changed only if it does not show the change yet.
 *
 * Only on VMs, and never executed here (no CouchDB package reachable from this machine): tested at
 * the command level against the documented sequences (test/unit/databases-couchdb.test.ts).
 */
import { join } from 'node:path';
import type { ClusterInfo, ClusterSettings, DatabaseAdapter, ResizeTiming, YcsbBinding } from '../../../core/database';
import { InputError } from '../../../core/errors';
import type { Inventory, InventoryNode } from '../../../core/inventory';
import { waitFor } from '../../../platform/wait';
import { ClusterAdapter, type Member, type Resize } from '../cluster-adapter';
import { clusterSecrets, generatedSecret } from '../credentials';
import { defaultExecProvider, startServer, type ExecProvider, type NodeShell, type ProcessMarker } from '../node-shell';
import { installFromVendor, type VendorRepository } from '../vendor-apt';
import { ADMIN_USER, COUCH_PORT, couchRequest } from './couchdb-http';

interface CouchState {
  version: string;
  shards: number;
  replicas: number;
  members: Member[];
  resizing?: Resize;
}

interface CouchSecrets extends Record<string, string> {
  cookie: string;
  adminPassword: string;
  /** [couchdb] uuid and [chttpd_auth] secret: the same on every node of a cluster. */
  uuid: string;
  authSecret: string;
}

interface ShardMap {
  _rev: string;
  by_node: Record<string, string[]>;
  by_range: Record<string, string[]>;
  changelog: [string, string, string][];
}

export const COUCH_ROOT = '/opt/couchdb';
export const YCSB_DATABASE = 'ycsb';
const START_TIMEOUT_MS = 120_000;
const SYNC_TIMEOUT_MS = 10 * 60_000;

export const couchName = (address: string) => `couchdb@${address}`;

/** Apache's repository, with the answers its package asks for in clustered mode. */
export function couchRepository(address: string, secrets: CouchSecrets): VendorRepository {
  const answers: [string, string, string][] = [
    ['mode', 'select', 'clustered'],
    ['nodename', 'string', couchName(address)],
    ['cookie', 'string', secrets.cookie],
    ['bindaddress', 'string', address],
    ['adminpass', 'password', secrets.adminPassword],
    ['adminpass_again', 'password', secrets.adminPassword],
  ];
  return {
    name: 'couchdb-archive-keyring',
    keyUrl: 'https://couchdb.apache.org/repo/keys.asc',
    sourceLine: (codename) => `deb [signed-by={keyring}] https://apache.jfrog.io/artifactory/couchdb-deb/ ${codename} main`,
    packages: ['couchdb'],
    disableServices: ['couchdb'],
    preseed: answers.flatMap(([q, type, value]) => [`couchdb couchdb/${q} ${type} ${value}`, `couchdb couchdb/${q} seen true`]).join('\n') + '\n',
  };
}

/** Our settings over the package's (local.d is read after local.ini's defaults); holds secrets. */
export function couchIni(c: { address: string; dir: string; secrets: CouchSecrets; shards: number; replicas: number }): string {
  return `; Written by fragbench; anything not set here is CouchDB's default (or the package's local.ini).
[couchdb]
database_dir = ${c.dir}/data
view_index_dir = ${c.dir}/data
uuid = ${c.secrets.uuid}
; YCSB's client connects without credentials: new databases are open to it.
default_security = everyone

[chttpd]
bind_address = ${c.address}
port = ${COUCH_PORT}

[chttpd_auth]
secret = ${c.secrets.authSecret}

[cluster]
q = ${c.shards}
n = ${c.replicas}
`;
}

export class CouchDbAdapter extends ClusterAdapter<CouchState> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('couchdb', inventory, execOf, 'the CouchDB cluster');
  }

  private secrets(): CouchSecrets {
    return clusterSecrets<CouchSecrets>(this.inventory.name, 'couchdb', () => ({
      cookie: generatedSecret(),
      adminPassword: generatedSecret(),
      uuid: generatedSecret(16),
      authSecret: generatedSecret(),
    }));
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport !== 'ssh') {
      throw new InputError('database.name', `couchdb runs only on VM fleets (it was never executed here); ${shell.label} is a local node`);
    }
    await installFromVendor(shell, couchRepository(node.overlayAddress, this.secrets()));
  }

  private url(member: { address: string }, path: string): string {
    return `http://${member.address}:${COUCH_PORT}${path}`;
  }

  /** A request with the admin's credentials, sent from `via`'s own node. */
  private request<T = Record<string, unknown>>(via: Member, method: string, path: string, more: { body?: unknown; ok?: number[] } = {}) {
    return couchRequest<T>(this.shell(via.node), { method, url: this.url(via, path), password: this.secrets().adminPassword, ...more });
  }

  private async membership(via: Member): Promise<{ all_nodes: string[]; cluster_nodes: string[] }> {
    return (await this.request<{ all_nodes: string[]; cluster_nodes: string[] }>(via, 'GET', '/_membership')).body;
  }

  protected newcomer(_state: CouchState, node: InventoryNode): Member {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
  }

  /** erlexec hands the release root to the VM as `-root /opt/couchdb`: one CouchDB per VM. */
  protected serverMarker(): ProcessMarker {
    return COUCH_ROOT;
  }

  private serverSpec(member: Member) {
    return { database: 'couchdb', logFile: join(member.dir, 'couchdb.log'), marker: this.serverMarker() };
  }

  private answersUp(member: Member): () => Promise<boolean> {
    const shell = this.shell(member.node);
    return async () => (await couchRequest(shell, { method: 'GET', url: this.url(member, '/_up'), allowFailure: true })).status === 200;
  }

  /** The package's start script, in the foreground: its PID is ours to supervise. */
  protected relaunch(member: Member): Promise<number> {
    const argv = [`${COUCH_ROOT}/bin/couchdb`];
    return startServer(this.shell(member.node), { ...this.serverSpec(member), argv }, this.answersUp(member), START_TIMEOUT_MS);
  }

  private async startMember(state: CouchState, node: InventoryNode): Promise<Member> {
    const shell = this.shell(node);
    const member = this.newcomer(state, node);
    await this.stopUnrecorded(state, member);
    await shell.removeDir(member.dir);
    await shell.makeDir(join(member.dir, 'data'));
    const ini = couchIni({ address: node.overlayAddress, dir: member.dir, secrets: this.secrets(), shards: state.shards, replicas: state.replicas });
    await shell.writePrivateFile(`${COUCH_ROOT}/etc/local.d/fragbench.ini`, ini);
    member.pid = await this.relaunch(member);
    return member;
  }

  protected async stopMember(member: Member): Promise<void> {
    const shell: NodeShell = this.shell(member.node);
    await shell.stopProcess(member.pid, this.serverMarker(), 30_000);
    await shell.removeDir(member.dir);
  }

  /** Until every one of `members` is configured and connected, and no one else is. */
  private async waitMembership(via: Member, members: Member[]): Promise<void> {
    const want = members
      .map((m) => couchName(m.address))
      .sort()
      .join(',');
    await waitFor(
      async () => {
        const m = await this.membership(via);
        return [...m.all_nodes].sort().join(',') === want && [...m.cluster_nodes].sort().join(',') === want ? true : undefined;
      },
      { what: `CouchDB's membership to be ${members.map((m) => m.node).join(', ')}`, timeoutMs: SYNC_TIMEOUT_MS, intervalMs: 1000 },
    );
  }

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    if (nodes.length === 0) throw new InputError('nodes', 'at least one node is needed');
    const replicas = settings.replication ?? Math.min(3, nodes.length);
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > nodes.length) {
      throw new InputError('settings.replication', `CouchDB keeps 1 to ${nodes.length} copies on ${nodes.length} nodes, got ${replicas}`);
    }
    const shards = Number(settings.options?.shards ?? 2);
    const state: CouchState = { version: '', shards, replicas, members: [] };
    const { adminPassword } = this.secrets();
    return this.formWith(state, shards === 2 ? {} : { q: String(shards) }, async () => {
      for (const node of nodes) {
        state.members.push(await this.startMember(state, node));
        this.state.write(state);
      }
      const [first, ...others] = state.members;
      const enable = (m: Member) => ({
        action: 'enable_cluster',
        bind_address: m.address,
        port: COUCH_PORT,
        username: ADMIN_USER,
        password: adminPassword,
        node_count: nodes.length,
      });
      for (const m of state.members) await this.request(m, 'POST', '/_cluster_setup', { body: enable(m) });
      for (const m of others) {
        await this.request(first, 'POST', '/_cluster_setup', {
          body: { action: 'add_node', host: m.address, port: COUCH_PORT, username: ADMIN_USER, password: adminPassword },
        });
      }
      await this.request(first, 'POST', '/_cluster_setup', { body: { action: 'finish_cluster' } });
      await this.waitMembership(first, state.members);
      await this.request(first, 'PUT', `/${YCSB_DATABASE}?q=${shards}&n=${replicas}`, { ok: [201, 202, 412] });
      state.version = String((await this.request<{ version?: string }>(first, 'GET', '/')).body.version ?? 'unknown');
    });
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('couchdb addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const via = state.members.find((m) => m.node !== node.name)!;
    const configured = (await this.membership(via)).cluster_nodes.includes(couchName(node.overlayAddress));
    const newcomer = this.newcomer(state, node);
    const member = await this.servingNewcomer(state, resumed !== undefined, {
      newcomer,
      logFile: this.serverSpec(newcomer).logFile,
      ready: this.answersUp(newcomer),
      timeoutMs: START_TIMEOUT_MS,
      fresh: () => this.startMember(state, node),
      taken: configured,
    });
    if (configured) {
      this.recordMember(state, member);
    } else {
      await this.admit(state, member, () => this.request(via, 'PUT', `/_node/_local/_nodes/${couchName(node.overlayAddress)}`, { body: {} }));
    }
    this.noteAccepted(state, resize);
    await this.waitMembership(via, state.members);
    return this.completed(state, resize);
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('couchdb removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    const remaining = state.members.filter((m) => m !== leaving);
    if (remaining.length === 0) throw new InputError('node', `${node.name} is the last member of the CouchDB cluster; stop the cluster instead`);
    const via = remaining[0];
    const name = couchName(leaving.address);
    const map = (await this.request<ShardMap>(via, 'GET', `/_node/_local/_dbs/${YCSB_DATABASE}`)).body;
    const ranges = map.by_node[name] ?? [];
    const lastCopies = ranges.filter((range) => map.by_range[range].every((n) => n === name));
    if (lastCopies.length > 0) {
      throw new InputError(
        'node',
        `${node.name} holds the only copy of ${lastCopies.length} shard range(s) of ${YCSB_DATABASE} (${lastCopies.join(', ')}); ` +
          'CouchDB does not move shards by itself, so it is not removed: the cluster is unchanged',
      );
    }
    const resize = resumed ?? this.begin(state, 'remove', node);
    if (ranges.length > 0) {
      const { [name]: _dropped, ...byNode } = map.by_node;
      const byRange = Object.fromEntries(Object.entries(map.by_range).map(([range, nodes]) => [range, nodes.filter((n) => n !== name)]));
      const changelog = [...map.changelog, ...ranges.map((range): [string, string, string] => ['remove', range, name])];
      await this.request(via, 'PUT', `/_node/_local/_dbs/${YCSB_DATABASE}`, { body: { ...map, by_node: byNode, by_range: byRange, changelog } });
    }
    const doc = await this.request<{ _rev?: string }>(via, 'GET', `/_node/_local/_nodes/${name}`, { ok: [200, 404] });
    if (doc.status === 200) await this.request(via, 'DELETE', `/_node/_local/_nodes/${name}?rev=${doc.body._rev}`);
    this.noteAccepted(state, resize);
    await this.retire(state, [leaving]);
    await this.waitMembership(via, remaining);
    return this.timingOf(resize);
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    for (const via of state.members) {
      const reply = await couchRequest<{ all_nodes?: string[] }>(this.shell(via.node), {
        method: 'GET',
        url: this.url(via, '/_membership'),
        password: this.secrets().adminPassword,
        allowFailure: true,
      });
      if (reply.status !== 200) continue;
      const connected = reply.body.all_nodes ?? [];
      const members = state.members.filter((m) => connected.includes(couchName(m.address))).map((m) => m.node);
      return { members, healthy: members.length === state.members.length };
    }
    return { members: [], healthy: false };
  }

  async flush(): Promise<void> {
    const state = this.state.require('couchdb flush');
    const first = state.members[0];
    await this.request(first, 'DELETE', `/${YCSB_DATABASE}`, { ok: [200, 202, 404] });
    await this.request(first, 'PUT', `/${YCSB_DATABASE}?q=${state.shards}&n=${state.replicas}`, { ok: [201, 202] });
  }

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
    const state = this.state.require('couchdb ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.CouchClient',
      properties: {
        'couchdb.urls': state.members.map((m) => this.url(m, '')).join(','),
        'couchdb.database': YCSB_DATABASE,
        'couchdb.timeoutMs': String(options.timeoutMs),
        'couchdb.retries': String(options.retries),
      },
    };
  }
}
