/**
 * Where fragbench keeps its state on this host: one root (FRAGBENCH_STATE_DIR, or
 * /var/lib/fragbench) and the places under it, so no module spells the path itself. Read when a
 * module loads (the fleet's paths are constants) or at each call (the databases' root, which
 * tests point elsewhere between cases).
 */
import { join } from 'node:path';

export const DEFAULT_STATE_ROOT = '/var/lib/fragbench';

export function stateRoot(): string {
  return process.env.FRAGBENCH_STATE_DIR || DEFAULT_STATE_ROOT;
}

export const statePaths = {
  /** The local fleet's private directory; `fleet down` removes it. */
  fleet: () => join(stateRoot(), 'fleet'),
  /** The inventory the local fleet writes on `up`: read by anyone who resolves a local FleetRef. */
  fleetInventory: () => join(stateRoot(), 'fleet', 'inventory.json'),
  /** Outside the fleet directory, so it outlives `down` removing the directory it guards. */
  fleetLock: () => join(stateRoot(), 'fleet.lock'),
  runLease: () => join(stateRoot(), 'run-lease.json'),
  /** A VM fleet's network settings (the local fleet keeps its own inside its directory). */
  networkSettings: (fleet: string) => join(stateRoot(), 'network', `${fleet}.json`),
  /** Database adapters' state, and the databases' files on nodes; FRAGBENCH_DB_STATE_DIR wins. */
  databases: () => process.env.FRAGBENCH_DB_STATE_DIR || join(stateRoot(), 'db'),
  /** The local Temporal dev server's history, PID and log. */
  temporalDev: (file: 'db' | 'pid' | 'log') => join(stateRoot(), `temporal-dev.${file}`),
  /** `fragbench dev`'s worker PID, and one JSON line per death it found among the parts it keeps. */
  devSupervision: (file: 'worker.pid' | 'faults.jsonl' | 'workflows.js') => join(stateRoot(), `dev-${file}`),
};
