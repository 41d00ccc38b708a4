/**
 * Which network stack a local fleet runs between its nodes. The published one (the default, and
 * what reproductions run) is tinc over a WireGuard mesh, every datagram through the WAN emulator.
 * Two lighter ones cost less per operation, for studies of the databases rather than the overlay:
 *   - `overlay: none`: no tinc; each node reaches another over their fastest direct link by a
 *     static route. Nothing re-routes around a cut link: its pair is cut off.
 *   - `encryption: off`: the mesh links are kernel VXLAN devices instead of WireGuard daemons; the
 *     datagrams are not encrypted, and still cross the emulator.
 * Pure: the topology names it, a run may override it, the plan and the inventory carry it.
 */
export type OverlayKind = 'tinc' | 'none';
export type EncryptionKind = 'wireguard' | 'off';

export interface Stack {
  overlay: OverlayKind;
  encryption: EncryptionKind;
}

/** What a topology or a run writes: either part may be left to the default. */
export type StackChoice = Partial<Stack>;

export const PUBLISHED_STACK: Stack = { overlay: 'tinc', encryption: 'wireguard' };

/** The stack a fleet runs: each later choice over the earlier ones (the topology's, then a run's) over the published one. */
export function resolveStack(...choices: (StackChoice | undefined)[]): Stack {
  const stack = { ...PUBLISHED_STACK };
  for (const choice of choices) {
    if (choice?.overlay) stack.overlay = choice.overlay;
    if (choice?.encryption) stack.encryption = choice.encryption;
  }
  return stack;
}

/** Why a fleet cannot run `stack`, or undefined: without an overlay only directly linked nodes reach each other. */
export function stackProblem(stack: Stack, nodes: string[], links: { a: string; b: string }[]): string | undefined {
  if (stack.overlay === 'tinc') return undefined;
  const missing = unlinkedPairs(nodes, links);
  if (missing.length === 0) return undefined;
  const listed =
    missing
      .slice(0, 4)
      .map(([a, b]) => `${a}-${b}`)
      .join(', ') + (missing.length > 4 ? `, and ${missing.length - 4} more` : '');
  return `overlay none routes only over direct links, and ${listed} have none: link every pair, or use overlay tinc (which forwards through other nodes)`;
}

export function isPublishedStack(stack: Stack): boolean {
  return stack.overlay === PUBLISHED_STACK.overlay && stack.encryption === PUBLISHED_STACK.encryption;
}

/** How a result names the stack, e.g. `tinc over WireGuard` or `static routes over VXLAN (no encryption)`. */
export function describeStack(stack: Stack): string {
  const overlay = stack.overlay === 'tinc' ? 'tinc' : 'static routes';
  const mesh = stack.encryption === 'wireguard' ? 'WireGuard' : 'VXLAN (no encryption)';
  return `${overlay} over ${mesh}`;
}

/** What a light stack changes in what a run measures, for the report. */
export function stackEffect(stack: Stack): string {
  const parts = [];
  if (stack.overlay === 'none') parts.push('nothing re-routes around a cut link');
  if (stack.encryption === 'off') parts.push('the links carry the traffic unencrypted');
  parts.push('each operation costs the host less CPU');
  return parts.join('; ');
}

/** Node pairs with no direct link: on `overlay: none` they cannot reach each other (nothing forwards). */
export function unlinkedPairs(nodes: string[], links: { a: string; b: string }[]): [string, string][] {
  const linked = new Set(links.flatMap((l) => [`${l.a}\0${l.b}`, `${l.b}\0${l.a}`]));
  return nodes.flatMap((a, i) =>
    nodes
      .slice(i + 1)
      .filter((b) => !linked.has(`${a}\0${b}`))
      .map((b): [string, string] => [a, b]),
  );
}
