/**
 * Riak adapter at the command level. Riak was never executed here (no package reachable from this
 * machine): a recorder plays the VMs and a small model of the ring answers `riak admin` the way
 * its documented output reads. The command sequences are checked against the Riak KV
 * documentation, each test naming its page.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RiakAdapter } from '../../services/databases/riak/riak';
import { RIAK_DEB, riakName } from '../../services/databases/riak/riak-commands';
import { SUDO_DETACH } from '../../services/databases/node-shell';
import { nodeDir } from '../../services/databases/state';
import type { ExecResult } from '../../core/exec';
import type { Inventory } from '../../core/inventory';
import { CommandRecorder, scratchStateDir, vmNode, VmProcesses } from '../support/recording-exec';

const ADDING_REMOVING = 'https://docs.riak.com/riak/kv/latest/using/cluster-operations/adding-removing-nodes/';
const ADMIN_COMMANDS = 'https://docs.riak.com/riak/kv/latest/using/admin/commands/';

const NODES = [1, 2, 3, 4, 5].map((i) => vmNode(`r${i}`, `198.18.202.${i}`));
const inventory: Inventory = { schemaVersion: 1, name: 'riak-vms', source: 'file', nodes: NODES, links: [], clientNode: 'r1', shaping: 'tc' };
const name = (i: number) => riakName(`198.18.202.${i}`);
const dir = (node: string) => nodeDir(inventory.name, 'riak', node);

// ------------------------------------------------------------------ the model of the ring

/** Ring members and their status; staged changes wait for plan + commit. */
const ring = new Map<string, string>();
let staged: [string, string][] = [];
let planned = false;
let installed = true;

/** What `riak foreground` becomes once its script has exec'd the Erlang VM (same PID). */
const BEAM = ['/usr/lib/riak/erts-12.3/bin/beam.smp', '--', '-root', '/usr/lib/riak', '-progname', 'riak', '--', '-home', '/root'];
const alive = (node: string) => [...vm.table.values()].some((p) => p.node === node && p.alive && p.argv.includes('/usr/lib/riak'));

function riakAdmin(node: string, args: string[]): string {
  const self = riakName(NODES.find((n) => n.name === node)!.overlayAddress);
  if (args[0] === 'member-status') {
    if (ring.size === 0) ring.set(self, 'valid');
    const rows = [...ring].map(([n, s]) => `${s.padEnd(10)} ${s === 'valid' ? '33.3%' : ' 0.0%'}      --      '${n}'`);
    return [
      '================================= Membership ==================================',
      'Status     Ring    Pending    Node',
      '-----',
      ...rows,
      '-----',
    ].join('\n');
  }
  if (args[0] === 'transfers') return 'No transfers active\n\nActive Transfers:\n';
  if (args[0] === 'ringready') return `TRUE All nodes agree on the ring [${[...ring.keys()].map((n) => `'${n}'`).join(',')}]`;
  const [, action, target] = args;
  if (action === 'join') {
    if (!ring.has(target)) ring.set(target, 'valid');
    ring.set(self, 'joining');
    staged.push(['join', self]);
    return `Success: staged join request for '${self}' to '${target}'`;
  }
  if (action === 'leave') {
    staged.push(['leave', target]);
    return `Success: staged leave request for '${target}'`;
  }
  if (action === 'clear') {
    staged = staged.filter(([a]) => a === 'join');
    return 'Cleared staged cluster changes';
  }
  if (action === 'plan') {
    planned = true;
    return `=============================== Staged Changes ================================\n${staged.map(([a, n]) => `${a} '${n}'`).join('\n')}`;
  }
  if (action === 'commit') {
    if (!planned) return "You must verify the plan with 'riak admin cluster plan' before committing";
    for (const [a, n] of staged) {
      if (a === 'join') ring.set(n, 'valid');
      // Handed off at once in the model; the leaving node then shuts itself down.
      if (a === 'leave') {
        ring.delete(n);
        const leaver = NODES.find((x) => riakName(x.overlayAddress) === n)!.name;
        for (const p of vm.table.values()) if (p.node === leaver) p.alive = false;
      }
    }
    staged = [];
    planned = false;
    return 'Cluster changes committed';
  }
  throw new Error(`unexpected riak admin ${args.join(' ')}`);
}

const recorder: CommandRecorder = new CommandRecorder((node, argv): string | ExecResult => {
  const a = argv[0] === 'sudo' ? argv.slice(2) : argv;
  const process = vm.answer(node, a);
  if (process !== undefined) {
    if (a[2] === SUDO_DETACH && a.slice(5).join(' ') === 'riak foreground') vm.table.get(Number(process))!.argv = BEAM;
    return process;
  }
  if (a[0] === 'dpkg-query') {
    if (a.includes('${Version}')) return '3.2.0-OTP25';
    return installed ? 'install ok installed\n' : { code: 1, stdout: '', stderr: 'no packages found matching riak' };
  }
  if (a[0] === 'sh' && a[2]?.includes('os-release')) return 'ubuntu\njammy\n';
  if (a[0] === 'riak' && a[1] === 'ping') return alive(node) ? 'pong' : { code: 1, stdout: 'Node is not running!', stderr: '' };
  if (a[0] === 'riak' && a[1] === 'admin') return riakAdmin(node, a.slice(2));
  return '';
});
const vm = new VmProcesses(recorder);
const adapter = new RiakAdapter(inventory, recorder.execFor);
/** The commands that change or read the ring, as `node: argv` lines. */
/**
 * r4's removal as sent: `cluster clear` first drops anything an interrupted attempt staged
 * (documented under "clear" on the admin commands page), then the documented `cluster leave
 * <node>`, `cluster plan` and `cluster commit`, from a member that stays.
 */
const LEAVE_R4 = [
  'r1: riak admin cluster clear',
  `r1: riak admin cluster leave ${name(4)}`,
  'r1: riak admin cluster plan',
  'r1: riak admin cluster commit',
];
const clusterLines = () => recorder.lines((c) => c.argv.includes('cluster'));
const stateDir = scratchStateDir();

beforeEach(() => recorder.clear());

test(`install: the vendor's .deb for the VM's Ubuntu release, then its service disabled (${ADDING_REMOVING})`, async () => {
  installed = false;
  await adapter.install(NODES[0]);
  installed = true;
  expect(recorder.lines()).toEqual([
    'r1: dpkg-query -W -f ${Status}\n riak',
    'r1: sh -c . /etc/os-release && echo "$ID" && echo "$VERSION_CODENAME"',
    'r1: env DEBIAN_FRONTEND=noninteractive apt-get update -qq',
    'r1: env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl ca-certificates',
    `r1: curl -fsSL -o /tmp/fb-riak.deb ${RIAK_DEB.url('jammy')}`,
    'r1: env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/fb-riak.deb',
    'r1: rm -f /tmp/fb-riak.deb',
    'r1: systemctl disable --now riak',
  ]);
  expect(RIAK_DEB.url('jammy')).toBe('https://files.tiot.jp/riak/kv/3.2/3.2.0/ubuntu/jammy64/riak_3.2.0-OTP25_amd64.deb');
});

test('a local (namespace) node is refused, naming the field and that riak runs only on VMs', async () => {
  const local = { ...NODES[0], exec: { transport: 'netns' as const, namespace: 'fb-r1' } };
  await expect(new RiakAdapter({ ...inventory, nodes: [local] }, recorder.execFor).install(local)).rejects.toThrow(
    /database\.name: riak runs only on VM fleets \(it was never executed here\)/,
  );
});

test(`form: each node started, joined from itself to the first, then one plan and one commit (${ADDING_REMOVING})`, async () => {
  const info = await adapter.formCluster(NODES.slice(0, 3), {});
  expect(info).toMatchObject({ database: 'riak', version: '3.2.0-OTP25', members: ['r1', 'r2', 'r3'], nonDefaultSettings: {} });
  // The documented sequence: `riak admin cluster join <node_in_cluster>` on each new node, then
  // `riak admin cluster plan` and `riak admin cluster commit` once for all staged joins.
  expect(clusterLines()).toEqual([
    `r2: riak admin cluster join ${name(1)}`,
    `r3: riak admin cluster join ${name(1)}`,
    'r1: riak admin cluster plan',
    'r1: riak admin cluster commit',
  ]);
  expect(recorder.lines((c) => c.argv.includes('foreground'))).toEqual(
    ['r1', 'r2', 'r3'].map((n) => `${n}: sh -c log=$1; shift; nohup "$@" >>"$log" 2>&1 </dev/null & echo $! sh ${dir(n)}/riak.log riak foreground`),
  );
  expect([...ring.values()]).toEqual(['valid', 'valid', 'valid']);
  expect(await adapter.status()).toEqual({ members: ['r1', 'r2', 'r3'], healthy: true });
});

test('the Erlang cookie is generated, kept 0600 on the host, and reaches the VMs only on standard input', async () => {
  const secrets = join(stateDir(), inventory.name, 'riak', 'secrets.json');
  expect(statSync(secrets).mode & 0o777).toBe(0o600);
  const { cookie } = JSON.parse(readFileSync(secrets, 'utf8')) as { cookie: string };
  expect(cookie).toMatch(/^[0-9a-f]{48}$/);
  await adapter.addNode(NODES[3]);
  const written = recorder.calls.find((c) => c.argv.includes('/etc/riak/riak.conf'));
  expect(written?.argv).toEqual(['sudo', '-n', 'sh', '-c', 'umask 077 && cat > "$1"', 'sh', '/etc/riak/riak.conf']);
  expect(written?.input).toContain(`distributed_cookie = ${cookie}`);
  expect(written?.input).toContain(`nodename = ${name(4)}`);
  expect(recorder.calls.some((c) => c.argv.join(' ').includes(cookie))).toBe(false);
  expect(JSON.stringify(adapter['state'].read())).not.toContain(cookie);
});

test(`add: join from the newcomer, plan, commit; remove: leave <node>, plan, commit from a member (${ADDING_REMOVING}, ${ADMIN_COMMANDS})`, async () => {
  // r4 was added by the previous test: its cluster commands were the documented join sequence.
  expect(await adapter.status()).toEqual({ members: ['r1', 'r2', 'r3', 'r4'], healthy: true });
  await adapter.removeNode(NODES[3]);
  expect(clusterLines()).toEqual(LEAVE_R4);
  expect(ring.has(name(4))).toBe(false);
  expect(recorder.lines((c) => c.node === 'r4' && c.argv.includes('rm'))).toEqual([`r4: rm -rf --one-file-system ${dir('r4')}`]);
  expect(await adapter.status()).toEqual({ members: ['r1', 'r2', 'r3'], healthy: true });
});

describe('a resize whose caller dies after a step is finished by the next call, each step once', () => {
  const sent = (action: string) => (c: { argv: string[] }) => c.argv.join(' ').includes(`cluster ${action}`);

  test('add: killed after the join was staged, then after the plan; the next call commits once', async () => {
    await recorder.killedAt(sent('join'), () => adapter.addNode(NODES[4]));
    await recorder.killedAt(sent('plan'), () => adapter.addNode(NODES[4]));
    const killed = clusterLines();
    recorder.clear();
    const timing = await adapter.addNode(NODES[4]);
    expect(killed).toEqual([`r5: riak admin cluster join ${name(1)}`, 'r1: riak admin cluster plan']);
    // member-status lists r5 as joining: no second join; its riak, still running, is adopted.
    expect(clusterLines()).toEqual(['r1: riak admin cluster plan', 'r1: riak admin cluster commit']);
    expect(recorder.lines((c) => c.argv.includes('foreground') && c.node === 'r5')).toEqual([]);
    expect(timing.requestedAt).toBeLessThanOrEqual(timing.acceptedAt);
    expect(await adapter.status()).toEqual({ members: ['r1', 'r2', 'r3', 'r5'], healthy: true });
  });

  test('an add asked again once it completed is refused as a member already, with no cluster command', async () => {
    await adapter.addNode(NODES[3]);
    recorder.clear();
    await expect(adapter.addNode(NODES[3])).rejects.toThrow(/r4 is already a member/);
    expect(clusterLines()).toEqual([]);
  });

  test('remove: killed after the commit; the next call only waits and stops what is left', async () => {
    await recorder.killedAt(sent('commit'), () => adapter.removeNode(NODES[4]));
    recorder.clear();
    await adapter.removeNode(NODES[4]);
    expect(clusterLines()).toEqual([]);
    expect(await adapter.status()).toEqual({ members: ['r1', 'r2', 'r3', 'r4'], healthy: true });
  });

  test('remove: killed after the leave was staged (not committed): the next call clears and stages it again', async () => {
    await recorder.killedAt(sent('leave'), () => adapter.removeNode(NODES[3]));
    recorder.clear();
    await adapter.removeNode(NODES[3]);
    expect(clusterLines()).toEqual(LEAVE_R4);
    expect(staged).toEqual([]);
  });
});

test('flush moves YCSB to a new bucket; the binding names every member over HTTP; stop stops all', async () => {
  await adapter.flush();
  expect(adapter.ycsbBinding({ timeoutMs: 2000, retries: 1 })).toEqual({
    dbClass: 'fragbench.ycsb.RiakClient',
    properties: {
      'riak.urls': 'http://198.18.202.1:8098,http://198.18.202.2:8098,http://198.18.202.3:8098',
      'riak.bucket': 'usertable-1',
      'riak.timeoutMs': '2000',
      'riak.retries': '1',
    },
  });
  await adapter.stop();
  expect([...vm.table.values()].filter((p) => p.alive)).toEqual([]);
  expect(await adapter.status()).toEqual({ members: [], healthy: false });
});
