/**
 * CouchDB adapter at the command level. CouchDB was never executed here (no package reachable from
 * this machine): a recorder plays the VMs and a small model of the cluster answers the HTTP API
 * (through curl) the way CouchDB's documentation shows. The sequences are checked against the
 * CouchDB documentation, each test naming its page.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CouchDbAdapter, couchName } from '../../services/databases/couchdb/couchdb';
import { SUDO_DETACH } from '../../services/databases/node-shell';
import type { ExecResult } from '../../core/exec';
import type { Inventory } from '../../core/inventory';
import { CommandRecorder, scratchStateDir, vmNode, VmProcesses } from '../support/recording-exec';

const INSTALL_UNIX = 'https://docs.couchdb.org/en/stable/install/unix.html';
const CLUSTER_SETUP = 'https://docs.couchdb.org/en/stable/setup/cluster.html';
const NODE_MANAGEMENT = 'https://docs.couchdb.org/en/stable/cluster/nodes.html';
const SHARDING = 'https://docs.couchdb.org/en/stable/cluster/sharding.html';

const NODES = [1, 2, 3, 4, 5].map((i) => vmNode(`c${i}`, `198.18.203.${i}`));
const inventory: Inventory = { schemaVersion: 1, name: 'couch-vms', source: 'file', nodes: NODES, links: [], clientNode: 'c1', shaping: 'tc' };
const name = (i: number) => couchName(`198.18.203.${i}`);
const BEAM = ['/opt/couchdb/erts-13.2/bin/beam.smp', '--', '-root', '/opt/couchdb', '-progname', 'couchdb', '--', '-home', '/root'];

// ------------------------------------------------------------------ the model of the cluster

/** The nodes database: configured members. */
const nodesDb = new Map<string, string>();
let shardMap: { _rev: string; by_node: Record<string, string[]>; by_range: Record<string, string[]>; changelog: string[][] } | undefined;
let installed = true;
let revs = 0;

const nodeOf = (host: string) => NODES.find((n) => n.overlayAddress === host)!.name;
const alive = (node: string) => [...vm.table.values()].some((p) => p.node === node && p.alive && p.argv.includes('/opt/couchdb'));

/** A curl config from standard input, as the adapter writes it. */
function config(input: string): { data?: string; user?: string } {
  const out: Record<string, string> = {};
  for (const line of input.split('\n')) {
    const m = /^([a-z-]+) = "(.*)"$/.exec(line);
    if (m) out[m[1]] = m[2].replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return out;
}

function http(method: string, url: URL, body: Record<string, unknown> | undefined): [number, unknown] {
  const path = url.pathname;
  if (path === '/_up') return alive(nodeOf(url.hostname)) ? [200, { status: 'ok' }] : [0, ''];
  if (path === '/') return [200, { couchdb: 'Welcome', version: '3.3.3' }];
  if (path === '/_membership') {
    const configured = [...nodesDb.keys()];
    return [200, { all_nodes: configured.filter((n) => alive(nodeOf(n.split('@')[1]))), cluster_nodes: configured }];
  }
  if (path === '/_cluster_setup') {
    if (body?.action === 'add_node') nodesDb.set(couchName(String(body.host)), `1-${++revs}`);
    if (body?.action === 'finish_cluster') nodesDb.set(couchName(url.hostname), `1-${++revs}`);
    return [201, { ok: true }];
  }
  const nodeDoc = /^\/_node\/_local\/_nodes\/(.+)$/.exec(path);
  if (nodeDoc) {
    const id = decodeURIComponent(nodeDoc[1]);
    if (method === 'PUT') {
      nodesDb.set(id, `1-${++revs}`);
      return [201, { ok: true, id }];
    }
    if (!nodesDb.has(id)) return [404, { error: 'not_found', reason: 'missing' }];
    if (method === 'GET') return [200, { _id: id, _rev: nodesDb.get(id) }];
    if (method === 'DELETE' && url.searchParams.get('rev') === nodesDb.get(id)) {
      nodesDb.delete(id);
      return [200, { ok: true }];
    }
    return [409, { error: 'conflict' }];
  }
  if (path === '/_node/_local/_dbs/ycsb') {
    if (method === 'GET') return shardMap ? [200, shardMap] : [404, { error: 'not_found' }];
    if ((body as { _rev?: string })._rev !== shardMap?._rev) return [409, { error: 'conflict' }];
    shardMap = { ...(body as typeof shardMap & object), _rev: `2-${++revs}` };
    return [201, { ok: true }];
  }
  if (path === '/ycsb') {
    if (method === 'DELETE') return [200, { ok: true }];
    const q = Number(url.searchParams.get('q'));
    const n = Number(url.searchParams.get('n'));
    const nodes = [...nodesDb.keys()];
    const ranges = Array.from({ length: q }, (_, i) => `${i}0000000-${i}fffffff`);
    const byRange = Object.fromEntries(ranges.map((r, i) => [r, Array.from({ length: n }, (_, k) => nodes[(i + k) % nodes.length])]));
    const byNode: Record<string, string[]> = {};
    for (const [r, ns] of Object.entries(byRange)) for (const x of ns) byNode[x] = [...(byNode[x] ?? []), r];
    shardMap = {
      _rev: `1-${++revs}`,
      by_node: byNode,
      by_range: byRange,
      changelog: Object.entries(byRange).flatMap(([r, ns]) => ns.map((x) => ['add', r, x])),
    };
    return [201, { ok: true }];
  }
  throw new Error(`unexpected ${method} ${url}`);
}

const recorder: CommandRecorder = new CommandRecorder((node, argv, input): string | ExecResult => {
  const a = argv[0] === 'sudo' ? argv.slice(2) : argv;
  const process = vm.answer(node, a);
  if (process !== undefined) {
    if (a[2] === SUDO_DETACH && a[5] === '/opt/couchdb/bin/couchdb') vm.table.get(Number(process))!.argv = BEAM;
    return process;
  }
  if (a[0] === 'dpkg-query') return installed ? 'install ok installed\n' : { code: 1, stdout: '', stderr: 'no packages found' };
  if (a[0] === 'sh' && a[2]?.includes('os-release')) return 'ubuntu\njammy\n';
  if (a[0] === 'curl') {
    const c = config(input ?? '');
    const [status, body] = http(a[4], new URL(a[5]), c.data ? (JSON.parse(c.data) as Record<string, unknown>) : undefined);
    if (status === 0) return { code: 7, stdout: '\n000', stderr: 'Failed to connect' };
    return `${JSON.stringify(body)}\n${status}`;
  }
  return '';
});
const vm = new VmProcesses(recorder);
const adapter = new CouchDbAdapter(inventory, recorder.execFor);
const stateDir = scratchStateDir();
const secrets = () => JSON.parse(readFileSync(join(stateDir(), inventory.name, 'couchdb', 'secrets.json'), 'utf8')) as Record<string, string>;
/** The HTTP requests sent, as `node: METHOD url [action]`, besides readiness probes. */
const requests = () =>
  recorder.calls
    .filter((c) => c.argv.includes('curl') && !c.argv.some((x) => x.endsWith('/_up')))
    .map((c) => {
      const a = c.argv.slice(2);
      const action = (JSON.parse(config(c.input ?? '').data ?? '{}') as { action?: string }).action;
      return `${c.node}: ${a[4]} ${a[5].replace(/^http:\/\/198\.18\.203\.(\d)/, 'c$1')}${action ? ` ${action}` : ''}`;
    });
const noSecretInArgv = () => {
  const values = Object.values(secrets());
  expect(recorder.calls.filter((c) => values.some((v) => c.argv.join(' ').includes(v)))).toEqual([]);
};

beforeEach(() => recorder.clear());

test(`install: Apache's apt repository, debconf answered for a clustered node, secrets on standard input only (${INSTALL_UNIX})`, async () => {
  installed = false;
  await adapter.install(NODES[0]);
  installed = true;
  const { cookie, adminPassword } = secrets();
  expect(statSync(join(stateDir(), inventory.name, 'couchdb', 'secrets.json')).mode & 0o777).toBe(0o600);
  // The documented steps: the key from couchdb.apache.org dearmored into a keyring, the
  // apache.jfrog.io/artifactory/couchdb-deb source for the release's codename, apt install
  // couchdb, with the package's debconf prompts pre-seeded (mode, node name, cookie, bind address,
  // admin password twice).
  expect(recorder.lines((c) => !c.argv.includes('apt-get'))).toEqual([
    'c1: dpkg-query -W -f ${Status}\n couchdb',
    'c1: cat /etc/fragbench/vendor-repositories',
    'c1: sh -c . /etc/os-release && echo "$ID" && echo "$VERSION_CODENAME"',
    'c1: sh -c curl -fsSL "$1" | gpg --batch --yes --dearmor -o "$2" sh https://couchdb.apache.org/repo/keys.asc /usr/share/keyrings/couchdb-archive-keyring.gpg',
    'c1: sh -c cat > "$1" sh /etc/apt/sources.list.d/couchdb-archive-keyring.list',
    'c1: debconf-set-selections',
    'c1: systemctl disable --now couchdb',
  ]);
  const source = recorder.calls.find((c) => c.argv.includes('/etc/apt/sources.list.d/couchdb-archive-keyring.list'))?.input;
  expect(source).toBe(
    'deb [signed-by=/usr/share/keyrings/couchdb-archive-keyring.gpg] https://apache.jfrog.io/artifactory/couchdb-deb/ jammy main\n',
  );
  const preseed = recorder.calls.find((c) => c.argv.includes('debconf-set-selections'))?.input ?? '';
  for (const line of [
    'couchdb couchdb/mode select clustered',
    `couchdb couchdb/nodename string ${name(1)}`,
    `couchdb couchdb/cookie string ${cookie}`,
    'couchdb couchdb/bindaddress string 198.18.203.1',
    `couchdb couchdb/adminpass password ${adminPassword}`,
    `couchdb couchdb/adminpass_again password ${adminPassword}`,
    'couchdb couchdb/mode seen true',
  ]) {
    expect(preseed.split('\n')).toContain(line);
  }
  noSecretInArgv();
});

test(`form: enable_cluster on every node, add_node for each from the first, finish_cluster, then the membership (${CLUSTER_SETUP})`, async () => {
  const info = await adapter.formCluster(NODES.slice(0, 3), {});
  expect(info).toMatchObject({ database: 'couchdb', version: '3.3.3', members: ['c1', 'c2', 'c3'], nonDefaultSettings: {} });
  expect(requests()).toEqual([
    'c1: POST c1:5984/_cluster_setup enable_cluster',
    'c2: POST c2:5984/_cluster_setup enable_cluster',
    'c3: POST c3:5984/_cluster_setup enable_cluster',
    'c1: POST c1:5984/_cluster_setup add_node',
    'c1: POST c1:5984/_cluster_setup add_node',
    'c1: POST c1:5984/_cluster_setup finish_cluster',
    'c1: GET c1:5984/_membership',
    'c1: PUT c1:5984/ycsb?q=2&n=3',
    'c1: GET c1:5984/',
  ]);
  const enable = recorder.calls.find((c) => c.node === 'c2' && (c.input ?? '').includes('enable_cluster'))!;
  expect(JSON.parse(config(enable.input!).data!)).toEqual({
    action: 'enable_cluster',
    bind_address: '198.18.203.2',
    port: 5984,
    username: 'admin',
    password: secrets().adminPassword,
    node_count: 3,
  });
  const ini = recorder.calls.find((c) => c.node === 'c2' && c.argv.includes('/opt/couchdb/etc/local.d/fragbench.ini'))!;
  expect(ini.argv.slice(2, 5)).toEqual(['sh', '-c', 'umask 077 && cat > "$1"']);
  expect(ini.input).toContain(`uuid = ${secrets().uuid}`);
  expect(ini.input).toContain('bind_address = 198.18.203.2');
  noSecretInArgv();
  expect(await adapter.status()).toEqual({ members: ['c1', 'c2', 'c3'], healthy: true });
});

test(`add: PUT the node's document in the nodes database, done when /_membership has it connected (${NODE_MANAGEMENT})`, async () => {
  await adapter.addNode(NODES[3]);
  expect(requests()).toEqual(['c1: GET c1:5984/_membership', `c1: PUT c1:5984/_node/_local/_nodes/${name(4)}`, 'c1: GET c1:5984/_membership']);
  expect(await adapter.status()).toEqual({ members: ['c1', 'c2', 'c3', 'c4'], healthy: true });
});

test(`remove: its shard copies dropped from the shard map, then GET its node document's _rev and DELETE it (${NODE_MANAGEMENT}, ${SHARDING})`, async () => {
  const rev = nodesDb.get(name(3));
  await adapter.removeNode(NODES[2]);
  expect(requests()).toEqual([
    'c1: GET c1:5984/_node/_local/_dbs/ycsb',
    'c1: PUT c1:5984/_node/_local/_dbs/ycsb',
    `c1: GET c1:5984/_node/_local/_nodes/${name(3)}`,
    `c1: DELETE c1:5984/_node/_local/_nodes/${name(3)}?rev=${rev}`,
    'c1: GET c1:5984/_membership',
  ]);
  expect(shardMap!.by_node[name(3)]).toBeUndefined();
  expect(Object.values(shardMap!.by_range).every((nodes) => nodes.length === 2 && !nodes.includes(name(3)))).toBe(true);
  expect(shardMap!.changelog.filter(([op]) => op === 'remove')).toEqual([
    ['remove', '00000000-0fffffff', name(3)],
    ['remove', '10000000-1fffffff', name(3)],
  ]);
  expect(await adapter.status()).toEqual({ members: ['c1', 'c2', 'c4'], healthy: true });
});

describe('a resize whose caller dies after a step is finished by the next call, each step once', () => {
  const sent = (method: string, pathPart: string) => (c: { argv: string[] }) => c.argv.includes(method) && c.argv.some((x) => x.includes(pathPart));

  test('add: killed once its node document was PUT; the next call adopts its CouchDB and PUTs nothing', async () => {
    await recorder.killedAt(sent('PUT', '/_nodes/'), () => adapter.addNode(NODES[4]));
    recorder.clear();
    await adapter.addNode(NODES[4]);
    expect(requests()).toEqual(['c1: GET c1:5984/_membership', 'c1: GET c1:5984/_membership']);
    expect(recorder.lines((c) => c.node === 'c5' && c.argv.includes('/opt/couchdb/bin/couchdb'))).toEqual([]);
    expect(await adapter.status()).toEqual({ members: ['c1', 'c2', 'c4', 'c5'], healthy: true });
  });

  test('remove: killed after the shard map was changed, then after the DELETE; each is sent once', async () => {
    // c2 holds a copy of every range (c1 the other): its copies go from the shard map first.
    await recorder.killedAt(sent('PUT', '/_dbs/'), () => adapter.removeNode(NODES[1]));
    await recorder.killedAt(sent('DELETE', '/_nodes/'), () => adapter.removeNode(NODES[1]));
    const killed = requests().filter((r) => /PUT|DELETE/.test(r));
    recorder.clear();
    await adapter.removeNode(NODES[1]);
    expect(killed).toEqual([
      'c1: PUT c1:5984/_node/_local/_dbs/ycsb',
      expect.stringMatching(new RegExp(`^c1: DELETE c1:5984/_node/_local/_nodes/${name(2)}\\?rev=`)),
    ]);
    expect(requests()).toEqual([
      'c1: GET c1:5984/_node/_local/_dbs/ycsb',
      `c1: GET c1:5984/_node/_local/_nodes/${name(2)}`,
      'c1: GET c1:5984/_membership',
    ]);
    expect(Object.values(shardMap!.by_range)).toEqual([[name(1)], [name(1)]]);
    expect(await adapter.status()).toEqual({ members: ['c1', 'c4', 'c5'], healthy: true });
  });
});

test("a node holding a range's only copy is refused before anything changes", async () => {
  await adapter.stop();
  // A new cluster on wiped data directories: the model starts empty too.
  nodesDb.clear();
  shardMap = undefined;
  await adapter.formCluster(NODES.slice(0, 2), { replication: 1 });
  recorder.clear();
  await expect(adapter.removeNode(NODES[1])).rejects.toThrow(/c2 holds the only copy of 1 shard range\(s\) of ycsb .*the cluster is unchanged/);
  expect(requests()).toEqual(['c1: GET c1:5984/_node/_local/_dbs/ycsb']);
});

test('flush re-creates the database; the binding connects without credentials; stop stops all', async () => {
  await adapter.flush();
  expect(requests()).toEqual(['c1: DELETE c1:5984/ycsb', 'c1: PUT c1:5984/ycsb?q=2&n=1']);
  const binding = adapter.ycsbBinding({ timeoutMs: 2000, retries: 1 });
  expect(binding).toEqual({
    dbClass: 'fragbench.ycsb.CouchClient',
    properties: {
      'couchdb.urls': 'http://198.18.203.1:5984,http://198.18.203.2:5984',
      'couchdb.database': 'ycsb',
      'couchdb.timeoutMs': '2000',
      'couchdb.retries': '1',
    },
  });
  expect(JSON.stringify(binding)).not.toContain(secrets().adminPassword);
  await adapter.stop();
  expect([...vm.table.values()].filter((p) => p.alive)).toEqual([]);
});
