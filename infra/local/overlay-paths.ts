/**
 * Which of the links between two nodes the overlay uses. tinc 1.0 forwards along its graph of
 * meta connections (fewest hops) and keeps one meta connection per pair, made to the first
 * `Address` of the peer's host file that answers and kept until it dies. So the order of those
 * lines decides which of several direct links a pair uses: best first (up before cut, then the
 * shortest round trip now), rewritten on every shaping change, and a pair whose connection sits
 * on a link that is up but no longer the best is made to reconnect at once.
 */
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { isCutAnyWay, type NetworkSettings } from '../../core/network';
import { rankLinks, shouldReconnect } from '../../core/overlay-path';
import { netnsArgv, runHost } from '../../platform/command';
import { writePrivate } from '../../platform/files';
import { nextHops, tincRoute } from '../../services/probes/route';
import { NetnsExec } from '../../services/exec/transports';
import { TINC_PORT, endsFrom, namespaceOf, type FleetPlan, type PlannedLink } from './plan';
import { fleetPaths, readState } from './state';
import type { OverlayPath } from '../../core/overlay-path';

export { formatPath, type OverlayPath } from '../../core/overlay-path';


/** The node of a pair that dials (tinc.conf `ConnectTo`): the one listed first in the topology. */
export function dialerOf(plan: FleetPlan, a: string, b: string): string {
  const index = (name: string) => plan.nodes.find((n) => n.name === name)!.index;
  return index(a) < index(b) ? a : b;
}

const pairKey = (a: string, b: string) => [a, b].sort().join('-');

/** Every pair joined by at least one link, with its links best first. */
export function pairLinks(plan: FleetPlan, settings?: NetworkSettings): Map<string, PlannedLink[]> {
  const pairs = new Map<string, PlannedLink[]>();
  for (const link of rankLinks(plan.links, settings)) pairs.set(pairKey(link.a, link.b), [...(pairs.get(pairKey(link.a, link.b)) ?? []), link]);
  return pairs;
}

/** `Address` lines for a peer, in the order tinc tries them. */
export function addressLines(addresses: string[]): string[] {
  return addresses.map((a) => `Address = ${a} ${TINC_PORT}`);
}

/**
 * The link each pair's meta connection runs over now, read from the dialers' established TCP
 * connections to tinc's port (the remote address is the peer's mesh address on that link's type).
 * A pair without one (reconnecting, or cut off) is absent.
 */
export async function metaConnectionLinks(plan: FleetPlan): Promise<Map<string, PlannedLink>> {
  const inUse = new Map<string, PlannedLink>();
  const dialers = [...new Set(plan.links.map((l) => dialerOf(plan, l.a, l.b)))];
  await Promise.all(
    dialers.map(async (node) => {
      const { stdout } = await runHost(netnsArgv(plan.nodes.find((n) => n.name === node)!.namespace, ['ss', '-Htn', 'state', 'established', 'dport', '=', `:${TINC_PORT}`]));
      const remotes = new Set([...stdout.matchAll(/\s(\d+\.\d+\.\d+\.\d+):\d+\s*$/gm)].map((m) => m[1]));
      for (const link of plan.links) {
        if (dialerOf(plan, link.a, link.b) !== node) continue;
        if (remotes.has(endsFrom(link, node).far.meshAddress)) inUse.set(pairKey(link.a, link.b), link);
      }
    }),
  );
  return inUse;
}

/**
 * Puts every peer's addresses in the order `settings` makes best, and makes the pairs that should
 * move reconnect: those whose meta connection runs over a link that is up but slower than the
 * best by more than the margin, and those reordered or with a link back that have none at all
 * (tinc may be waiting out its reconnect back-off, up to MaxTimeout, before it tries a link just
 * restored). A pair whose link was just cut is left to tinc: how soon it notices is the failover
 * profile's to say. Returns the pairs made to reconnect.
 *
 * The reconnect is tinc 1.0's own: on SIGHUP it closes the connections whose host file changed
 * since its last reload (by whole-second mtime) and dials its ConnectTo peers again from their
 * first Address. So the files of the pairs to move get an mtime ahead of any reload and every other
 * host file of the signalled node one before its start, whatever the clock did in between.
 */
export async function steerOverlay(settings: NetworkSettings, before: NetworkSettings): Promise<string[]> {
  const state = readState();
  if (state?.status !== 'up') return [];
  const { plan } = state;
  const restored = (l: PlannedLink) => isCutAnyWay(before, l.id) && !isCutAnyWay(settings, l.id);
  // Files follow the order (a single link's never changes: ramps and traces call this every
  // second); only pairs reordered or with a link back need a look.
  const candidates = [...pairLinks(plan, settings)].filter(([, links]) => (links.length > 1 && writeAddresses(links)) || links.some(restored));
  if (candidates.length === 0) return [];
  const inUse = await metaConnectionLinks(plan);
  const move = candidates.filter(([key, links]) => shouldReconnect(links, inUse.get(key), settings));
  const byDialer = new Map<string, PlannedLink[][]>();
  for (const [, links] of move) {
    const dialer = dialerOf(plan, links[0].a, links[0].b);
    byDialer.set(dialer, [...(byDialer.get(dialer) ?? []), links]);
  }
  const ahead = Math.floor(Date.now() / 1000) + 2;
  const unchanged = Math.floor(state.createdAt / 1000) - 1;
  for (const [dialer, moving] of byDialer) {
    const movingPeers = new Set(moving.map((links) => endsFrom(links[0], dialer).far.node));
    for (const peer of peersOf(plan, dialer)) {
      const stamp = movingPeers.has(peer) ? ahead : unchanged;
      utimesSync(hostFile(dialer, peer), stamp, stamp);
    }
    await runHost(['kill', '-HUP', readFileSync(fleetPaths.tincPid(dialer), 'utf8').trim()]);
  }
  return move.map(([key]) => key);
}

const hostFile = (node: string, peer: string) => join(fleetPaths.tincDir(node), 'hosts', peer);

function peersOf(plan: FleetPlan, node: string): string[] {
  return [...new Set(plan.links.filter((l) => l.a === node || l.b === node).map((l) => endsFrom(l, node).far.node))];
}

/** Rewrites the Address lines of one pair's host files (each end's file for the other); true if the order changed. */
function writeAddresses(links: PlannedLink[]): boolean {
  let changed = false;
  for (const node of [links[0].a, links[0].b]) {
    const peer = endsFrom(links[0], node).far.node;
    const file = hostFile(node, peer);
    const old = readFileSync(file, 'utf8');
    const rest = old.split('\n').filter((line) => !line.startsWith('Address = '));
    const next = [...addressLines(links.map((l) => endsFrom(l, node).far.meshAddress)), ...rest].join('\n');
    if (next === old) continue;
    writePrivate(file, next);
    changed = true;
  }
  return changed;
}

/**
 * The path each pair's packets take now (from the node listed first to the other), as tinc
 * forwards them: its next hops, and the link of each hop's meta connection. Unreachable: no hops.
 */
export async function overlayPaths(plan: FleetPlan): Promise<OverlayPath[]> {
  const inUse = await metaConnectionLinks(plan);
  const dumps = new Map<string, Promise<Map<string, string>>>();
  const hopsOf = (node: string) => {
    const files = { pidFile: fleetPaths.tincPid(node), logFile: fleetPaths.log(`tinc-${node}`) };
    if (!dumps.has(node)) dumps.set(node, nextHops(new NetnsExec(namespaceOf(node)), files));
    return dumps.get(node)!;
  };
  const paths: OverlayPath[] = [];
  for (const [i, a] of plan.nodes.entries()) {
    for (const b of plan.nodes.slice(i + 1)) {
      const hops = await tincRoute(a.name, b.name, hopsOf, plan.nodes.length).catch(() => []);
      const links = hops.slice(1).map((hop, k) => inUse.get(pairKey(hops[k], hop))?.id ?? '?');
      paths.push({ from: a.name, to: b.name, hops, links });
    }
  }
  return paths;
}
