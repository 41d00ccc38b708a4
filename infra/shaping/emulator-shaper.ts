/**
 * The emulator back end, for the local fleet: each link's two directions get half the RTT each,
 * less half the RTT the overlay itself adds (WireGuard, tinc, the relay's own cost; measured at
 * `up`), so that ping over the overlay reports the configured figure; and the rate cap is raised by the
 * bytes tinc and WireGuard add, so that iperf3 over the overlay measures the configured bandwidth.
 */
import type { InventoryLink } from '../../core/inventory';
import { EmulatorClient, type ShapingChange } from '../local/emulator-client';
import { oneWayDelayMs, type LinkShape, type LinkShaper, type ShapeItem } from './shaper';

/** What the fleet's own layers add, which the emulator leaves out. */
export interface OverlayCost {
  /** RTT the overlay adds to an emulated link's delay. */
  baseRttMs: number;
  /** Relayed bytes per byte of TCP payload on the overlay. */
  relayBytesPerPayloadByte: number;
}

export const NO_OVERLAY_COST: OverlayCost = { baseRttMs: 0, relayBytesPerPayloadByte: 1 };

/** The emulator change that gives a link a shape, both directions alike. */
export function emulatorSetting(link: InventoryLink, shape: LinkShape, cost: OverlayCost): ShapingChange {
  return {
    link: link.id,
    dir: 'both',
    delayMs: Math.max(0, oneWayDelayMs(shape) - cost.baseRttMs / 2),
    rateMbps: shape.rateMbps ? shape.rateMbps * cost.relayBytesPerPayloadByte : null,
    lossPercent: shape.lossPercent ?? 0,
  };
}

export class EmulatorShaper implements LinkShaper {
  private readonly client: EmulatorClient;

  constructor(
    socketPath: string,
    private readonly cost = NO_OVERLAY_COST,
  ) {
    this.client = new EmulatorClient(socketPath);
  }

  async apply(link: InventoryLink, shape: LinkShape): Promise<void> {
    await this.client.set(emulatorSetting(link, shape, this.cost));
  }

  async applyMany(items: ShapeItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.client.setMany(items.map(({ link, shape }) => emulatorSetting(link, shape, this.cost)));
  }

  async cut(link: InventoryLink): Promise<void> {
    await this.client.cut(link.id);
  }

  async restore(link: InventoryLink): Promise<void> {
    await this.client.restore(link.id);
  }

  async clear(): Promise<void> {
    const stats = await this.client.stats();
    await Promise.all(stats.filter((s) => s.cut).map((s) => this.client.restore(s.id)));
    const unshaped = { dir: 'both' as const, delayMs: 0, rateMbps: null, lossPercent: 0 };
    if (stats.length > 0) await this.client.setMany(stats.map((s) => ({ link: s.id, ...unshaped })));
  }
}
