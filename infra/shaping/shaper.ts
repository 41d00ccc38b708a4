/**
 * Link shaping: one interface, two back ends. The emulator back end drives the local fleet's WAN
 * emulator; the tc back end writes htb + netem rules on the WireGuard interfaces of VMs.
 * A link's shape is the same in both directions; a cut is separate from the shape, so restoring a
 * link brings back whatever shape it had.
 */
import type { InventoryLink } from '../../core/inventory';

export interface LinkShape {
  /** One-way delay in ms, added in each direction; or give rttMs. */
  delayMs?: number;
  /** Round-trip latency in ms (what ping reports), split evenly over the two directions. */
  rttMs?: number;
  /** Bandwidth cap per direction in Mbit/s; absent or null = no cap. */
  rateMbps?: number | null;
  /** Random loss per direction, 0..100. */
  lossPercent?: number;
}

export interface ShapeItem {
  link: InventoryLink;
  shape: LinkShape;
}

export interface LinkShaper {
  /** Replaces the link's shape (fields left out mean: no delay, no cap, no loss). */
  apply(link: InventoryLink, shape: LinkShape): Promise<void>;
  /** Shapes many links at once (a latency or bandwidth epoch). */
  applyMany(items: ShapeItem[]): Promise<void>;
  /** Drops every packet on the link, both ways, until restored. */
  cut(link: InventoryLink): Promise<void>;
  restore(link: InventoryLink): Promise<void>;
  /** Removes every shape and every cut. */
  clear(): Promise<void>;
}

/** The one-way delay a shape asks for. */
export function oneWayDelayMs(shape: LinkShape): number {
  if (shape.delayMs !== undefined && shape.rttMs !== undefined) {
    throw new Error('give either delayMs (one way) or rttMs (round trip), not both');
  }
  return shape.delayMs ?? (shape.rttMs ?? 0) / 2;
}
