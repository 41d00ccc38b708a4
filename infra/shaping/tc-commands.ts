/**
 * The exact `tc` commands the tc back end runs, as argv lists (tested as such).
 *
 * Per WireGuard interface: an htb root `1:`; unclassified traffic passes unshaped; and the cut
 * class `1:ffff`, whose pfifo of length 0 drops every packet sent to it. Per link end (link index
 * k, so ids never collide, unlike tcconfig's random ones): class `1:<k+1>` (rate cap), a netem
 * child `<k+0x100>:` (delay, loss), a u32 filter at prio 0x8000+k sending packets for the peer's
 * mesh address into the class, and, while the link is cut, a u32 filter at prio k+1, looked at
 * before every shaping filter, sending them into the cut class. The cut filter cuts exactly one
 * link: bringing the WireGuard interface down would cut every link of that connection type on the
 * node, and removing the WireGuard peer would lose its handshake state and endpoint. A class, not
 * a filter's `action drop`: that needs the gact action module, which not every kernel has (this
 * host's has none); htb and pfifo are there wherever the back end works at all.
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
const NETEM_HANDLE_BASE = 0x100;
/** Full-size WireGuard packets, for sizing netem's queue. */
const PACKET_BITS = 1500 * 8;

const hex = (n: number) => n.toString(16);

export function classId(end: TcEnd): string {
  return `1:${hex(end.linkIndex + 1)}`;
}

export function netemHandle(end: TcEnd): string {
  return `${hex(end.linkIndex + NETEM_HANDLE_BASE)}:`;
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

/** Beyond every link's class (1:1 … 1:8000) and netem handle (100: … 80ff:). */
export const CUT_CLASS = '1:ffff';
const CUT_HANDLE = 'ffff:';

export function rootCommand(iface: string): string[] {
  return ['tc', 'qdisc', 'add', 'dev', iface, 'root', 'handle', '1:', 'htb'];
}

/** The root, then the cut class and its queue of length 0. */
export function rootCommands(iface: string): string[][] {
  const rate = mbit(NO_CAP_MBIT);
  return [
    rootCommand(iface),
    ['tc', 'class', 'add', 'dev', iface, 'parent', '1:', 'classid', CUT_CLASS, 'htb', 'rate', rate, 'ceil', rate],
    ['tc', 'qdisc', 'add', 'dev', iface, 'parent', CUT_CLASS, 'handle', CUT_HANDLE, 'pfifo', 'limit', '0'],
  ];
}

/** Every qdisc of the interface: whether our root is there, and netem children under it. */
export function showQdiscsCommand(iface: string): string[] {
  return ['tc', 'qdisc', 'show', 'dev', iface];
}

export function deleteRootCommand(iface: string): string[] {
  return ['tc', 'qdisc', 'del', 'dev', iface, 'root'];
}

function classArgs(end: TcEnd, shape: TcShape): string[] {
  const rate = mbit(shape.rateMbps ?? NO_CAP_MBIT);
  return ['dev', end.iface, 'parent', '1:', 'classid', classId(end), 'htb', 'rate', rate, 'ceil', rate];
}

function netemArgs(end: TcEnd, shape: TcShape): string[] {
  const loss = shape.lossPercent > 0 ? ['loss', `${shape.lossPercent}%`] : [];
  // netem reorders packets whose drawn delays cross; the emulator keeps order. On VMs that
  // difference stays (netem has no in-order jitter), and the README says so.
  const jitter = shape.jitterMs > 0 ? [ms(shape.jitterMs), 'distribution', 'normal'] : [];
  return [
    'dev',
    end.iface,
    'parent',
    classId(end),
    'handle',
    netemHandle(end),
    'netem',
    'delay',
    ms(shape.delayMs),
    ...jitter,
    ...loss,
    'limit',
    String(netemLimit(shape)),
  ];
}

/**
 * Creates an end's class, netem and classifying filter (once, when the root is new). Without
 * netem (a kernel that lacks it) the class alone caps the rate; delay, loss and jitter stay unset.
 */
export function setupEndCommands(end: TcEnd, shape: TcShape, netem = true): string[][] {
  return [
    ['tc', 'class', 'add', ...classArgs(end, shape)],
    ...(netem ? [['tc', 'qdisc', 'add', ...netemArgs(end, shape)]] : []),
    [
      'tc',
      'filter',
      'add',
      'dev',
      end.iface,
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      shapePrio(end),
      'u32',
      'match',
      'ip',
      'dst',
      `${end.peerAddress}/32`,
      'flowid',
      classId(end),
    ],
  ];
}

/** Changes an end's shape in place: no moment without shaping, filters untouched. */
export function shapeEndCommands(end: TcEnd, shape: TcShape, netem = true): string[][] {
  return [['tc', 'class', 'change', ...classArgs(end, shape)], ...(netem ? [['tc', 'qdisc', 'change', ...netemArgs(end, shape)]] : [])];
}

/**
 * Whether the kernel has netem, asked on an interface that has no root qdisc of ours yet: a netem
 * root added and taken away again.
 */
export function netemProbeCommands(iface: string): string[][] {
  return [['tc', 'qdisc', 'add', 'dev', iface, 'root', 'handle', '1:', 'netem', 'delay', '0ms'], deleteRootCommand(iface)];
}

/** tc's answer when a qdisc's module is not in the kernel. */
export const UNKNOWN_QDISC = 'Specified qdisc kind is unknown';

export function cutEndCommand(end: TcEnd): string[] {
  return [
    'tc',
    'filter',
    'add',
    'dev',
    end.iface,
    'parent',
    '1:',
    'protocol',
    'ip',
    'prio',
    cutPrio(end),
    'u32',
    'match',
    'ip',
    'dst',
    `${end.peerAddress}/32`,
    'flowid',
    CUT_CLASS,
  ];
}

export function restoreEndCommand(end: TcEnd): string[] {
  return ['tc', 'filter', 'del', 'dev', end.iface, 'parent', '1:', 'protocol', 'ip', 'prio', cutPrio(end)];
}

/** `tc -batch` input line for an argv built above (drops the leading `tc`). */
export function batchLine(argv: string[]): string {
  return argv.slice(1).join(' ');
}
