/**
 * YCSB against a fleet's database: the client runs on the fleet's client node with the binding
 * properties the database's adapter gives. The load activities wrap these with heartbeats and
 * cancellation (activities/ycsb-reporting.ts); the benches call them as they are.
 */
import type { DatabaseName, YcsbBinding } from '../../core/database';
import type { FleetRef } from '../../core/fleet-ref';
import { findNode, type ExecTarget } from '../../core/inventory';
import type { RunSeries } from '../../core/samples';
import type { YcsbSettings } from '../../core/ycsb';
import { adapterFor } from '../databases/registry';
import { loadInventory } from '../inventory/inventory-loader';
import { validateYcsbSettings, type YcsbPhase } from './command';
import { runYcsb, type YcsbRunOptions } from './runner';

export interface FleetYcsbInput {
  fleet: FleetRef;
  database: DatabaseName;
  settings: YcsbSettings;
}

/** Where the client runs and what it connects with; the settings are checked first (InputError naming the field). */
export async function ycsbClientFor(input: FleetYcsbInput): Promise<{ target: ExecTarget; binding: YcsbBinding }> {
  validateYcsbSettings(input.settings, 'settings');
  const inventory = await loadInventory(input.fleet);
  const binding = adapterFor(input.database, inventory).ycsbBinding({
    timeoutMs: input.settings.timeoutMs,
    retries: input.settings.retries,
  });
  return { target: findNode(inventory, inventory.clientNode).exec, binding };
}

/**
 * One YCSB process for one phase, its whole series returned (the load phase; benchmarks).
 * `run` is how the process is run: plainly by default, with heartbeats inside an activity.
 */
export async function runYcsbOnce(
  phase: YcsbPhase,
  input: FleetYcsbInput,
  run: (options: Omit<YcsbRunOptions, 'signal'>) => Promise<RunSeries> = runYcsb,
): Promise<RunSeries> {
  const { target, binding } = await ycsbClientFor(input);
  return run({ target, phase, settings: input.settings, binding });
}
