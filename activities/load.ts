/**
 * The load activities (activities/contracts.ts LoadActivities): YCSB's flush, load and run
 * phases. YCSB runs on the fleet's client node with the binding properties the database's
 * adapter gives; see activities/ycsb/ for how its output becomes per-second samples.
 */
import { findNode } from '../core/inventory';
import { loadInventory } from '../services/inventory/inventory-loader';
import type { FleetRef } from '../core/fleet-ref';
import type { RunSeries } from '../core/samples';
import type { DatabaseName, LoadActivities, YcsbSettings } from './contracts';
import { adapterFor } from '../services/databases/registry';
import { validateYcsbSettings, type YcsbPhase } from './ycsb/command';
import { activityAttempt, runYcsbReporting } from './ycsb/reporting';
import { runPhaseClient, type PhaseClientInput, type PhaseClientResult } from './ycsb/phase-client';
import { ResultsStore } from '../services/results/results-store';
import { monitorPhase } from './monitor';

export { monitorPhase };
import type { ExecTarget } from '../core/inventory';
import type { YcsbBinding } from '../core/database';

export type { LoadProgress } from './ycsb/reporting';

export async function flushDatabase(input: { fleet: FleetRef; database: DatabaseName; fieldCount?: number }): Promise<void> {
  const inventory = await loadInventory(input.fleet);
  await adapterFor(input.database, inventory).flush({ fieldCount: input.fieldCount });
}

export function ycsbLoad(input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings }): Promise<RunSeries> {
  return runYcsbOnce('load', input);
}

/**
 * One client for a whole run phase (see ycsb/phase-client.ts): heartbeats every second with the
 * latest sample, stores every second as it arrives, and resumes from the store when retried.
 */
export async function ycsbRun(input: { fleet: FleetRef; database: DatabaseName } & PhaseClientInput): Promise<PhaseClientResult> {
  validateYcsbSettings(input.settings, 'settings');
  const { target, binding } = await clientFor(input);
  return runPhaseClient(input, {
    store: new ResultsStore(),
    attempt: activityAttempt(),
    run: ({ settings, onSample }) => runYcsbReporting({ target, phase: 'run', settings, binding, onSample }, input.label),
  });
}

async function clientFor(input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings }): Promise<{ target: ExecTarget; binding: YcsbBinding }> {
  const inventory = await loadInventory(input.fleet);
  const binding = await adapterFor(input.database, inventory).ycsbBinding({
    timeoutMs: input.settings.timeoutMs,
    retries: input.settings.retries,
  });
  return { target: findNode(inventory, inventory.clientNode).exec, binding };
}

/** One YCSB process for one phase, its whole series returned (the load phase; benchmarks). Not an activity. */
export async function runYcsbOnce(
  phase: YcsbPhase,
  input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings; label?: string },
): Promise<RunSeries> {
  validateYcsbSettings(input.settings, 'settings');
  const { target, binding } = await clientFor(input);
  return runYcsbReporting({ target, phase, settings: input.settings, binding }, input.label);
}

// This module implements the contract exactly (checked here, not exported: the worker registers
// every export of activities/ as an activity).
({ flushDatabase, ycsbLoad, ycsbRun, monitorPhase }) satisfies LoadActivities;
