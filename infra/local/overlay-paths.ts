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
import { readJson, writePrivate } from '../../platform/files';
import { sleep, waitFor } from '../../platform/wait';
import { nextHopsOf, tincDump, tincRoute, type TincDump } from '../../services/probes/route';
import { NetnsExec } from '../../services/exec/transports';
import { TINC_PORT, endsFrom, namespaceOf, type FleetPlan, type PlannedLink } from './plan';
import { fleetPaths, readState } from './state';
import { staticPaths } from './static-routes';
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

/** Each node's tinc dump, asked for once per call of the returned function's users. */
function tincDumps(): (node: string) => Promise<TincDump> {
  const dumps = new Map<string, Promise<TincDump>>();
  return (node) => {
    const files = { pidFile: fleetPaths.tincPid(node), logFile: fleetPaths.log(`tinc-${node}`) };
    if (!dumps.has(node)) dumps.set(node, tincDump(new NetnsExec(namespaceOf(node)), files));
    return dumps.get(node)!;
  };
}

/** The link of `from`'s edge to `to` in `from`'s dump: the one on which `to` has the edge's address. */
function edgeLink(plan: FleetPlan, dump: TincDump, from: string, to: string): PlannedLink | undefined {
  const address = dump.edges.find((e) => e.from === from && e.to === to)?.address;
  return address === undefined
    ? undefined
    : plan.links.find((l) => pairKey(l.a, l.b) === pairKey(from, to) && endsFrom(l, from).far.meshAddress === address);
}

/**
 * The link each pair's meta connection runs over now: the one link of the pair the dialer has an
 * established TCP connection to tinc's port on (one `ss` per dialer, cheap enough for a ramp's
 * every step), or, where it has several, the one tinc's graph holds (the dialer's edge to the
 * peer in its dump): after a restore tinc was seen keeping the old connection beside the new one
 * and sending over the old (2026-11-26). A pair with neither (reconnecting, cut off) is absent.
 */
export async function metaConnectionLinks(plan: FleetPlan, dumpOf = tincDumps()): Promise<Map<string, PlannedLink>> {
  const inUse = new Map<string, PlannedLink>();
  const dialers = [...new Set(plan.links.map((l) => dialerOf(plan, l.a, l.b)))];
  await Promise.all(
    dialers.map(async (node) => {
      const { stdout } = await runHost(netnsArgv(namespaceOf(node), ['ss', '-Htn', 'state', 'established', 'dport', '=', `:${TINC_PORT}`]));
      const remotes = new Set([...stdout.matchAll(/\s(\d+\.\d+\.\d+\.\d+):\d+\s*$/gm)].map((m) => m[1]));
      const connected = new Map<string, PlannedLink[]>();
      for (const link of plan.links) {
        if (dialerOf(plan, link.a, link.b) !== node || !remotes.has(endsFrom(link, node).far.meshAddress)) continue;
        const key = pairKey(link.a, link.b);
        connected.set(key, [...(connected.get(key) ?? []), link]);
      }
      for (const [key, links] of connected) {
        if (links.length === 1) {
          inUse.set(key, links[0]);
          continue;
        }
        const link = edgeLink(plan, await dumpOf(node), node, endsFrom(links[0], node).far.node);
        if (link) inUse.set(key, link);
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
 * restored); with `everyPair`, every pair of several links is looked at. A pair whose link was
 * just cut is left to tinc: how soon it notices is the failover profile's to say. Returns the
 * pairs made to reconnect.
 *
 * The reconnect is tinc 1.0's own: on SIGHUP it closes the connections whose host file changed
 * since its last reload (by whole-second mtime) and dials its ConnectTo peers again from their
 * first Address. So the files of the pairs to move get an mtime ahead of any reload and every other
 * host file of the signalled node one before its start, whatever the clock did in between.
 */
export async function steerOverlay(settings: NetworkSettings, before: NetworkSettings, options: { everyPair?: boolean } = {}): Promise<string[]> {
  const state = readState();
  // Static routes stay where `up` put them: a stack without an overlay does not re-route.
  if (state?.status !== 'up' || state.plan.stack.overlay === 'none') return [];
  const { plan } = state;
  const restored = (l: PlannedLink) => isCutAnyWay(before, l.id) && !isCutAnyWay(settings, l.id);
  // Files follow the order (a single link's never changes: ramps and traces call this every
  // second); only pairs reordered or with a link back need a look, unless asked for every pair
  // with several links (after `up` and on a reset: tinc's first dial may land on a slower one).
  const candidates = [...pairLinks(plan, settings)].filter(
    ([, links]) => (links.length > 1 && (writeAddresses(links) || options.everyPair === true)) || links.some(restored),
  );
  if (candidates.length === 0) return [];
  const inUse = await metaConnectionLinks(plan);
  const move = candidates.filter(([key, links]) => shouldReconnect(links, inUse.get(key), settings));
  let redialing = move;
  for (let attempt = 1; redialing.length > 0; attempt++) {
    await redial(plan, state.createdAt, redialing);
    // A change of shaping (a ramp's or a trace's step) must not wait: only a restore or a look at
    // every pair checks that the redial took.
    if (attempt === REDIALS || !(options.everyPair || redialing.some(([, links]) => links.some(restored)))) break;
    // tinc's outgoing connection walks its address list from where it last left off, so a redial
    // sometimes lands on the link it had (seen on 2026-11-26 in 1 run of 4): look once each pair
    // is connected again, and redial those still not on their best link.
    const now = await waitFor(
      async () => {
        const links = await metaConnectionLinks(plan);
        return redialing.every(([key]) => links.has(key)) ? links : undefined;
      },
      { what: 'the redialed meta connections', timeoutMs: REDIAL_SETTLE_MS, intervalMs: 100 },
    ).catch(() => undefined);
    if (!now) break; // not back yet: tinc's own reconnect goes on, and the next change looks again
    // A connection just made on a restored link was seen dropped by tinc, the pair back on the
    // slower link (1 run in 11, and once in CI, 2026-11-26; most likely the authentication timeout
    // msUntilEarlyInSecond now avoids): look again after tinc's ping timeout has passed once.
    await sleep(REDIAL_HOLD_MS);
    const held = await metaConnectionLinks(plan);
    redialing = redialing.filter(([key, links]) => shouldReconnect(links, held.get(key), settings));
  }
  return move.map(([key]) => key);
}

/** How many times a pair is made to redial for one change, and how long a redial may take. */
const REDIALS = 3;
const REDIAL_SETTLE_MS = 2_000;
const REDIAL_HOLD_MS = 2_500;

/** Makes each pair's dialer close its connection to the peer and dial again from the first address. */
async function redial(plan: FleetPlan, createdAt: number, pairs: [string, PlannedLink[]][]): Promise<void> {
  const byDialer = new Map<string, PlannedLink[][]>();
  for (const [, links] of pairs) {
    const dialer = dialerOf(plan, links[0].a, links[0].b);
    byDialer.set(dialer, [...(byDialer.get(dialer) ?? []), links]);
  }
  await sleep(msUntilEarlyInSecond(Date.now()));
  const ahead = Math.floor(Date.now() / 1000) + 2;
  const unchanged = Math.floor(createdAt / 1000) - 1;
  for (const [dialer, moving] of byDialer) {
    const movingPeers = new Set(moving.map((links) => endsFrom(links[0], dialer).far.node));
    for (const peer of peersOf(plan, dialer)) {
      const stamp = movingPeers.has(peer) ? ahead : unchanged;
      utimesSync(hostFile(dialer, peer), stamp, stamp);
    }
    await runHost(['kill', '-HUP', readFileSync(fleetPaths.tincPid(dialer), 'utf8').trim()]);
  }
}

/**
 * How long to wait before a redial so that it starts in the first tenth of a whole second. tinc 1.0
 * drops a connection still authenticating once its clock's whole second has moved on by PingTimeout,
 * and clamps PingTimeout to PingInterval (the `fast` profile's 1 s): a redial made late in a second
 * had as little as a few ms for the several round trips of authentication and went on to the next,
 * slower address (2 of 10 overlay-paths runs and 2 CI runs, 2026-11-26: "Timeout ... during
 * authentication" at both ends). tinc's own reconnects start early in a second: its timers fire there.
 */
export function msUntilEarlyInSecond(nowMs: number): number {
  const into = nowMs % 1000;
  return into <= EARLY_IN_SECOND_MS ? 0 : 1000 - into + 5;
}

const EARLY_IN_SECOND_MS = 100;

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
 * forwards them: its next hops, the link of each hop's meta connection as tinc's graph holds it,
 * and whether the hop's packets travel inside that TCP connection (fleets with several connection
 * types run TCPOnly: tinc.ts says why). Unreachable: no hops.
 */
export async function overlayPaths(plan: FleetPlan): Promise<OverlayPath[]> {
  if (plan.stack.overlay === 'none') {
    const settings = readJson<NetworkSettings>(fleetPaths.shaping);
    return staticPaths(plan, (link) => (settings ? isCutAnyWay(settings, link) : false));
  }
  const dumpOf = tincDumps();
  const inUse = await metaConnectionLinks(plan, dumpOf);
  const hopsOf = async (node: string) => nextHopsOf(await dumpOf(node));
  const hopOf = async (from: string, to: string) => {
    const dump = await dumpOf(from);
    const link = edgeLink(plan, dump, from, to) ?? inUse.get(pairKey(from, to));
    return { link: link?.id ?? '?', overTcp: dump.nodes.get(to)?.overTcp ?? false };
  };
  const paths: OverlayPath[] = [];
  for (const [i, a] of plan.nodes.entries()) {
    for (const b of plan.nodes.slice(i + 1)) {
      const hops = await tincRoute(a.name, b.name, hopsOf, plan.nodes.length).catch(() => []);
      const hopViews = await Promise.all(hops.slice(1).map((hop, k) => hopOf(hops[k], hop)));
      const overTcp = hopViews.map((h) => h.overTcp);
      paths.push({ from: a.name, to: b.name, hops, links: hopViews.map((h) => h.link), ...(overTcp.some(Boolean) ? { overTcp } : {}) });
    }
  }
  return paths;
}
