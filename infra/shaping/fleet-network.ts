/**
 * A fleet's network as scenarios change it: latency and bandwidth scales over the reference
 * values, and the set of cut links. The settings are kept in a file next to the fleet (the local
 * fleet's state directory, or one file per inventory name for VM fleets) so that a bandwidth epoch
 * keeps the latency of the epoch before it, across activity calls and processes.
 */
import { InputError } from '../../core/errors';
import type { Inventory, InventoryLink } from '../../core/inventory';
import type { NetworkSettings } from '../../core/network';
import { readJson, writePrivate } from '../../platform/files';
import { statePaths } from '../../platform/paths';
import { fleetPaths, readState } from '../local/state';
import { relayBytesPerPayloadByte } from '../local/overlay-cost';
import { EmulatorShaper } from './emulator-shaper';
import type { LinkShape, LinkShaper } from './shaper';
import { TcShaper } from './tc-shaper';


export const REFERENCE_SETTINGS: NetworkSettings = { latencyScale: 1, bandwidthScale: 1, cut: [] };

export function settingsFile(inventory: Inventory): string {
  return inventory.source === 'local' ? fleetPaths.shaping : statePaths.networkSettings(inventory.name);
}

export function shaperFor(inventory: Inventory): LinkShaper {
  if (inventory.shaping === 'emulator') {
    const state = readState();
    if (!state) throw new Error('the inventory says the emulator shapes its links, but no local fleet is up');
    return new EmulatorShaper(fleetPaths.emulatorSocket, { baseRttMs: state.baseRttMs ?? 0, relayBytesPerPayloadByte: relayBytesPerPayloadByte() });
  }
  return new TcShaper(inventory);
}

/** Every link's shape under the given scales. */
export function shapeOf(link: InventoryLink, settings: NetworkSettings): LinkShape {
  return { rttMs: link.latencyMs * settings.latencyScale, rateMbps: link.bandwidthMbps * settings.bandwidthScale };
}

export class FleetNetwork {
  private shaperInUse: LinkShaper | undefined;

  /** The shaper is made when first needed: reading the settings needs none (the in-run probes only read). */
  constructor(
    readonly inventory: Inventory,
    shaper?: LinkShaper,
    private readonly file: string = settingsFile(inventory),
  ) {
    this.shaperInUse = shaper;
  }

  private get shaper(): LinkShaper {
    this.shaperInUse ??= shaperFor(this.inventory);
    return this.shaperInUse;
  }

  settings(): NetworkSettings {
    return readJson<NetworkSettings>(this.file) ?? { ...REFERENCE_SETTINGS };
  }

  async setLatencyScale(scale: number): Promise<NetworkSettings> {
    return this.applyScales({ ...this.settings(), latencyScale: checkScale(scale) });
  }

  async setBandwidthScale(scale: number): Promise<NetworkSettings> {
    return this.applyScales({ ...this.settings(), bandwidthScale: checkScale(scale) });
  }

  async cut(id: string): Promise<NetworkSettings> {
    const link = this.link(id);
    await this.shaper.cut(link);
    const settings = this.settings();
    return this.save({ ...settings, cut: [...new Set([...settings.cut, id])] });
  }

  async restore(id: string): Promise<NetworkSettings> {
    const link = this.link(id);
    await this.shaper.restore(link);
    const settings = this.settings();
    return this.save({ ...settings, cut: settings.cut.filter((c) => c !== id) });
  }

  /** Every link back to its reference values and none cut. */
  async reset(): Promise<NetworkSettings> {
    await Promise.all(this.settings().cut.map((id) => this.shaper.restore(this.link(id))));
    return this.applyScales({ ...REFERENCE_SETTINGS });
  }

  /** The current settings applied again, cuts included: for a shaper that lost its state (a restarted emulator). */
  async reapply(): Promise<NetworkSettings> {
    const settings = this.settings();
    await this.applyScales(settings);
    await Promise.all(settings.cut.map((id) => this.shaper.cut(this.link(id))));
    return settings;
  }

  link(id: string): InventoryLink {
    const link = this.inventory.links.find((l) => l.id === id);
    if (!link) {
      const some = this.inventory.links.slice(0, 5).map((l) => l.id).join(', ');
      throw new InputError('link', `unknown link "${id}"; links look like <a>-<b>/<type>, e.g. ${some}`);
    }
    return link;
  }

  private async applyScales(settings: NetworkSettings): Promise<NetworkSettings> {
    // A fleet without links (a LAN) has nothing to shape, and perhaps no shaper to ask.
    if (this.inventory.links.length > 0) await this.shaper.applyMany(this.inventory.links.map((link) => ({ link, shape: shapeOf(link, settings) })));
    return this.save(settings);
  }

  private save(settings: NetworkSettings): NetworkSettings {
    writePrivate(this.file, JSON.stringify(settings, null, 2));
    return settings;
  }
}

function checkScale(scale: number): number {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
    throw new InputError('scale', `must be a number above 0 (e.g. 0.2 for a fifth of the reference), got ${scale}`);
  }
  return scale;
}
