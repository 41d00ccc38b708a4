/**
 * A fleet's network as scenarios change it: latency and bandwidth scales over the reference
 * values, per-link per-direction values set by network events (which win over the scales), and
 * the links cut both ways or one way. The settings are kept in a file next to the fleet (the local
 * fleet's state directory, or one file per inventory name for VM fleets) so that a bandwidth epoch
 * keeps the latency of the epoch before it, across activity calls and processes.
 */
import { InputError } from '../../core/errors';
import type { Inventory, InventoryLink } from '../../core/inventory';
import { REFERENCE_SETTINGS, conditionsOf, type NetworkSettings } from '../../core/network';
import { readJson, writePrivate } from '../../platform/files';
import { statePaths } from '../../platform/paths';
import { fleetPaths, readState } from '../local/state';
import { relayBytesPerPayloadByte } from '../local/overlay-cost';
import { steerOverlay } from '../local/overlay-paths';
import { steerVmOverlay } from './vm-overlay';
import { EmulatorShaper } from './emulator-shaper';
import type { LinkShaper } from './shaper';
import { DIRECTIONS, type Direction, type DirectionOverride, type LinkConditions } from '../../core/link-conditions';
import { TcShaper } from './tc-shaper';
import type { Position } from '../../core/site-motion';

/** One network event's change to one link: the values it sets, in one direction or both. */
export interface ConditionChange {
  link: string;
  /** Absent: both directions. */
  direction?: Direction;
  values: DirectionOverride;
}

export function settingsFile(inventory: Inventory): string {
  return inventory.source === 'local' ? fleetPaths.shaping : statePaths.networkSettings(inventory.name);
}

export function shaperFor(inventory: Inventory): LinkShaper {
  if (inventory.shaping === 'emulator') {
    const state = readState();
    if (!state) throw new Error('the inventory says the emulator shapes its links, but no local fleet is up');
    return new EmulatorShaper(fleetPaths.emulatorSocket, {
      baseRttMs: state.baseRttMs ?? 0,
      relayBytesPerPayloadByte: relayBytesPerPayloadByte(state.plan.stack),
    });
  }
  return new TcShaper(inventory);
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

  /** Cuts a link both ways, or one direction (`ab`: a's packets never reach b). */
  async cut(id: string, direction?: Direction): Promise<NetworkSettings> {
    const link = this.link(id);
    await this.shaper.cut(link, direction);
    const settings = this.settings();
    if (!direction) return this.save({ ...settings, cut: [...new Set([...settings.cut, id])] });
    const others = (settings.oneWayCuts ?? []).filter((c) => !(c.link === id && c.direction === direction));
    return this.save({ ...settings, oneWayCuts: [...others, { link: id, direction }] });
  }

  /** Restores a link (every cut direction), or one direction. */
  async restore(id: string, direction?: Direction): Promise<NetworkSettings> {
    return this.restoreLinks([id], direction);
  }

  /**
   * Restores links in the shaper, then saves once: the overlay redials every pair they join in one
   * round. Saved link by link, each restore waited out its own redial (~3 s): a 10-link partition
   * healed over ~30 s (bench:consistency, 2026-11-28).
   */
  private async restoreLinks(ids: string[], direction?: Direction, also: Partial<NetworkSettings> = {}): Promise<NetworkSettings> {
    // Every id checked before anything is restored: a bad one leaves the network as it was.
    for (const link of ids.map((id) => this.link(id))) await this.shaper.restore(link, direction);
    const { oneWayCuts: before = [], ...settings } = this.settings();
    const oneWayCuts = before.filter((c) => !ids.includes(c.link) || (direction !== undefined && c.direction !== direction));
    // The field stays absent while nothing is cut one way, as in a fleet that never had such a cut.
    return this.save({
      ...settings,
      ...also,
      cut: direction ? settings.cut : settings.cut.filter((c) => !ids.includes(c)),
      ...(oneWayCuts.length ? { oneWayCuts } : {}),
    });
  }

  /** Cuts every given link both ways, in one change; remembers those not cut before, for `heal`. */
  async partition(ids: string[]): Promise<string[]> {
    const already = this.settings().cut;
    const cutNow = ids.filter((id) => !already.includes(id));
    for (const link of cutNow.map((id) => this.link(id))) await this.shaper.cut(link);
    const settings = this.settings();
    await this.save({
      ...settings,
      cut: [...new Set([...settings.cut, ...cutNow])],
      partitioned: [...new Set([...(settings.partitioned ?? []), ...cutNow])],
    });
    return cutNow;
  }

  /** Restores exactly the links partitions cut, in one change. */
  async heal(): Promise<string[]> {
    const ids = this.settings().partitioned ?? [];
    await this.restoreLinks(ids, undefined, { partitioned: [] });
    return ids;
  }

  /**
   * Sets values on links (per direction or both), applies them, and keeps them until reset; a move
   * also gives where its node now stands, saved in the same write as the links it changed.
   * `onShaped` is called once the shaper has the values, before the overlay is steered to follow
   * them (a redial takes tens of ms more): a trace's lateness is the shaper's, not tinc's.
   */
  async setConditions(
    changes: ConditionChange[],
    options: { positions?: Record<string, Position>; onShaped?: () => void } = {},
  ): Promise<NetworkSettings> {
    const { positions } = options;
    const settings = this.settings();
    const overrides = { ...settings.overrides };
    for (const change of changes) {
      this.link(change.link);
      const current = { ...overrides[change.link] };
      for (const dir of change.direction ? [change.direction] : DIRECTIONS) current[dir] = { ...current[dir], ...change.values };
      overrides[change.link] = current;
    }
    const next = { ...settings, overrides, ...(positions ? { positions: { ...settings.positions, ...positions } } : {}) };
    await this.applyLinks([...new Set(changes.map((c) => c.link))], next);
    options.onShaped?.();
    return this.save(next);
  }

  /** Drops what events set on these links: back to the reference under the scales. */
  async resetConditions(ids: string[]): Promise<NetworkSettings> {
    const settings = this.settings();
    const overrides = { ...settings.overrides };
    for (const id of ids) delete overrides[this.link(id).id];
    const next = { ...settings, overrides };
    await this.applyLinks(ids, next);
    return this.save(next);
  }

  /** A link's conditions as they stand. */
  conditions(id: string): LinkConditions {
    return conditionsOf(this.link(id), this.settings());
  }

  /**
   * Every link back to its reference values and none cut; with a seed, every direction's loss and
   * jitter draws start again from it (a cell's start), so the same packets meet the same drops.
   */
  async reset(lossSeed?: number): Promise<NetworkSettings> {
    const settings = this.settings();
    await Promise.all(settings.cut.map((id) => this.shaper.restore(this.link(id))));
    await Promise.all((settings.oneWayCuts ?? []).map((c) => this.shaper.restore(this.link(c.link), c.direction)));
    const reference = await this.applyScales({ ...REFERENCE_SETTINGS, ...(lossSeed === undefined ? {} : { lossSeed: checkLossSeed(lossSeed) }) });
    if (lossSeed !== undefined) await this.shaper.seedDraws(this.inventory.links, lossSeed);
    return reference;
  }

  /** The current settings applied again, cuts included: for a shaper that lost its state (a restarted emulator). */
  async reapply(): Promise<NetworkSettings> {
    const settings = this.settings();
    await this.applyScales(settings);
    // A restarted emulator picked new seeds: the run's seed again (its draws restart, repeatably so).
    if (settings.lossSeed !== undefined) await this.shaper.seedDraws(this.inventory.links, settings.lossSeed);
    await Promise.all(settings.cut.map((id) => this.shaper.cut(this.link(id))));
    await Promise.all((settings.oneWayCuts ?? []).map((c) => this.shaper.cut(this.link(c.link), c.direction)));
    return settings;
  }

  link(id: string): InventoryLink {
    const link = this.inventory.links.find((l) => l.id === id);
    if (!link) {
      const some = this.inventory.links
        .slice(0, 5)
        .map((l) => l.id)
        .join(', ');
      throw new InputError('link', `unknown link "${id}"; links look like <a>-<b>/<type>, e.g. ${some}`);
    }
    return link;
  }

  private async applyScales(settings: NetworkSettings): Promise<NetworkSettings> {
    // A fleet without links (a LAN) has nothing to shape, and perhaps no shaper to ask.
    if (this.inventory.links.length > 0)
      await this.shaper.applyMany(this.inventory.links.map((link) => ({ link, conditions: conditionsOf(link, settings) })));
    // A reset also puts every pair back on its fastest link, wherever tinc left it.
    return this.save(settings, { everyPair: true });
  }

  private async applyLinks(ids: string[], settings: NetworkSettings): Promise<void> {
    await this.shaper.applyMany(ids.map((id) => this.link(id)).map((link) => ({ link, conditions: conditionsOf(link, settings) })));
  }

  private async save(settings: NetworkSettings, steer: { everyPair?: boolean } = {}): Promise<NetworkSettings> {
    const before = this.settings();
    writePrivate(this.file, JSON.stringify(settings, null, 2));
    // The overlay picks among a pair's direct links by the order of tinc's addresses: that order
    // follows the network as it is now, or a pair stays on a link a change made the slower.
    if (this.inventory.source === 'local') {
      if (readState()?.plan.name === this.inventory.name) await steerOverlay(settings, before, steer);
    } else if (this.inventory.shaping === 'tc') await steerVmOverlay(this.inventory, settings, before);
    return settings;
  }
}

function checkScale(scale: number): number {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
    throw new InputError('scale', `must be a number above 0 (e.g. 0.2 for a fifth of the reference), got ${scale}`);
  }
  return scale;
}

export const MAX_LOSS_SEED = Number.MAX_SAFE_INTEGER;

function checkLossSeed(seed: number): number {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new InputError('lossSeed', `must be a whole number from 0 to ${MAX_LOSS_SEED} (a run's record gives the one it used), got ${seed}`);
  }
  return seed;
}
