/**
 * The path one pair's packets take on the overlay, as tinc forwards them, and a run's record of
 * those paths over time: each pair's path at a phase's start, then every change; and which of
 * several links joining a pair it should use (the local fleet and VM fleets steer tinc by it).
 */
import { REFERENCE_SETTINGS, conditionsOf, isCutAnyWay, type NetworkSettings } from './network';
import type { LinkReferenceConditions } from './link-conditions';

/** The way one node's packets take to another: the nodes in turn and the link between each two. */
export interface OverlayPath {
  from: string;
  to: string;
  hops: string[];
  /** Link id between hops i and i+1, the one its packets cross (by the UDP address tinc sends
   *  them to, else its meta connection's); `?` where neither is known right now. */
  links: string[];
  /** Present when a hop's packets travel inside tinc's TCP meta connection (no UDP way found):
   *  true for those hops. TCP in TCP changes what a database's traffic sees (a lost segment holds
   *  up everything behind it), so a report says so. */
  overTcp?: boolean[];
}

/**
 * What every tinc overlay of the project (the local fleet's, the stacks') carries: IPv4 unicast
 * to the nodes' /32 subnets, nothing else. By default tinc 1.0 in router mode also floods
 * multicast and broadcast (the IPv6 link-local traffic the kernel sends on the interface, any
 * 224.0.0.0/4 datagram) to every node along its spanning tree, without a hop limit, so a packet
 * caught in a forwarding loop would circle for good. `Broadcast = no` stops the flooding, and the
 * overlay interface gets no IPv6, so the kernel sends nothing of the kind into it.
 */
export const TINC_UNICAST_ONLY = 'Broadcast = no';
/** tinc-up's first line, before the interface is up (a kernel without IPv6 has no such file). */
export const OVERLAY_WITHOUT_IPV6 = 'f=/proc/sys/net/ipv6/conf/"$INTERFACE"/disable_ipv6; [ ! -w "$f" ] || echo 1 > "$f"';

/** A pair's path from `time` (epoch ms) on. */
export interface PathChange extends OverlayPath {
  time: number;
}

/** `pa =pa-pc/1=> pc` (`=pa-pc/1 tcp=>` for a hop inside tinc's TCP connection), or `unreachable`. */
export function formatPath(path: OverlayPath): string {
  if (path.hops.length === 0) return 'unreachable';
  return path.hops.map((hop, i) => (i === 0 ? hop : `=${path.links[i - 1]}${path.overTcp?.[i - 1] ? ' tcp' : ''}=> ${hop}`)).join(' ');
}

/** `a-b`, the key of a pair whichever way it is named. */
export const pairName = (path: Pick<OverlayPath, 'from' | 'to'>) => `${path.from}-${path.to}`;

/** The paths that differ from `before` (each pair's last path, by pairName; every path when empty), stamped with `time`. */
export function pathChanges(before: Map<string, OverlayPath>, now: OverlayPath[], time: number): PathChange[] {
  const changed = (p: OverlayPath) => {
    const was = before.get(pairName(p));
    return was === undefined || formatPath(was) !== formatPath(p);
  };
  return now.filter(changed).map((p) => ({ time, ...p }));
}

/**
 * A switch costs the pair a reconnect (a few round trips on the way round, or lost packets where
 * there is none): not worth it for less than this, and links of equal latency never flap.
 */
const SWITCH_MARGIN_MS = 1;

/** What ranking needs of a link: a planned one (local) or an inventory's (VMs). */
type RankedLink = { id: string; type: number } & LinkReferenceConditions;

/** A link's round trip now (both directions' emulated delays). */
export function roundTripMs(link: RankedLink, settings: NetworkSettings = REFERENCE_SETTINGS): number {
  const { ab, ba } = conditionsOf(link, settings);
  return ab.delayMs + ba.delayMs;
}

/** Links best first: those carrying packets both ways, then the shortest round trip, then by type. */
export function rankLinks<L extends RankedLink>(links: L[], settings: NetworkSettings = REFERENCE_SETTINGS): L[] {
  const key = (l: L) => [isCutAnyWay(settings, l.id) ? 1 : 0, roundTripMs(l, settings), l.type];
  return [...links].sort((x, y) => {
    const [kx, ky] = [key(x), key(y)];
    return kx[0] - ky[0] || kx[1] - ky[1] || kx[2] - ky[2];
  });
}

/**
 * Whether a pair, its links ranked best first, should reconnect now that its meta connection runs
 * over `now` (none: reconnecting or cut off): not while its best link is cut (tinc finds the way
 * round itself), and not for less than the margin.
 */
export function shouldReconnect<L extends RankedLink>(ranked: L[], now: L | undefined, settings: NetworkSettings): boolean {
  const best = ranked[0];
  if (isCutAnyWay(settings, best.id)) return false;
  return !now || (!isCutAnyWay(settings, now.id) && roundTripMs(now, settings) - roundTripMs(best, settings) > SWITCH_MARGIN_MS);
}
