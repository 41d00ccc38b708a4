/**
 * Which path each pair of the local fleet uses over a phase, for the run's `paths` stream: every
 * pair at the phase's start, then each change. Reading the paths costs a tinc node dump and an
 * `ss` per node, so it is not done every second: the watch looks (one stat a second) for a change
 * to the fleet's network settings, which FleetNetwork writes on every change it applies (cut,
 * restore, epoch, event, ramp step, trace row, move), and reads the paths each second from then
 * until they have held for the failover profile's detection time and a reconnect; a change of
 * path seen meanwhile extends that. A path that changes with no network change (a daemon's
 * restart) is seen at the next one.
 */
import { statSync } from 'node:fs';
import type { Inventory } from '../../core/inventory';
import { pairName, pathChanges, type OverlayPath, type PathChange } from '../../core/overlay-path';
import { tincTimers } from '../../core/failover';
import { overlayPaths } from '../../infra/local/overlay-paths';
import { fleetPaths, readState } from '../../infra/local/state';

/** After tinc notices a dead link it dials the next address: a few round trips, a second or two here. */
const RECONNECT_MS = 5_000;

export interface PathWatch {
  /** Call once a second; reads the paths only while a network change may still be moving them. */
  tick(): Promise<void>;
  /** The path the pair's packets took when last read (either way round), if the watch has read it. */
  pathOf(this: void, from: string, to: string): OverlayPath | undefined;
}

/** The local fleet that is up as this inventory, if it is one. */
function upLocalPlan(inventory: Inventory) {
  const state = readState();
  return inventory.source === 'local' && state?.status === 'up' && state.plan.name === inventory.name ? state.plan : undefined;
}

/** The inventory with the path each pair uses now (`overlay.paths`), where it is the local fleet that is up. */
export async function withCurrentPaths(inventory: Inventory): Promise<Inventory> {
  const plan = upLocalPlan(inventory);
  if (!plan || !inventory.overlay) return inventory;
  const time = Date.now();
  const paths = await overlayPaths(plan).catch(() => undefined);
  return paths ? { ...inventory, overlay: { ...inventory.overlay, paths: paths.map((p) => ({ time, ...p })) } } : inventory;
}

/** A watch for the local fleet this inventory describes; undefined for any other fleet (VMs: see the README). */
export function pathWatch(
  inventory: Inventory,
  store: (changes: PathChange[]) => Promise<void>,
  settingsFile = fleetPaths.shaping,
): PathWatch | undefined {
  const plan = upLocalPlan(inventory);
  if (!plan) return undefined;
  const timers = inventory.overlay?.failover ?? tincTimers();
  const settleMs = (timers.pingInterval + timers.pingTimeout) * 1000 + RECONNECT_MS;
  // Each pair's path when last read: what a change is judged against, and what a probe expects.
  const latest = new Map<string, OverlayPath>();
  let seenChange: number | undefined;
  let watchUntil = 0;
  return {
    async tick() {
      const now = Date.now();
      const changed = statSync(settingsFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
      // The first look only takes the paths as they start (the cell's network was set long before).
      const first = seenChange === undefined;
      if (changed !== seenChange) {
        seenChange = changed;
        watchUntil = first ? now : now + settleMs;
      }
      if (now > watchUntil) return;
      // The paths inform; they are not the run's evidence: a second they cannot be read (a tincd
      // being restarted) is skipped, not a failed phase.
      const paths = await overlayPaths(plan).catch(() => undefined);
      if (!paths) return;
      const changes = pathChanges(latest, paths, now);
      if (changes.length === 0) return;
      for (const c of changes) latest.set(pairName(c), c);
      if (!first) watchUntil = Math.max(watchUntil, Date.now() + settleMs);
      await store(changes);
    },
    pathOf: (from, to) => latest.get(pairName({ from, to })) ?? latest.get(pairName({ from: to, to: from })),
  };
}
