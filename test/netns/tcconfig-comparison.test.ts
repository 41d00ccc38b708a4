// tcconfig's `tcset` (the tc wrapper the published system shaped its links with; pinned, installed
// by scripts/setup.sh into .cache/tcconfig) against the tc back end (infra/shaping/tc-shaper.ts),
// side by side on this kernel, in two fresh namespaces joined by a veth on the scratch subnet
// 198.19.242.0/24. Each link rule is applied by each, on an interface cleared before, and the
// qdisc/class/filter state `tc` reports is compared: what is the same, and what differs, stated.
// This kernel has no netem and no gact (`action drop`) module: delay stays with the emulator here,
// and what each tool does without netem is asserted exactly, so that the test fails if it changes:
// tcset reports the error and exits 0; ours probes for netem once per node, caps and cuts without
// it, and lists what it could not apply (the inventory's shapingLimits, printed in the report).
// Runs as root.
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { netnsArgv, runHost } from '../../platform/command';
import { deleteNamespaces } from '../../infra/local/namespaces';
import { TcShaper } from '../../infra/shaping/tc-shaper';
import type { Inventory, InventoryNode } from '../../core/inventory';
import type { DirectionConditions } from '../../core/link-conditions';

const A = 'fb-tcA';
const B = 'fb-tcB';
const IFACE_A = 'fb-tcA0';
const IFACE_B = 'fb-tcB0';
const ADDR_A = '198.19.242.1';
const ADDR_B = '198.19.242.2';
/** 198.19.242.2 as u32 matches it: the IPv4 destination is the word at offset 16. */
const DST_B = 'c613f202/ffffffff at 16';
const TCCONFIG = path.resolve(__dirname, '../../.cache/tcconfig/bin');

const node = (name: string, namespace: string, iface: string, address: string, i: number): InventoryNode => ({
  name,
  site: name,
  cloud: 'openstack',
  role: 'data',
  overlayAddress: address,
  exec: { transport: 'netns', namespace },
  wireguard: [{ type: 0, name: iface, address, listenPort: 51820, publicKey: `${String.fromCharCode(64 + i).repeat(43)}=` }],
});
const inventory: Inventory = {
  schemaVersion: 1,
  name: 'fb-tc-compare',
  source: 'file',
  clientNode: 'a',
  shaping: 'tc',
  nodes: [node('a', A, IFACE_A, ADDR_A, 1), node('b', B, IFACE_B, ADDR_B, 2)],
  links: [
    {
      id: 'a-b/0',
      a: 'a',
      b: 'b',
      type: 0,
      latencyMs: 0,
      bandwidthMbps: 100_000,
      ends: [
        { node: 'a', interface: IFACE_A, endpoint: `${ADDR_A}:51820` },
        { node: 'b', interface: IFACE_B, endpoint: `${ADDR_B}:51820` },
      ],
    },
  ],
};
const link = inventory.links[0];
const unshaped: DirectionConditions = { delayMs: 0, bandwidthMbps: null, lossPercent: 0, jitterMs: 0 };
const shaper = new TcShaper(inventory);

const inA = (argv: string[]) => runHost(netnsArgv(A, argv), { allowFailure: true });
const plain = (text: string) => stripVTControlCharacters(text);

/** tcset / tcdel on A's interface: exit code and what it printed (colours removed). */
async function tcconfig(tool: 'tcset' | 'tcdel', ...args: string[]) {
  const result = await inA([path.join(TCCONFIG, tool), IFACE_A, ...args]);
  return { code: result.code, said: plain(result.stdout + result.stderr) };
}

interface TcState {
  root: string;
  classes: { id: string; rate: string; ceil: string; leaf?: string }[];
  leaves: string[];
  filters: { pref: number; matches: string[]; flowid?: string }[];
}

/** A's egress as `tc` shows it, normalized to what a link rule is made of. */
async function stateOfA(): Promise<TcState> {
  const qdiscs = JSON.parse((await inA(['tc', '-j', 'qdisc', 'show', 'dev', IFACE_A])).stdout) as {
    kind: string;
    handle: string;
    root?: boolean;
    parent?: string;
    options?: { default?: string };
  }[];
  const root = qdiscs.find((q) => q.root)!;
  // iproute2 6.1 prints htb classes as text even with -j.
  const classes = (await inA(['tc', 'class', 'show', 'dev', IFACE_A])).stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, id, leaf, rate, ceil] = /^class htb (\S+) .*?(?:leaf (\S+) )?prio \d+ rate (\S+) ceil (\S+)/.exec(line)!;
      return { id, rate, ceil, ...(leaf ? { leaf } : {}) };
    });
  const filters: TcState['filters'] = [];
  for (const line of (await inA(['tc', 'filter', 'show', 'dev', IFACE_A])).stdout.split('\n')) {
    const rule = /^filter parent \S+ protocol ip pref (\d+) u32 chain 0 fh [0-9a-f]+::[0-9a-f]+ .*?(?:flowid (\S+))?(?: not_in_hw)?\s*$/.exec(line);
    if (rule) filters.push({ pref: Number(rule[1]), matches: [], ...(rule[2] ? { flowid: rule[2] } : {}) });
    const match = /^\s+match (\S+ at \d+)/.exec(line);
    if (match) filters[filters.length - 1].matches.push(match[1]);
  }
  return {
    root: `${root.kind} ${root.handle} default ${root.options?.default}`,
    classes,
    leaves: qdiscs.filter((q) => !q.root).map((q) => `${q.kind} ${q.handle} parent ${q.parent}`),
    filters,
  };
}

/** The class the filter matching B's address sends to, as the rule's outcome. */
function ruleForB(state: TcState) {
  const filter = state.filters.find((f) => f.matches.includes(DST_B))!;
  return { filter, target: state.classes.find((c) => c.id === filter.flowid) };
}

async function clearA(): Promise<void> {
  await shaper.clear();
  await inA(['tc', 'qdisc', 'del', 'dev', IFACE_A, 'root']);
  expect((await stateOfA()).root).toBe('noqueue 0: default undefined');
}

const pingsB = async () => (await inA(['ping', '-c', '1', '-W', '1', ADDR_B])).code === 0;

beforeAll(async () => {
  await deleteNamespaces([A, B]);
  await runHost(['ip', 'netns', 'add', A]);
  await runHost(['ip', 'netns', 'add', B]);
  await runHost(['ip', 'link', 'add', IFACE_A, 'netns', A, 'type', 'veth', 'peer', 'name', IFACE_B, 'netns', B]);
  await runHost(['ip', '-n', A, 'addr', 'add', `${ADDR_A}/24`, 'dev', IFACE_A]);
  await runHost(['ip', '-n', B, 'addr', 'add', `${ADDR_B}/24`, 'dev', IFACE_B]);
  await runHost(['ip', '-n', A, 'link', 'set', IFACE_A, 'up']);
  await runHost(['ip', '-n', B, 'link', 'set', IFACE_B, 'up']);
});

afterAll(async () => {
  await deleteNamespaces([A, B]);
});

test('tcconfig is the pinned release', async () => {
  expect((await tcconfig('tcset', '--version')).said.trim()).toBe('tcset 0.30.1');
});

test('a 20 Mbit/s cap toward one peer: the same rate, ceil and u32 match; tcset reports its netem leaf failed yet exits 0', async () => {
  await clearA();
  await shaper.apply(link, { ab: { ...unshaped, bandwidthMbps: 20 }, ba: unshaped });
  const ours = await stateOfA();

  await clearA();
  const tcset = await tcconfig('tcset', '--rate', '20Mbps', '--network', ADDR_B);
  const theirs = await stateOfA();
  await tcconfig('tcdel', '--all');

  // The same: packets for B's address go to a class of rate 20Mbit, ceil 20Mbit.
  expect(ruleForB(ours).target).toMatchObject({ rate: '20Mbit', ceil: '20Mbit' });
  expect(ruleForB(theirs).target).toMatchObject({ rate: '20Mbit', ceil: '20Mbit' });
  expect(ours).toEqual({
    root: 'htb 1: default 0',
    classes: [
      { id: '1:ffff', rate: '100Gbit', ceil: '100Gbit', leaf: 'ffff:' },
      { id: '1:1', rate: '20Mbit', ceil: '20Mbit' },
    ],
    // The cut class's queue of length 0; the link's class keeps htb's own leaf (no netem here).
    leaves: ['pfifo ffff: parent 1:ffff'],
    filters: [{ pref: 32768, matches: [DST_B], flowid: '1:1' }],
  });
  expect(shaper.unappliedConditions()).toEqual([]);
  // What differs: tcset's hashed handle; a default class (unclassified traffic through a 10 Gbit/s
  // class, where ours passes it unshaped); an extra any-source match; its own priority; and no
  // leaf at all: every tcset class gets a netem leaf, which this kernel refuses. tcset says so and
  // still exits 0, so a script that trusts its exit code goes on with the rule half made.
  const handle = theirs.root.split(' ')[1];
  expect(theirs).toEqual({
    root: `htb ${handle} default 0x1`,
    classes: [
      { id: `${handle}1`, rate: '10Gbit', ceil: '10Gbit' },
      { id: `${handle}2`, rate: '20Mbit', ceil: '20Mbit' },
    ],
    leaves: [],
    filters: [{ pref: 5, matches: [DST_B, '00000000/00000000 at 12'], flowid: `${handle}2` }],
  });
  expect(tcset.code).toBe(0);
  expect(tcset.said).toMatch(
    new RegExp(
      `command=\\S*tc qdisc add dev ${IFACE_A} parent ${handle}2 handle [0-9a-f]+: netem\\s+stderr=Error: Specified qdisc kind is unknown\\.`,
    ),
  );
});

test('a delay: tcset reports the missing netem, exits 0 and leaves an undelayed class; ours applies what it can and lists the delay as not applied', async () => {
  await clearA();
  const tcset = await tcconfig('tcset', '--delay', '10ms', '--network', ADDR_B);
  const theirs = await stateOfA();
  await tcconfig('tcdel', '--all');
  expect(tcset.code).toBe(0);
  expect(tcset.said).toMatch(/netem delay 10\.0ms\s+stderr=Error: Specified qdisc kind is unknown\./);
  expect(theirs.leaves).toEqual([]);
  expect(ruleForB(theirs).target).toBeDefined();

  await clearA();
  await shaper.apply(link, { ab: { ...unshaped, delayMs: 10 }, ba: unshaped });
  expect(shaper.unappliedConditions()).toEqual([expect.stringMatching(/^a-b\/0 from a: delay 10 ms not applied \(no netem in the kernel/)]);
  expect((await stateOfA()).leaves).toEqual(['pfifo ffff: parent 1:ffff']);
});

test("a cut of one peer: ours drops its packets through the drop class and restores; tcset's nearest rule, --loss 100%, needs netem and drops nothing", async () => {
  await clearA();
  expect(await pingsB()).toBe(true);
  await shaper.cut(link, 'ab');
  const cut = await stateOfA();
  expect(cut.filters).toContainEqual({ pref: 1, matches: [DST_B], flowid: '1:ffff' });
  expect(await pingsB()).toBe(false);
  await shaper.restore(link, 'ab');
  expect(await pingsB()).toBe(true);

  await clearA();
  const tcset = await tcconfig('tcset', '--loss', '100%', '--network', ADDR_B);
  expect(tcset.code).toBe(0);
  expect(tcset.said).toMatch(/netem loss 100\.0+%\s+stderr=Error: Specified qdisc kind is unknown\./);
  expect(await pingsB()).toBe(true);
  await tcconfig('tcdel', '--all');
});
