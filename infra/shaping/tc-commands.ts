/**
 * The exact `tc` commands the tc back end runs, as argv lists (tested as such).
 *
 * Per WireGuard interface: an htb root `1:`, whose unclassified traffic passes unshaped, and a
 * drop class `1:ffff` whose leaf is a `blackhole` qdisc. Per link end (link index k, so ids never
 * collide, unlike tcconfig's hashed ones): class `1:<k+1>` (rate cap), a u32 filter at prio
 * 0x8000+k sending packets for the peer's mesh address into it, and a leaf that is netem only
 * while the end has a delay, jitter or loss (a pfifo otherwise), so that rate caps and cuts need no
 * netem: kernels without it (this machine's) shape rates and cut links, and delay stays with the
 * emulator there. While the link is cut, a u32 filter at prio k+1, looked at before every shaping
 * filter, sends the peer's packets to the drop class. A blackhole leaf rather than `action drop`:
 * sch_blackhole is built into every kernel with traffic control, the gact action module is not
 * (this machine lacks it). The drop filter cuts exactly one link: bringing the WireGuard interface
 * down would cut every link of that connection type on the node, and removing the WireGuard peer
 * would lose its handshake state and endpoint.
 */

/** What one end of a link needs: its interface, the peer's mesh address, and the link's index. */
export interface TcEnd {
  iface: string;
  peerAddress: string;
  linkIndex: number;
}

export interface TcShape {
  delayMs: number;
  /** null: no cap (the class gets NO_CAP_MBIT). */
  rateMbps: number | null;
  lossPercent: number;
  /** Standard deviation of the delay (netem `delay D J distribution normal`); 0: none. */
  jitterMs: number;
}

/** htb needs a rate: "no cap" is one no WireGuard tunnel reaches. */
export const NO_CAP_MBIT = 100_000;
/** The 0x8000 split leaves 32767 links: cut filters below it, shaping filters above. */
export const MAX_TC_LINKS = 0x7fff;
const SHAPE_PRIO_BASE = 0x8000;
/** Above every link's class (at most 1:8000). */
export const DROP_CLASS = '1:ffff';
/** Full-size WireGuard packets, for sizing netem's queue. */
const PACKET_BITS = 1500 * 8;

const hex = (n: number) => n.toString(16);

export function classId(end: TcEnd): string {
  return `1:${hex(end.linkIndex + 1)}`;
}

export function cutPrio(end: TcEnd): string {
  return String(end.linkIndex + 1);
}

export function shapePrio(end: TcEnd): string {
  return String(end.linkIndex + SHAPE_PRIO_BASE);
}

const mbit = (rate: number) => `${Number(rate.toFixed(3))}mbit`;
const ms = (delay: number) => `${Number(delay.toFixed(3))}ms`;

/**
 * netem holds every packet in flight for the delay: its queue must hold a bandwidth-delay product
 * (twice, for bursts), or it drops packets that a real long link would carry.
 */
export function netemLimit(shape: TcShape): number {
  const rate = (shape.rateMbps ?? NO_CAP_MBIT) * 1e6;
  return Math.max(1000, Math.ceil(((rate * shape.delayMs) / 1000 / PACKET_BITS) * 2));
}

/** The htb root and its drop class (a blackhole leaf). */
export function rootCommands(iface: string): string[][] {
  return [
    ['tc', 'qdisc', 'add', 'dev', iface, 'root', 'handle', '1:', 'htb'],
    ['tc', 'class', 'add', 'dev', iface, 'parent', '1:', 'classid', DROP_CLASS, 'htb', 'rate', '1mbit', 'ceil', '1mbit'],
    ['tc', 'qdisc', 'add', 'dev', iface, 'parent', DROP_CLASS, 'blackhole'],
  ];
}

export function showRootCommand(iface: string): string[] {
  return ['tc', 'qdisc', 'show', 'dev', iface, 'root'];
}

export function deleteRootCommand(iface: string): string[] {
  return ['tc', 'qdisc', 'del', 'dev', iface, 'root'];
}

function classArgs(end: TcEnd, shape: TcShape): string[] {
  const rate = mbit(shape.rateMbps ?? NO_CAP_MBIT);
  return ['dev', end.iface, 'parent', '1:', 'classid', classId(end), 'htb', 'rate', rate, 'ceil', rate];
}

/** netem only for what only netem does: an end with no delay, jitter or loss needs none. */
export function needsNetem(shape: TcShape): boolean {
  return shape.delayMs > 0 || shape.jitterMs > 0 || shape.lossPercent > 0;
}

/**
 * The end's leaf, by `qdisc replace` without a handle: the kernel changes a leaf of the same kind
 * in place and swaps one of another kind (netem <-> pfifo) for a new one.
 */
function leafCommand(end: TcEnd, shape: TcShape): string[] {
  const leaf = ['tc', 'qdisc', 'replace', 'dev', end.iface, 'parent', classId(end)];
  if (!needsNetem(shape)) return [...leaf, 'pfifo', 'limit', String(netemLimit(shape))];
  const loss = shape.lossPercent > 0 ? ['loss', `${shape.lossPercent}%`] : [];
  // netem reorders packets whose drawn delays cross; the emulator keeps order. On VMs that
  // difference stays (netem has no in-order jitter), and the README says so.
  const jitter = shape.jitterMs > 0 ? [ms(shape.jitterMs), 'distribution', 'normal'] : [];
  return [...leaf, 'netem', 'delay', ms(shape.delayMs), ...jitter, ...loss, 'limit', String(netemLimit(shape))];
}

/** Creates an end's class and classifying filter (once, when the root is new); its leaf is htb's default until shaped. */
export function setupEndCommands(end: TcEnd, shape: TcShape): string[][] {
  return [
    ['tc', 'class', 'add', ...classArgs(end, shape)],
    ['tc', 'filter', 'add', 'dev', end.iface, 'parent', '1:', 'protocol', 'ip', 'prio', shapePrio(end), 'u32', 'match', 'ip', 'dst', `${end.peerAddress}/32`, 'flowid', classId(end)],
  ];
}

/** Changes an end's shape in place: no moment without shaping, filters untouched. */
export function shapeEndCommands(end: TcEnd, shape: TcShape): string[][] {
  return [['tc', 'class', 'change', ...classArgs(end, shape)], leafCommand(end, shape)];
}

export function cutEndCommand(end: TcEnd): string[] {
  return ['tc', 'filter', 'add', 'dev', end.iface, 'parent', '1:', 'protocol', 'ip', 'prio', cutPrio(end), 'u32', 'match', 'ip', 'dst', `${end.peerAddress}/32`, 'flowid', DROP_CLASS];
}

export function restoreEndCommand(end: TcEnd): string[] {
  return ['tc', 'filter', 'del', 'dev', end.iface, 'parent', '1:', 'protocol', 'ip', 'prio', cutPrio(end)];
}

/** `tc -batch` input line for an argv built above (drops the leading `tc`). */
export function batchLine(argv: string[]): string {
  return argv.slice(1).join(' ');
}
