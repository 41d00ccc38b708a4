/**
 * Where an adapter keeps what it started (members, PIDs, ports, data directories), so that a
 * later activity call, in another process, can resize or stop it: one JSON file per fleet and
 * database on the host that runs the activities. Node-side files live under nodeDir().
 */
import { rmSync } from 'node:fs';
import { removeCap } from '../../platform/cpu-cap';
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

/** A node server's CPU cap: its cgroup's name and the cores it may use. */
export interface CpuCap {
  group: string;
  cpus: number;
}

/**
 * The CPU cap a cluster was formed with, beside its state (cpus.json), read by every later call
 * that starts a server (a join, a restart); its cgroups are named `fb-<fleet>-<database>-<node>`.
 */
export class CpuCapFile {
  private readonly path: string;
  /** Read once per adapter (every shell, polls included, asks): a cap changes only at formation, through write or clear. */
  private recorded: { cpusPerNode: number } | null | undefined;

  constructor(
    private readonly fleet: string,
    private readonly database: DatabaseName,
  ) {
    this.path = join(databaseDir(fleet, database), 'cpus.json');
  }

  write(cpusPerNode: number): void {
    this.recorded = { cpusPerNode };
    writeJsonAtomic(this.path, this.recorded);
  }

  clear(): void {
    this.recorded = null;
    rmSync(this.path, { force: true });
  }

  of(node: string): CpuCap | undefined {
    if (this.recorded === undefined) this.recorded = readJson<{ cpusPerNode: number }>(this.path) ?? null;
    return this.recorded ? { group: this.groupOf(node), cpus: this.recorded.cpusPerNode } : undefined;
  }

  groupOf(node: string): string {
    return `fb-${this.fleet}-${this.database}-${node}`.replace(/[^A-Za-z0-9_.-]/g, '_');
  }

  /** Once the servers have stopped: their cgroups and the record go. */
  removeGroups(nodes: string[]): void {
    for (const node of nodes) removeCap(this.groupOf(node));
    this.clear();
  }
}
