/**
 * MySQL Cluster (NDB) adapter at the command level: NDB cannot run here, so a recorder plays the
 * VMs and a small model of the cluster answers ndb_mgm, ndb_waiter and mysql the way their
 * documented output reads. Data nodes n1..n6 have NDB node ids 2..7; replication 2.
 */
import { MysqlClusterAdapter, usertableDdl } from '../../services/databases/mysql/mysql-cluster';
import { SUDO_DETACH } from '../../services/databases/node-shell';
import { nodeDir } from '../../services/databases/state';
import type { ExecResult } from '../../core/exec';
import type { Inventory } from '../../core/inventory';
import { CommandRecorder, scratchStateDir, vmNode, VmProcesses } from '../support/recording-exec';

const NODES = [1, 2, 3, 4, 5, 6].map((i) => vmNode(`n${i}`, `198.18.201.${i}`));
const inventory: Inventory = { schemaVersion: 1, name: 'ndb-vms', source: 'file', nodes: NODES, links: [], clientNode: 'n1', shaping: 'tc' };
const MGM = '198.18.201.1:1186';
const dir = (node: string) => nodeDir(inventory.name, 'mysql', node);

// ------------------------------------------------------------------ the model of the cluster

/** NDB node id -> node group (undefined = started in no group). */
const dataNodes = new Map<number, number | undefined>();
/** Node groups holding fragments of ycsb/def/usertable. */
const groupsWithData = new Set<number>();
let nextGroup = 0;

function connectedDataNodes(): number[] {
  return [...vm.table.values()]
    .filter((p) => p.alive && p.argv[0] === 'ndbd')
    .map((p) => Number(p.argv.find((a) => a.startsWith('--ndb-nodeid='))!.split('=')[1]));
}

function show(): string {
  const up = new Set(connectedDataNodes());
  const lines = ['Connected to Management Server at: ' + MGM, 'Cluster Configuration', '---------------------', '[ndbd(NDB)]\t6 node(s)'];
  for (let id = 2; id <= 7; id++) {
    const group = dataNodes.get(id);
    lines.push(
      up.has(id)
        ? `id=${id}\t@198.18.201.${id - 1}  (mysql-8.4.3 ndb-8.4.3, ${group === undefined ? 'no nodegroup' : `Nodegroup: ${group}`}${id === 2 ? ', *' : ''})`
        : `id=${id} (not connected, accepting connect from 198.18.201.${id - 1})`,
    );
  }
  lines.push('', '[ndb_mgmd(MGM)]\t1 node(s)', 'id=1\t@198.18.201.1  (mysql-8.4.3 ndb-8.4.3)');
  lines.push(
    '',
    '[mysqld(API)]\t5 node(s)',
    'id=100\t@198.18.201.1  (mysql-8.4.3 ndb-8.4.3)',
    'id=101 (not connected, accepting connect from any host)',
  );
  return lines.join('\n');
}

function mgm(command: string): string {
  if (command === 'show') return show();
  const create = /^CREATE NODEGROUP ([\d,]+)$/.exec(command);
  if (create) {
    const group = nextGroup++;
    for (const id of create[1].split(',')) dataNodes.set(Number(id), group);
    return `Connected to Management Server at: ${MGM}\nNodegroup ${group} created`;
  }
  const drop = /^DROP NODEGROUP (\d+)$/.exec(command);
  if (drop) {
    for (const [id, group] of dataNodes) if (group === Number(drop[1])) dataNodes.set(id, undefined);
    return `Connected to Management Server at: ${MGM}\nDrop Node Group ${drop[1]} done`;
  }
  throw new Error(`unexpected ndb_mgm command ${command}`);
}

function sql(statements: string): string {
  if (statements.includes('ndbinfo.nodes')) return String(connectedDataNodes().length);
  // mysqld runs no statement but the one asking (the model's statements complete at once).
  if (statements.includes('information_schema.processlist')) return '0';
  if (statements === 'SELECT VERSION()') return '8.4.3-cluster';
  const fragments = /node_id IN \(([\d,]+)\)/.exec(statements);
  if (fragments) {
    const groups = fragments[1].split(',').map((id) => dataNodes.get(Number(id)));
    return groups.some((g) => g !== undefined && groupsWithData.has(g)) ? 'ycsb/def/usertable' : '';
  }
  if (statements.includes('CREATE TABLE')) for (const g of dataNodes.values()) if (g !== undefined) groupsWithData.add(g);
  if (statements.includes('REORGANIZE PARTITION')) for (const g of dataNodes.values()) if (g !== undefined) groupsWithData.add(g);
  return '';
}

const recorder: CommandRecorder = new CommandRecorder((node, argv): string | ExecResult => {
  const a = argv[0] === 'sudo' ? argv.slice(2) : argv;
  if (a[0] === 'dpkg-query') return 'install ok installed\n'.repeat(4);
  if (a[0] === 'sh' && a[2] === SUDO_DETACH && a[5] === 'ndb_mgmd') {
    // config.ini puts the initial nodes in groups: the model reads them from the file written
    const ini = recorder.calls.filter((c) => c.input?.includes('[ndbd default]')).pop()!.input!;
    for (const [, id, group] of ini.matchAll(/NodeId=(\d+)\nHostName=\S+\nDataDir=\S+\nNodeGroup=(\d+)/g)) {
      dataNodes.set(Number(id), Number(group) === 65536 ? undefined : Number(group));
      nextGroup = Math.max(nextGroup, Number(group) === 65536 ? 0 : Number(group) + 1);
    }
  }
  const process = vm.answer(node, a);
  if (process !== undefined) return process;
  if (a[0] === 'ndb_mgm') return mgm(a[a.length - 1]);
  if (a[0] === 'ndb_waiter') return 'Connecting to management server at ' + MGM + '\nNode 2: STARTED';
  if (a[0] === 'mysql') return sql(a[a.length - 1]);
  return '';
});
const vm = new VmProcesses(recorder);
const adapter = new MysqlClusterAdapter(inventory, recorder.execFor);

// ------------------------------------------------------------------ expected commands

const spawned = (node: string, log: string, argv: string) => `${node}: sh -c ${SUDO_DETACH} sh ${dir(node)}/${log} ${argv}`;
const ndbd = (node: string, id: number, nowait = '') =>
  spawned(node, 'ndbd.log', `ndbd --ndb-connectstring=${MGM} --ndb-nodeid=${id} --nodaemon --initial${nowait}`);
const SHOW = `n1: ndb_mgm --ndb-connectstring=${MGM} -e show`;
const waiter = (ids: string) => `n1: ndb_waiter --ndb-connectstring=${MGM} --wait-nodes=${ids} --timeout=600`;
const mysql = (statements: string) => `n1: mysql --socket=${dir('n1')}/mysqld.sock -uroot -N -B -e ${statements}`;
const killed = (node: string, pid: number) => `${node}: kill -TERM ${pid}`;
const REORGANIZE = 'ALTER TABLE ycsb.usertable ALGORITHM=INPLACE, REORGANIZE PARTITION';
const alterRunning = () => mysql(`SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '${REORGANIZE}%'`);
const fragmentsOn = (ids: string) =>
  mysql(`SELECT DISTINCT fq_name FROM ndbinfo.memory_per_fragment WHERE type = 'User table' AND node_id IN (${ids})`);
const mgmLine = (command: string) => `n1: ndb_mgm --ndb-connectstring=${MGM} -e ${command}`;
/** The commands that start, stop or talk to NDB and MySQL (not the file plumbing or liveness checks). */
const ndbLines = () => recorder.lines((c) => !['mkdir', 'rm', 'cat', 'dpkg-query'].includes(c.argv[2]) && c.input === undefined);
/** PID of the running process of `program` (of data node `id`). */
const pidOf = (program: string, id?: number) => (id === undefined ? vm.pidOf(program) : vm.pidOf(program, `--ndb-nodeid=${id}`));

scratchStateDir();
beforeEach(() => recorder.clear());

test('initiate: management node, data nodes (reserved ones not awaited), SQL node, schema', async () => {
  const info = await adapter.formCluster(NODES.slice(0, 4), { options: { fieldCount: 2 } });
  expect(info).toMatchObject({ database: 'mysql', version: '8.4.3-cluster', members: ['n1', 'n2', 'n3', 'n4'] });
  expect(ndbLines()).toEqual([
    spawned('n1', 'ndb_mgmd.log', `ndb_mgmd --config-file=${dir('n1')}/config.ini --configdir=${dir('n1')}/mgm --initial --nodaemon`),
    SHOW,
    ndbd('n1', 2, ' --nowait-nodes=6,7'),
    ndbd('n2', 3, ' --nowait-nodes=6,7'),
    ndbd('n3', 4, ' --nowait-nodes=6,7'),
    ndbd('n4', 5, ' --nowait-nodes=6,7'),
    waiter('2,3,4,5'),
    `n1: mysqld --initialize-insecure --user=root --datadir=${dir('n1')}/mysqld`,
    spawned(
      'n1',
      'mysqld.log',
      `mysqld --user=root --datadir=${dir('n1')}/mysqld --socket=${dir('n1')}/mysqld.sock --bind-address=198.18.201.1 --port=3306 ` +
        `--ndbcluster --ndb-connectstring=${MGM} --ndb-nodeid=100`,
    ),
    mysql('SELECT COUNT(*) FROM ndbinfo.nodes'),
    mysql(`CREATE DATABASE IF NOT EXISTS ycsb; ${usertableDdl(2)}; CREATE USER IF NOT EXISTS 'ycsb'@'%'; GRANT ALL ON ycsb.* TO 'ycsb'@'%'`),
    mysql('SELECT VERSION()'),
  ]);
  expect(usertableDdl(2)).toBe(
    'CREATE TABLE IF NOT EXISTS ycsb.usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 VARCHAR(255), FIELD1 VARCHAR(255)) ENGINE=NDBCLUSTER DEFAULT CHARSET=latin1',
  );
  const ini = recorder.calls.find((c) => c.input?.includes('[ndbd default]'))!.input!;
  expect(ini).toContain('NoOfReplicas=2');
  expect(ini.match(/NodeGroup=\d+/g)).toEqual(['NodeGroup=0', 'NodeGroup=0', 'NodeGroup=1', 'NodeGroup=1', 'NodeGroup=65536', 'NodeGroup=65536']);
  expect(await adapter.status()).toEqual({ members: ['n1', 'n2', 'n3', 'n4'], healthy: true });
});

test('add one node: it starts in no node group and holds no data yet', async () => {
  const timing = await adapter.addNode(NODES[4]);
  expect(ndbLines()).toEqual([ndbd('n5', 6), waiter('6'), SHOW]);
  expect(timing.requestedAt).toBeLessThanOrEqual(timing.acceptedAt);
  expect(timing.acceptedAt).toBeLessThanOrEqual(timing.completedAt);
});

test('remove a node in no group: it just stops', async () => {
  const pid = pidOf('ndbd', 6);
  await adapter.removeNode(NODES[4]);
  expect(ndbLines()).toEqual([SHOW, killed('n5', pid), SHOW]);
  expect((await adapter.status()).members).toEqual(['n1', 'n2', 'n3', 'n4']);
});

test('add two nodes: CREATE NODEGROUP with both, then the table is reorganized onto it', async () => {
  await adapter.addNode(NODES[4]);
  recorder.clear();
  const timing = await adapter.addNode(NODES[5]);
  expect(ndbLines()).toEqual([
    ndbd('n6', 7),
    waiter('7'),
    SHOW,
    mgmLine('CREATE NODEGROUP 6,7'),
    alterRunning(),
    fragmentsOn('6,7'),
    mysql(`${REORGANIZE}; OPTIMIZE TABLE ycsb.usertable`),
  ]);
  expect(timing.acceptedAt).toBeLessThanOrEqual(timing.completedAt);
  expect(dataNodes.get(6)).toBe(2);
  expect(dataNodes.get(7)).toBe(2);
});

test('dropping a node group that holds data is refused; nothing is stopped', async () => {
  await expect(adapter.removeNode(NODES[5])).rejects.toThrow(
    /n6 is in node group 2 \(n5, n6\), which still holds fragments of ycsb\/def\/usertable; .*the cluster is unchanged/,
  );
  expect(ndbLines()).toEqual([SHOW, fragmentsOn('6,7')]);
  expect((await adapter.status()).members).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
});

test('the node hosting the management and SQL nodes is never removed', async () => {
  await expect(adapter.removeNode(NODES[0])).rejects.toThrow(/n1 hosts the management and SQL nodes/);
  expect(ndbLines()).toEqual([]);
});

test('an empty group is dropped: DROP NODEGROUP, then both its data nodes stop', async () => {
  groupsWithData.delete(2); // the table's fragments left the group (e.g. it was dropped and recreated elsewhere)
  const [pid6, pid7] = [pidOf('ndbd', 6), pidOf('ndbd', 7)];
  const timing = await adapter.removeNode(NODES[5]);
  expect(ndbLines()).toEqual([SHOW, fragmentsOn('6,7'), mgmLine('DROP NODEGROUP 2'), killed('n5', pid6), killed('n6', pid7), SHOW]);
  expect(timing.node).toBe('n6');
  expect(await adapter.status()).toEqual({ members: ['n1', 'n2', 'n3', 'n4'], healthy: true });
});

// A worker that dies mid-resize (these run only on VMs: the model plays NDB as it would answer
// then). Each caller is killed right after the cluster carried out the command it had sent.
describe('a resize whose caller dies after a step is finished by the next call, each step once', () => {
  const sent = (pattern: RegExp) => (c: { argv: string[] }) => pattern.test(c.argv.join(' '));
  const grep = (node: string): unknown => expect.stringMatching(new RegExp(`^${node}: sh -c grep -l -s -z -F`));

  test('add: killed once each of its ndbd, CREATE NODEGROUP and the reorganization was sent', async () => {
    await recorder.killedAt(sent(/^sudo -n sh -c .* ndbd .*--ndb-nodeid=6 /), () => adapter.addNode(NODES[4]));
    recorder.clear();
    await adapter.addNode(NODES[4]);
    // Its ndbd runs: found by its node id and awaited, not started again.
    expect(ndbLines()).toEqual([grep('n5'), waiter('6'), SHOW]);

    recorder.clear();
    const before = Date.now();
    await recorder.killedAt(sent(/CREATE NODEGROUP/), () => adapter.addNode(NODES[5]));
    await recorder.killedAt(sent(/ -e ALTER TABLE/), () => adapter.addNode(NODES[5]));
    const killed = ndbLines();
    recorder.clear();
    const timing = await adapter.addNode(NODES[5]);
    expect(ndbLines()).toEqual([grep('n6'), waiter('7'), SHOW, alterRunning(), fragmentsOn('6,7'), mysql('OPTIMIZE TABLE ycsb.usertable')]);
    const all = [...killed, ...ndbLines()];
    expect(all.filter((l) => l.includes('ndbd --ndb-connectstring'))).toEqual([ndbd('n6', 7)]);
    expect(all.filter((l) => l.includes('CREATE NODEGROUP'))).toEqual([mgmLine('CREATE NODEGROUP 6,7')]);
    expect(all.filter((l) => l.includes(`-e ${REORGANIZE}`))).toEqual([mysql(`${REORGANIZE}; OPTIMIZE TABLE ycsb.usertable`)]);
    expect(vm.running('ndbd')).toBe(6);
    // The timing is the resize's, from the first request on.
    expect(timing.requestedAt).toBeGreaterThanOrEqual(before);
    expect(timing.requestedAt).toBeLessThanOrEqual(timing.acceptedAt);
    expect(timing.acceptedAt).toBeLessThanOrEqual(timing.completedAt);
    expect(await adapter.status()).toEqual({ members: ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'], healthy: true });
  });

  test('remove: killed once DROP NODEGROUP was sent, then once one of its two nodes was stopped', async () => {
    groupsWithData.delete(3); // emptied, as in the test above
    const [pid6, pid7] = [pidOf('ndbd', 6), pidOf('ndbd', 7)];
    recorder.clear();
    await recorder.killedAt(sent(/DROP NODEGROUP/), () => adapter.removeNode(NODES[5]));
    // The group is gone: the cluster no longer says n5 was in it, the adapter's record does.
    await recorder.killedAt(sent(new RegExp(`^sudo -n kill -TERM ${pid6}$`)), () => adapter.removeNode(NODES[5]));
    const killedAttempts = ndbLines();
    recorder.clear();
    await adapter.removeNode(NODES[5]);
    expect(ndbLines()).toEqual([SHOW, killed('n6', pid7), SHOW]);
    expect(killedAttempts.filter((l) => l.includes('DROP NODEGROUP'))).toEqual([mgmLine('DROP NODEGROUP 3')]);
    expect(await adapter.status()).toEqual({ members: ['n1', 'n2', 'n3', 'n4'], healthy: true });
    expect(vm.running('ndbd')).toBe(4);
  });
});

test('binding, flush and stop', async () => {
  expect(adapter.ycsbBinding({ timeoutMs: 1500, retries: 0 })).toEqual({
    dbClass: 'fragbench.ycsb.JdbcClient',
    properties: { 'jdbc.url': 'jdbc:mysql://198.18.201.1:3306/ycsb', 'jdbc.user': 'ycsb', 'jdbc.timeoutMs': '1500' },
  });
  await adapter.flush();
  await adapter.flush({ fieldCount: 3 });
  expect(ndbLines()).toEqual([mysql('TRUNCATE TABLE ycsb.usertable'), mysql(`DROP TABLE IF EXISTS ycsb.usertable; ${usertableDdl(3)}`)]);
  recorder.clear();
  const expected = [
    killed('n1', pidOf('mysqld')),
    killed('n1', pidOf('ndbd', 2)),
    killed('n2', pidOf('ndbd', 3)),
    killed('n3', pidOf('ndbd', 4)),
    killed('n4', pidOf('ndbd', 5)),
    killed('n1', pidOf('ndb_mgmd')),
  ];
  await adapter.stop();
  expect(ndbLines()).toEqual(expected);
  expect([...vm.table.values()].every((p) => !p.alive)).toBe(true);
});
