/**
 * Where an adapter keeps what it started (members, PIDs, ports, data directories), so that a
 * later activity call, in another process, can resize or stop it: one JSON file per fleet and
 * database on the host that runs the activities. Node-side files live under nodeDir().
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, writeJsonAtomic } from '../../platform/files';
import { statePaths } from '../../platform/paths';
import type { DatabaseName } from '../../core/database';

/** Read at each call: tests point FRAGBENCH_DB_STATE_DIR elsewhere between cases. */
export function databaseDir(fleet: string, database: DatabaseName): string {
  return join(statePaths.databases(), fleet, database);
}

/** Directory of one node's database files (data, config, log), on that node. */
export function nodeDir(fleet: string, database: DatabaseName, node: string): string {
  return join(databaseDir(fleet, database), node);
}

export class StateFile<T> {
  readonly path: string;

  constructor(fleet: string, database: DatabaseName) {
    this.path = join(databaseDir(fleet, database), 'state.json');
  }

  read(): T | undefined {
    return readJson<T>(this.path);
  }

  /** The state, or an error saying the cluster has not been formed. */
  require(what: string): T {
    const state = this.read();
    if (!state) throw new Error(`${what}: no cluster formed (no state at ${this.path}); start the cluster first`);
    return state;
  }

  /** Written atomically, so a crash mid-write never leaves half a state. */
  write(state: T): void {
    writeJsonAtomic(this.path, state);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
