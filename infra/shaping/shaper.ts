/**
 * Link shaping: one interface, two back ends. The emulator back end drives the local fleet's WAN
 * emulator; the tc back end writes htb rules (netem only where a delay, jitter or loss asks for
 * it) on the WireGuard interfaces of VMs (each end shapes what it sends: end a the a -> b
 * direction, end b the way back). Each direction has its
 * own delay, jitter, cap and loss; a cut is separate from the shape (and may take one direction
 * only), so restoring a link brings back whatever shape it had.
 */
import type { InventoryLink } from '../../core/inventory';
import type { Direction, LinkConditions } from '../../core/link-conditions';

export interface ShapeItem {
  link: InventoryLink;
  conditions: LinkConditions;
}

export interface LinkShaper {
  /** Replaces the link's shape, each direction as given. */
  apply(link: InventoryLink, conditions: LinkConditions): Promise<void>;
  /** Shapes many links at once (a latency or bandwidth epoch). */
  applyMany(items: ShapeItem[]): Promise<void>;
  /** Drops every packet on the link in one direction, or both ways when none is given, until restored. */
  cut(link: InventoryLink, direction?: Direction): Promise<void>;
  restore(link: InventoryLink, direction?: Direction): Promise<void>;
  /** Restarts every direction's loss and jitter draws of these links from `seed` (each direction mixes in its own name). */
  seedDraws(links: InventoryLink[], seed: number): Promise<void>;
  /** Removes every shape and every cut. */
  clear(): Promise<void>;
}

/** Both directions alike, as most links are: give the round trip or the one-way delay. */
export interface SymmetricShape {
  /** One-way delay in ms, added in each direction; or give rttMs. */
  delayMs?: number;
  /** Round-trip latency in ms (what ping reports), split evenly over the two directions. */
  rttMs?: number;
  /** Bandwidth cap per direction in Mbit/s; absent or null = no cap. */
  rateMbps?: number | null;
  /** Random loss per direction, 0..100. */
  lossPercent?: number;
  jitterMs?: number;
}

export function symmetric(shape: SymmetricShape): LinkConditions {
  if (shape.delayMs !== undefined && shape.rttMs !== undefined) {
    throw new Error('give either delayMs (one way) or rttMs (round trip), not both');
  }
  const direction = {
    delayMs: shape.delayMs ?? (shape.rttMs ?? 0) / 2,
    bandwidthMbps: shape.rateMbps ?? null,
    lossPercent: shape.lossPercent ?? 0,
    jitterMs: shape.jitterMs ?? 0,
  };
  return { ab: direction, ba: { ...direction } };
}
