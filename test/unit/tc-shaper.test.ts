import type { ExecOptions, ExecResult, NodeExec } from '../../core/exec';
import type { Inventory } from '../../core/inventory';
import { TcShaper } from '../../infra/shaping/tc-shaper';
import { symmetric } from '../../infra/shaping/shaper';
import { netemLimit } from '../../infra/shaping/tc-commands';

/** Records what would run on a VM; answers `tc qdisc show` as a node with or without our root. */
class RecordingExec implements NodeExec {
  readonly runs: { argv: string[]; input?: string }[] = [];
  constructor(
    readonly where: string,
    private readonly hasRoot: boolean,
    /** A kernel without netem answers a netem qdisc as this host's does. */
    private readonly hasNetem = true,
  ) {}
  run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    this.runs.push({ argv, input: options?.input });
    if (!this.hasNetem && options?.input?.includes('netem'))
      return Promise.resolve({ code: 2, stdout: '', stderr: 'Error: Specified qdisc kind is unknown.\nCommand failed -:1\n' });
    const show = argv.includes('show');
    const qdiscs = `qdisc htb 1: root refcnt 2 r2q 10 default 0\n${this.hasNetem ? 'qdisc netem 100: parent 1:1 limit 1000 delay 0ms\n' : ''}`;
    return Promise.resolve({ code: 0, stdout: show && this.hasRoot ? qdiscs : '', stderr: '' });
  }
  spawnDetached(): Promise<number> {
    return Promise.reject(new Error('not used'));
  }
  /** Every command, with `tc -batch` input expanded back into `tc ...` argv lists. */
  commands(): string[][] {
    return this.runs.flatMap(({ argv, input }) =>
      argv.includes('-batch')
        ? input!
            .trim()
            .split('\n')
            .map((line) => ['tc', ...line.split(' ')])
        : [argv],
    );
  }
}

const key = (c: string) => `${c.repeat(43)}=`;

function inventory(user = 'root'): Inventory {
  const node = (name: string, i: number, types: number[]) => ({
    name,
    site: name,
    cloud: 'openstack' as const,
    role: 'data' as const,
    overlayAddress: `10.100.0.${i}`,
    exec: { transport: 'ssh' as const, host: `10.0.0.${i}`, user },
    wireguard: types.map((t) => ({
      type: t,
      name: `wg${t}`,
      address: `10.${t}.0.${i}`,
      listenPort: 51820 + t,
      publicKey: key(String.fromCharCode(64 + i)),
    })),
  });
  const link = (a: string, b: string, type: number) => ({
    id: `${a}-${b}/${type}`,
    a,
    b,
    type,
    latencyMs: 100,
    bandwidthMbps: 50,
    ends: [
      { node: a, interface: `wg${type}`, endpoint: 'x:1' },
      { node: b, interface: `wg${type}`, endpoint: 'x:1' },
    ] as Inventory['links'][number]['ends'],
  });
  return {
    schemaVersion: 1,
    name: 'vms',
    source: 'pulumi',
    clientNode: 'a',
    shaping: 'tc',
    nodes: [node('a', 1, [0, 1]), node('b', 2, [0, 1]), node('c', 3, [0])],
    links: [link('a', 'b', 0), link('a', 'b', 1), link('b', 'c', 0)],
  };
}

function shaperWith(inv: Inventory, hasRoot: boolean, hasNetem = true) {
  const execs = new Map(inv.nodes.map((n) => [n.name, new RecordingExec(n.name, hasRoot, hasNetem)]));
  return { shaper: new TcShaper(inv, (node) => execs.get(node)!), execs };
}

describe('tc back end', () => {
  test('first apply builds the htb root and one class, netem and filter per link end, ids from the link index', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, false);
    await shaper.apply(inv.links[1], symmetric({ rttMs: 80, rateMbps: 20 }));
    const a = execs.get('a')!.commands();
    const limit = String(netemLimit({ delayMs: 0, rateMbps: null, lossPercent: 0, jitterMs: 0 }));
    // Node a has links 0 (a-b/0) and 1 (a-b/1); each interface gets its own root and rules.
    expect(a).toEqual(
      expect.arrayContaining([
        ['tc', 'qdisc', 'show', 'dev', 'wg1'],
        ['tc', 'qdisc', 'add', 'dev', 'wg1', 'root', 'handle', '1:', 'htb'],
        // The cut class: a queue of length 0 drops whatever a cut filter sends it.
        ['tc', 'class', 'add', 'dev', 'wg1', 'parent', '1:', 'classid', '1:ffff', 'htb', 'rate', '100000mbit', 'ceil', '100000mbit'],
        ['tc', 'qdisc', 'add', 'dev', 'wg1', 'parent', '1:ffff', 'handle', 'ffff:', 'pfifo', 'limit', '0'],
        ['tc', 'class', 'add', 'dev', 'wg1', 'parent', '1:', 'classid', '1:2', 'htb', 'rate', '100000mbit', 'ceil', '100000mbit'],
        ['tc', 'qdisc', 'add', 'dev', 'wg1', 'parent', '1:2', 'handle', '101:', 'netem', 'delay', '0ms', 'limit', limit],
        [
          'tc',
          'filter',
          'add',
          'dev',
          'wg1',
          'parent',
          '1:',
          'protocol',
          'ip',
          'prio',
          '32769',
          'u32',
          'match',
          'ip',
          'dst',
          '10.1.0.2/32',
          'flowid',
          '1:2',
        ],
        ['tc', 'qdisc', 'add', 'dev', 'wg0', 'root', 'handle', '1:', 'htb'],
        ['tc', 'class', 'add', 'dev', 'wg0', 'parent', '1:', 'classid', '1:1', 'htb', 'rate', '100000mbit', 'ceil', '100000mbit'],
      ]),
    );
    // Then the shape itself: half the RTT each way, the cap, in place.
    expect(a.slice(-2)).toEqual([
      ['tc', 'class', 'change', 'dev', 'wg1', 'parent', '1:', 'classid', '1:2', 'htb', 'rate', '20mbit', 'ceil', '20mbit'],
      ['tc', 'qdisc', 'change', 'dev', 'wg1', 'parent', '1:2', 'handle', '101:', 'netem', 'delay', '40ms', 'limit', '1000'],
    ]);
    // Node b shapes the other direction, towards a's mesh address.
    expect(execs.get('b')!.commands()).toContainEqual([
      'tc',
      'filter',
      'add',
      'dev',
      'wg1',
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      '32769',
      'u32',
      'match',
      'ip',
      'dst',
      '10.1.0.1/32',
      'flowid',
      '1:2',
    ]);
    // Node c has no end of link 1.
    expect(execs.get('c')!.commands()).toEqual([]);
  });

  test('every rule on an interface has its own class, handle and priority', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, false);
    await shaper.applyMany(inv.links.map((link) => ({ link, conditions: symmetric({ delayMs: 10 }) })));
    const b = execs
      .get('b')!
      .commands()
      .filter((c) => c[1] !== 'qdisc' || c[2] !== 'show');
    const setupOnWg0 = b.filter(
      (c) => (c[2] === 'add' && c[4] === 'wg0' && c[1] !== 'qdisc') || (c[1] === 'qdisc' && c[2] === 'add' && c[4] === 'wg0' && c[5] === 'parent'),
    );
    const ids = (kind: string, after: string) => setupOnWg0.filter((c) => c[1] === kind).map((c) => c[c.indexOf(after) + 1]);
    expect(ids('class', 'classid')).toEqual(['1:ffff', '1:1', '1:3']);
    expect(ids('qdisc', 'handle')).toEqual(['ffff:', '100:', '102:']);
    expect(ids('filter', 'prio')).toEqual(['32768', '32770']);
  });

  test('an interface already set up is only changed; loss and a large queue for a long fat link', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true);
    await shaper.apply(inv.links[2], symmetric({ delayMs: 100, rateMbps: 1000, lossPercent: 1.5 }));
    expect(execs.get('c')!.commands()).toEqual([
      ['tc', 'qdisc', 'show', 'dev', 'wg0'],
      ['tc', 'class', 'change', 'dev', 'wg0', 'parent', '1:', 'classid', '1:3', 'htb', 'rate', '1000mbit', 'ceil', '1000mbit'],
      ['tc', 'qdisc', 'change', 'dev', 'wg0', 'parent', '1:3', 'handle', '102:', 'netem', 'delay', '100ms', 'loss', '1.5%', 'limit', '16667'],
    ]);
  });

  test('each end shapes the direction it sends: a -> b on a, b -> a on b, jitter as netem normal', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true);
    const ab = { delayMs: 30, bandwidthMbps: 5, lossPercent: 2, jitterMs: 4 };
    const ba = { delayMs: 10, bandwidthMbps: 50, lossPercent: 0, jitterMs: 0 };
    await shaper.apply(inv.links[2], { ab, ba });
    const changes = (name: string) =>
      execs
        .get(name)!
        .commands()
        .filter((c) => c[2] === 'change');
    expect(changes('b')).toEqual([
      ['tc', 'class', 'change', 'dev', 'wg0', 'parent', '1:', 'classid', '1:3', 'htb', 'rate', '5mbit', 'ceil', '5mbit'],
      [
        'tc',
        'qdisc',
        'change',
        'dev',
        'wg0',
        'parent',
        '1:3',
        'handle',
        '102:',
        'netem',
        'delay',
        '30ms',
        '4ms',
        'distribution',
        'normal',
        'loss',
        '2%',
        'limit',
        '1000',
      ],
    ]);
    expect(changes('c')).toEqual([
      ['tc', 'class', 'change', 'dev', 'wg0', 'parent', '1:', 'classid', '1:3', 'htb', 'rate', '50mbit', 'ceil', '50mbit'],
      ['tc', 'qdisc', 'change', 'dev', 'wg0', 'parent', '1:3', 'handle', '102:', 'netem', 'delay', '10ms', 'limit', '1000'],
    ]);
  });

  test('a one-way cut drops on the sending end only', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true);
    await shaper.cut(inv.links[2], 'ba');
    const drops = (name: string) =>
      execs
        .get(name)!
        .commands()
        .filter((c) => c[1] === 'filter' && c.includes('1:ffff'));
    expect(drops('b')).toEqual([]);
    expect(drops('c')).toEqual([
      [
        'tc',
        'filter',
        'add',
        'dev',
        'wg0',
        'parent',
        '1:',
        'protocol',
        'ip',
        'prio',
        '3',
        'u32',
        'match',
        'ip',
        'dst',
        '10.0.0.2/32',
        'flowid',
        '1:ffff',
      ],
    ]);
  });

  test('cut adds a filter into the dropping class ahead of all shaping on both ends; restore deletes exactly it', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true);
    await shaper.cut(inv.links[2]);
    await shaper.restore(inv.links[2]);
    const drop = (peer: string) => [
      'tc',
      'filter',
      'add',
      'dev',
      'wg0',
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      '3',
      'u32',
      'match',
      'ip',
      'dst',
      `${peer}/32`,
      'flowid',
      '1:ffff',
    ];
    const undrop = ['tc', 'filter', 'del', 'dev', 'wg0', 'parent', '1:', 'protocol', 'ip', 'prio', '3'];
    // Setting up a node checks every interface it has (b has wg0 and wg1).
    const show = (iface: string) => ['tc', 'qdisc', 'show', 'dev', iface];
    expect(execs.get('b')!.commands()).toEqual([show('wg0'), show('wg1'), undrop, drop('10.0.0.3'), undrop]);
    expect(execs.get('c')!.commands()).toEqual([show('wg0'), undrop, drop('10.0.0.2'), undrop]);
    expect(execs.get('a')!.commands()).toEqual([]);
  });

  test('a kernel without netem gets the caps and cuts, no netem; the delay it was asked for is reported as not applied', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, false, false);
    await shaper.apply(inv.links[2], symmetric({ rttMs: 40, rateMbps: 20 }));
    const c = execs.get('c')!.commands();
    // The probe: a netem root, refused, so everything after it goes without netem.
    expect(c.slice(0, 3)).toEqual([
      ['tc', 'qdisc', 'show', 'dev', 'wg0'],
      ['tc', 'qdisc', 'add', 'dev', 'wg0', 'root', 'handle', '1:', 'netem', 'delay', '0ms'],
      ['tc', 'qdisc', 'del', 'dev', 'wg0', 'root'],
    ]);
    expect(c.slice(3).filter((cmd) => cmd.includes('netem'))).toEqual([]);
    expect(c.slice(-1)).toEqual([
      ['tc', 'class', 'change', 'dev', 'wg0', 'parent', '1:', 'classid', '1:3', 'htb', 'rate', '20mbit', 'ceil', '20mbit'],
    ]);
    expect(shaper.unappliedConditions()).toEqual([
      'b-c/0 from b: delay 20 ms not applied (no netem in the kernel; rate caps and cuts are)',
      'b-c/0 from c: delay 20 ms not applied (no netem in the kernel; rate caps and cuts are)',
    ]);
  });

  test('an interface another process set up without netem is shaped without it too', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true, false);
    await shaper.apply(inv.links[2], symmetric({ rttMs: 40, rateMbps: 20 }));
    expect(execs.get('c')!.commands()).toEqual([
      ['tc', 'qdisc', 'show', 'dev', 'wg0'],
      ['tc', 'class', 'change', 'dev', 'wg0', 'parent', '1:', 'classid', '1:3', 'htb', 'rate', '20mbit', 'ceil', '20mbit'],
    ]);
    expect(shaper.unappliedConditions()).toHaveLength(2);
  });

  test('clear removes the root qdisc of every WireGuard interface', async () => {
    const inv = inventory();
    const { shaper, execs } = shaperWith(inv, true);
    await shaper.clear();
    expect(execs.get('a')!.commands()).toEqual([
      ['tc', 'qdisc', 'del', 'dev', 'wg0', 'root'],
      ['tc', 'qdisc', 'del', 'dev', 'wg1', 'root'],
    ]);
  });

  test('a non-root SSH user runs tc through sudo -n', async () => {
    const inv = inventory('ubuntu');
    const { shaper, execs } = shaperWith(inv, true);
    await shaper.restore(inv.links[0]);
    expect(execs.get('a')!.runs[0].argv.slice(0, 3)).toEqual(['sudo', '-n', 'tc']);
  });
});
