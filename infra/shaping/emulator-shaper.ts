/**
 * The emulator back end, for the local fleet: each direction gets its one-way delay less half
 * the RTT the overlay itself adds (WireGuard, tinc, the relay's own cost; measured at
 * `up`), so that ping over the overlay reports the configured figure; and the rate cap is raised by the
 * bytes tinc and WireGuard add, so that iperf3 over the overlay measures the configured bandwidth.
 */
import type { InventoryLink } from '../../core/inventory';
import { DIRECTIONS, type Direction, type DirectionConditions, type LinkConditions } from '../../core/link-conditions';
import { EmulatorClient, type ShapingChange } from '../local/emulator-client';
import type { LinkShaper, ShapeItem } from './shaper';

/** What the fleet's own layers add, which the emulator leaves out. */
export interface OverlayCost {
  /** RTT the overlay adds to an emulated link's delay. */
  baseRttMs: number;
  /** Relayed bytes per byte of TCP payload on the overlay. */
  relayBytesPerPayloadByte: number;
}

export const NO_OVERLAY_COST: OverlayCost = { baseRttMs: 0, relayBytesPerPayloadByte: 1 };

/** The emulator change that gives one direction of a link its conditions. */
export function emulatorSetting(link: InventoryLink, dir: Direction, d: DirectionConditions, cost: OverlayCost): ShapingChange {
  return {
    link: link.id,
    dir,
    delayMs: Math.max(0, d.delayMs - cost.baseRttMs / 2),
    rateMbps: d.bandwidthMbps ? d.bandwidthMbps * cost.relayBytesPerPayloadByte : null,
    lossPercent: d.lossPercent,
    jitterMs: d.jitterMs,
  };
}

/** Both directions' changes of a link. */
export function emulatorSettings(link: InventoryLink, conditions: LinkConditions, cost: OverlayCost): ShapingChange[] {
  return DIRECTIONS.map((dir) => emulatorSetting(link, dir, conditions[dir], cost));
}

export class EmulatorShaper implements LinkShaper {
  private readonly client: EmulatorClient;

  constructor(
    socketPath: string,
    private readonly cost = NO_OVERLAY_COST,
  ) {
    this.client = new EmulatorClient(socketPath);
  }

  async apply(link: InventoryLink, conditions: LinkConditions): Promise<void> {
    await this.client.setMany(emulatorSettings(link, conditions, this.cost));
  }

  async applyMany(items: ShapeItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.client.setMany(items.flatMap(({ link, conditions }) => emulatorSettings(link, conditions, this.cost)));
  }

  async cut(link: InventoryLink, direction?: Direction): Promise<void> {
    await this.client.cut(link.id, direction);
  }

  async restore(link: InventoryLink, direction?: Direction): Promise<void> {
    await this.client.restore(link.id, direction);
  }

  async seedDraws(links: InventoryLink[], seed: number): Promise<void> {
    // fb-wan mixes each direction's link id and name into the seed, so one seed keeps the links' drops independent.
    if (links.length > 0) await this.client.setMany(links.map((link) => ({ link: link.id, dir: 'both' as const, seed })));
  }

  async clear(): Promise<void> {
    const stats = await this.client.stats();
    await Promise.all(stats.filter((s) => s.cut).map((s) => this.client.restore(s.id)));
    const unshaped = { dir: 'both' as const, delayMs: 0, rateMbps: null, lossPercent: 0, jitterMs: 0 };
    if (stats.length > 0) await this.client.setMany(stats.map((s) => ({ link: s.id, ...unshaped })));
  }
}
