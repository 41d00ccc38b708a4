/**
 * The load activities (activities/contracts.ts LoadActivities): YCSB's flush, load and run
 * phases. YCSB runs on the fleet's client node with the binding properties the database's
 * adapter gives; see activities/ycsb/ for how its output becomes per-second samples.
 */
import { findNode } from '../core/inventory';
import { loadInventory } from './inventory-loader';
import type { FleetRef } from '../core/fleet-ref';
import type { RunSeries } from '../core/samples';
import type { DatabaseName, LoadActivities, YcsbSettings } from './contracts';
import { adapterFor } from './databases/registry';
import { validateYcsbSettings, type YcsbPhase } from './ycsb/command';
import { runYcsbReporting } from './ycsb/reporting';

export type { LoadProgress } from './ycsb/reporting';

export async function flushDatabase(input: { fleet: FleetRef; database: DatabaseName; fieldCount?: number }): Promise<void> {
  const inventory = await loadInventory(input.fleet);
  await adapterFor(input.database, inventory).flush({ fieldCount: input.fieldCount });
}

export function ycsbLoad(input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings }): Promise<RunSeries> {
  return ycsbPhase('load', input);
}

/** Heartbeats every second with the latest sample; cancelling the activity stops the client. */
export function ycsbRun(input: {
  fleet: FleetRef;
  database: DatabaseName;
  settings: YcsbSettings;
  label?: string;
}): Promise<RunSeries> {
  return ycsbPhase('run', input);
}

async function ycsbPhase(
  phase: YcsbPhase,
  input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings; label?: string },
): Promise<RunSeries> {
  validateYcsbSettings(input.settings, 'settings');
  const inventory = await loadInventory(input.fleet);
  const binding = await adapterFor(input.database, inventory).ycsbBinding({
    timeoutMs: input.settings.timeoutMs,
    retries: input.settings.retries,
  });
  const client = findNode(inventory, inventory.clientNode);
  return runYcsbReporting({ target: client.exec, phase, settings: input.settings, binding }, input.label);
}

// This module implements the contract exactly (checked here, not exported: the worker registers
// every export of activities/ as an activity).
({ flushDatabase, ycsbLoad, ycsbRun }) satisfies LoadActivities;
