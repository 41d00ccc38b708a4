/**
 * Where an adapter keeps what it started (members, PIDs, ports, data directories), so that a
 * later activity call, in another process, can resize or stop it: one JSON file per fleet and
 * database on the host that runs the activities. Node-side files live under nodeDir().
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseName } from '../contracts';

/** Root of the adapters' state and of the databases' files on nodes; tests may point it elsewhere. */
export function stateRoot(): string {
  return process.env.FRAGBENCH_DB_STATE_DIR ?? '/var/lib/fragbench/db';
}

export function databaseDir(fleet: string, database: DatabaseName): string {
  return join(stateRoot(), fleet, database);
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
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** The state, or an error saying the cluster has not been formed. */
  require(what: string): T {
    const state = this.read();
    if (!state) throw new Error(`${what}: no cluster formed (no state at ${this.path}); start the cluster first`);
    return state;
  }

  /** Written atomically, so a crash mid-write never leaves half a state. */
  write(state: T): void {
    mkdirSync(join(this.path, '..'), { recursive: true });
    const temp = `${this.path}.tmp`;
    writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(temp, this.path);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
