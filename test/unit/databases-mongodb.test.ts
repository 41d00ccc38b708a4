/**
 * MongoDB adapter at the command level: MongoDB cannot run here, so a recorder plays the VMs and
 * a small replica-set model answers mongosh the way rs.status() / db.hello() / rs.add() do.
 */
import { MongoReplicaSetAdapter } from '../../services/databases/mongodb';
import { SUDO_DETACH } from '../../services/databases/node-shell';
import { nodeDir } from '../../services/databases/state';
import type { ExecResult } from '../../core/exec';
import type { Inventory } from '../../core/inventory';
import { CommandRecorder, scratchStateDir, vmNode, VmProcesses } from '../support/recording-exec';

const NODES = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'].map((name, i) => vmNode(name, `198.18.200.${i + 1}`));
const inventory: Inventory = {
  schemaVersion: 1,
  name: 'mongo-vms',
  source: 'file',
  nodes: NODES,
  links: [],
  clientNode: 'm1',
  shaping: 'tc',
};
const host = (i: number) => `198.18.200.${i}:27017`;

/** What the replica set looks like to mongosh. */
let members: { name: string; stateStr: string }[] = [];

function mongosh(script: string): string {
  if (script.includes('ping')) return '1';
  const initiate = /rs\.initiate\((.*)\)\)$/.exec(script);
  if (initiate) {
    members = (JSON.parse(initiate[1]) as { members: { host: string }[] }).members.map((m, i) => ({
      name: m.host,
      stateStr: i === 0 ? 'PRIMARY' : 'SECONDARY',
    }));
    return '{"ok":1}';
  }
  if (script.includes('rs.conf()')) return JSON.stringify(members.map((m) => m.name));
  if (script.includes('rs.status()')) return JSON.stringify(members.map((m) => ({ name: m.name, state: m.stateStr, health: 1 })));
  if (script.includes('db.hello()')) return JSON.stringify({ primary: members.find((m) => m.stateStr === 'PRIMARY')?.name });
  if (script.includes('db.version()')) return '"7.0.14"';
  const add = /rs\.add\((.*)\)\)$/.exec(script);
  if (add) {
    members.push({ name: (JSON.parse(add[1]) as { host: string }).host, stateStr: 'SECONDARY' });
    return '{"ok":1}';
  }
  const remove = /rs\.remove\((.*)\)\)$/.exec(script);
  if (remove) {
    members = members.filter((m) => m.name !== JSON.parse(remove[1]));
    return '{"ok":1}';
  }
  if (script.includes('dropDatabase')) return '{"ok":1,"dropped":"ycsb"}';
  throw new Error(`unexpected mongosh script ${script}`);
}

const recorder: CommandRecorder = new CommandRecorder((node, argv): string | ExecResult => {
  const a = argv[0] === 'sudo' ? argv.slice(2) : argv;
  if (a[0] === 'dpkg-query') return 'install ok installed\n';
  const process = vm.answer(node, a);
  if (process !== undefined) return process;
  if (a[0] === 'mongosh') return mongosh(a[a.length - 1]);
  return '';
});
const vm = new VmProcesses(recorder);
const adapter = new MongoReplicaSetAdapter(inventory, recorder.execFor);
const dir = (node: string) => nodeDir(inventory.name, 'mongodb', node);
const eval_ = (node: string, i: number, script: string) => `${node}: mongosh --quiet --host ${host(i)} --eval ${script}`;
const started = (node: string) => `${node}: sh -c ${SUDO_DETACH} sh ${dir(node)}/mongod.log mongod --config ${dir(node)}/mongod.conf`;
const PING = 'JSON.stringify(db.adminCommand({ ping: 1 }).ok)';
const STATUS = 'JSON.stringify(rs.status().members.map((m) => ({ name: m.name, state: m.stateStr, health: m.health })))';
const HELLO = 'JSON.stringify({ primary: db.hello().primary })';
const CONF = 'JSON.stringify(rs.conf().members.map((m) => m.host))';
/** A member's mongod stopped (the look at its PID, SIGTERM, the look that finds it gone) and its files removed. */
const retired = (node: string, pid: number) => [
  `${node}: cat /proc/${pid}/cmdline`,
  `${node}: kill -TERM ${pid}`,
  `${node}: cat /proc/${pid}/cmdline`,
  `${node}: rm -rf --one-file-system ${dir(node)}`,
];
/** The commands that talk to MongoDB or start it (not the file and directory plumbing). */
const mongoLines = () => recorder.lines((c) => c.argv.includes('mongosh') || c.argv.includes('mongod') || c.argv.includes('kill'));

scratchStateDir();
beforeEach(() => recorder.clear());

test('initiate: starts mongod on each VM, rs.initiate on the first, waits for the set', async () => {
  await adapter.install(NODES[0]);
  expect(recorder.lines()).toEqual(['m1: dpkg-query -W -f ${Status}\n mongodb-org']);
  recorder.clear();

  const info = await adapter.formCluster(NODES.slice(0, 3), { options: { readPreference: 'nearest' } });
  expect(info).toMatchObject({ database: 'mongodb', version: '7.0.14', members: ['m1', 'm2', 'm3'] });
  const config = { _id: 'fragbench', members: [0, 1, 2].map((i) => ({ _id: i, host: host(i + 1) })) };
  expect(mongoLines()).toEqual([
    started('m1'),
    eval_('m1', 1, PING),
    started('m2'),
    eval_('m2', 2, PING),
    started('m3'),
    eval_('m3', 3, PING),
    eval_('m1', 1, `JSON.stringify(rs.initiate(${JSON.stringify(config)}))`),
    eval_('m1', 1, STATUS),
    eval_('m1', 1, 'JSON.stringify(db.version())'),
  ]);
  const conf = recorder.calls.find((c) => c.node === 'm2' && c.argv.includes(`${dir('m2')}/mongod.conf`) && c.input);
  expect(conf?.input).toContain('bindIp: 198.18.200.2');
  expect(conf?.input).toContain('replSetName: fragbench');
  expect(recorder.calls.every((c) => c.argv[0] === 'sudo' && c.argv[1] === '-n')).toBe(true);
  expect(adapter.ycsbBinding({ timeoutMs: 2000, retries: 1 })).toEqual({
    dbClass: 'fragbench.ycsb.MongoClient',
    properties: {
      'mongodb.url': `mongodb://${host(1)},${host(2)},${host(3)}/ycsb?replicaSet=fragbench`,
      'mongodb.readPreference': 'nearest',
      'mongodb.writeConcern': 'majority',
      'mongodb.timeoutMs': '2000',
    },
  });
});

test('add: rs.add on the primary, completed when the newcomer is a secondary', async () => {
  const timing = await adapter.addNode(NODES[3]);
  expect(mongoLines()).toEqual([
    eval_('m1', 1, HELLO),
    eval_('m1', 1, CONF),
    started('m4'),
    eval_('m4', 4, PING),
    eval_('m1', 1, `JSON.stringify(rs.add({"host":"${host(4)}"}))`),
    eval_('m1', 1, STATUS),
  ]);
  expect(timing.requestedAt).toBeLessThanOrEqual(timing.acceptedAt);
  expect(timing.acceptedAt).toBeLessThanOrEqual(timing.completedAt);
  expect(await adapter.status()).toEqual({ members: ['m1', 'm2', 'm3', 'm4'], healthy: true });
});

test('remove: rs.remove on the primary, then the member is stopped and its files removed', async () => {
  const pid = vm.pidOf('mongod', `${dir('m3')}/mongod.conf`);
  await adapter.removeNode(NODES[2]);
  expect(recorder.lines((c) => c.node === 'm3' || c.argv.includes('mongosh'))).toEqual([
    eval_('m1', 1, HELLO),
    eval_('m1', 1, CONF),
    eval_('m1', 1, `JSON.stringify(rs.remove("${host(3)}"))`),
    eval_('m1', 1, STATUS),
    ...retired('m3', pid),
  ]);
  expect(await adapter.status()).toEqual({ members: ['m1', 'm2', 'm4'], healthy: true });
});

test('removing the primary is refused before any command changes the set', async () => {
  await expect(adapter.removeNode(NODES[0])).rejects.toThrow(/m1 is the replica set's primary, which is never removed/);
  await expect(adapter.removeNode(NODES[7])).rejects.toThrow(/m8 is not a member of replica set fragbench/);
  expect(recorder.lines().filter((l) => /rs\.remove|kill|rm -rf/.test(l))).toEqual([]);
  expect(members.map((m) => m.name)).toEqual([host(1), host(2), host(4)]);
});

// A worker that dies mid-resize (MongoDB runs only on VMs: the model answers as the replica set
// would then). Each caller is killed right after its command was carried out.
describe('a resize whose caller dies after a step is finished by the next call, each step once', () => {
  const conf = () => `${dir('m5')}/mongod.conf`;
  const sent = (pattern: RegExp) => (c: { argv: string[] }) => pattern.test(c.argv.join(' '));
  const grep: unknown = expect.stringMatching(/^m5: sh -c grep -l -s -z -F/);

  test('add: killed once its mongod was started, then once rs.add was sent', async () => {
    const before = Date.now();
    await recorder.killedAt(
      (c) => c.argv.includes('mongod') && c.argv.includes(conf()),
      () => adapter.addNode(NODES[4]),
    );
    await recorder.killedAt(sent(/rs\.add/), () => adapter.addNode(NODES[4]));
    const killedAttempts = recorder.lines();
    recorder.clear();
    const resumedAt = Date.now();
    const timing = await adapter.addNode(NODES[4]);
    // The set has it already and its mongod runs: no second rs.add, no second mongod.
    expect(recorder.lines((c) => c.node === 'm5' || c.argv.includes('mongosh'))).toEqual([
      eval_('m1', 1, HELLO),
      eval_('m1', 1, CONF),
      grep,
      expect.stringMatching(/^m5: cat \/proc\/\d+\/cmdline$/),
      eval_('m5', 5, PING),
      eval_('m1', 1, STATUS),
    ]);
    expect(killedAttempts.filter((l) => l.includes('rs.add'))).toHaveLength(1);
    expect(killedAttempts.filter((l) => l.endsWith(`mongod --config ${conf()}`))).toHaveLength(1);
    expect(vm.running('mongod')).toBe(4);
    expect(timing.requestedAt).toBeGreaterThanOrEqual(before);
    // The caller that sent rs.add died before its answer: acceptance is the next caller's first look.
    expect(timing.acceptedAt).toBeGreaterThanOrEqual(resumedAt);
    expect(timing.acceptedAt).toBeLessThanOrEqual(timing.completedAt);
    expect(await adapter.status()).toEqual({ members: ['m1', 'm2', 'm4', 'm5'], healthy: true });
  });

  test('remove: killed once rs.remove was sent; the next call only stops its mongod', async () => {
    const pid = vm.pidOf('mongod', conf());
    await recorder.killedAt(sent(/rs\.remove/), () => adapter.removeNode(NODES[4]));
    recorder.clear();
    await adapter.removeNode(NODES[4]);
    expect(recorder.lines((c) => c.node === 'm5' || c.argv.includes('mongosh'))).toEqual([
      eval_('m1', 1, HELLO),
      eval_('m1', 1, CONF),
      eval_('m1', 1, STATUS),
      ...retired('m5', pid),
    ]);
    expect(await adapter.status()).toEqual({ members: ['m1', 'm2', 'm4'], healthy: true });
  });
});

test('flush drops the ycsb database on the primary; stop stops every member', async () => {
  await adapter.flush();
  expect(mongoLines()).toEqual([eval_('m1', 1, HELLO), eval_('m1', 1, 'JSON.stringify(db.getSiblingDB("ycsb").dropDatabase())')]);
  recorder.clear();
  await adapter.stop();
  expect(recorder.lines((c) => c.argv.includes('rm'))).toEqual(['m1', 'm2', 'm4'].map((n) => `${n}: rm -rf --one-file-system ${dir(n)}`));
  expect(await adapter.status()).toEqual({ members: [], healthy: false });
});

test('members past the seventh join without a vote', async () => {
  await adapter.formCluster(NODES, {});
  const initiate = recorder.lines().find((l) => l.includes('rs.initiate'));
  expect(initiate).toContain(`{"_id":6,"host":"${host(7)}"}`);
  expect(initiate).toContain(`{"_id":7,"host":"${host(8)}","votes":0,"priority":0}`);
  await adapter.stop();
});
