/**
 * In-run RTT probes: while the workload runs, a few node pairs a second, in rotation, are pinged
 * once over the overlay, and each reply is set beside the RTT the scenario configured for that
 * pair at that moment (the fastest direct link that is not cut, at the current latency scale).
 * Only pairs with a direct link are probed: over several hops the overlay's path choice is what
 * a probe would measure, and that is another question. A probe is one 64-byte echo: its own
 * traffic is negligible next to the workload's.
 */
import type { Inventory, InventoryLink } from '../../core/inventory';
import { conditionsOf, isCutAnyWay, type NetworkSettings } from '../../core/network';
import { roundTripMs } from '../../core/link-conditions';
import type { OverlayPath } from '../../core/overlay-path';

export type { RttProbe } from '../../core/verdict';

export interface ProbePair {
  from: string;
  to: string;
  /** The overlay address pinged. */
  address: string;
  /** The direct links between the two. */
  links: InventoryLink[];
}

/** Ordered pairs among `nodes` (the cluster and the client) that have a direct link, in a fixed order. */
export function probePairs(inventory: Inventory, nodes: string[]): ProbePair[] {
  const pairs: ProbePair[] = [];
  for (const from of nodes) {
    for (const to of nodes) {
      if (from === to) continue;
      const links = inventory.links.filter((l) => (l.a === from && l.b === to) || (l.a === to && l.b === from));
      const target = inventory.nodes.find((n) => n.name === to);
      if (links.length > 0 && target) pairs.push({ from, to, address: target.overlayAddress, links });
    }
  }
  return pairs;
}

/** What the scenario asks of the pair now: the fastest uncut direct link's RTT; undefined if all are cut. */
export function configuredRttMs(pair: ProbePair, settings: NetworkSettings): number | undefined {
  const up = pair.links.filter((l) => !isCutAnyWay(settings, l.id));
  if (up.length === 0) return undefined;
  return Math.min(...up.map((l) => roundTripMs(conditionsOf(l, settings))));
}

/**
 * What a probe of the pair should measure now. Where the overlay's path is known, the RTT of the
 * direct link tinc actually uses: which of a pair's links tinc takes, and when it leaves one, is
 * the overlay's behaviour (under `tinc-defaults` it stays on a slower link, or a cut one for up
 * to a minute, as published), not the emulator's accuracy, which is what the probes judge. A pair
 * whose packets go round through another node, or still to a cut link, is not probed: undefined.
 * Without a known path (or link), the fastest uncut direct link, as the overlay is steered to use.
 */
export function expectedRttMs(pair: ProbePair, settings: NetworkSettings, path?: OverlayPath): number | undefined {
  if (!path) return configuredRttMs(pair, settings);
  if (path.hops.length !== 2) return undefined;
  const link = pair.links.find((l) => l.id === path.links[0]);
  // A direct hop whose link tinc's dump does not name right now (`?`): as steered.
  if (!link) return configuredRttMs(pair, settings);
  return isCutAnyWay(settings, link.id) ? undefined : roundTripMs(conditionsOf(link, settings));
}

/** The next `count` pairs after `cursor`, wrapping; returns them and the new cursor. */
export function nextPairs<T>(pairs: T[], cursor: number, count: number): { batch: T[]; cursor: number } {
  if (pairs.length === 0) return { batch: [], cursor: 0 };
  const batch = Array.from({ length: Math.min(count, pairs.length) }, (_, i) => pairs[(cursor + i) % pairs.length]);
  return { batch, cursor: (cursor + batch.length) % pairs.length };
}
