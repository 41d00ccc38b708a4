/**
 * The processes telemetry follows, found by scanning /proc. A scan reads every PID's stat (one
 * small read each) and only looks closer (namespace, command line, classifier) at PIDs that are
 * new or changed program since the last scan; between scans only the classified PIDs are read.
 */
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessClassifier, ProcessInfo, Role } from '../../core/telemetry';
import type { PidStat } from '../../platform/proc';
import { hostPids, parseCmdline, readPidStat } from '../../platform/pid';

const NETNS_DIR = '/run/netns';

export interface TrackedProcess {
  pid: number;
  startTime: number;
  comm: string;
  namespace: string | undefined;
  role: Role | undefined;
  /** utime + stime at the last sample, ticks. */
  ticks: number;
}

export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // The process (or namespace) went away between listing and reading: normal on a live host.
    return undefined;
  }
}

/** Named namespaces by the inode of their nsfs file: what /proc/<pid>/ns/net links to. */
function namespaceInodes(): Map<string, string> {
  const byInode = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(NETNS_DIR);
  } catch {
    return byInode; // no named namespaces on this host
  }
  for (const name of names) {
    try {
      byInode.set(String(statSync(join(NETNS_DIR, name)).ino), name);
    } catch {
      // Deleted while listing.
    }
  }
  return byInode;
}

function namespaceOf(pid: number, byInode: Map<string, string>): string | undefined {
  try {
    const inode = /\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/ns/net`))?.[1];
    return inode === undefined ? undefined : byInode.get(inode);
  } catch {
    return undefined;
  }
}

function processInfo(stat: PidStat, namespace: string | undefined): ProcessInfo {
  const argv = parseCmdline(readText(`/proc/${stat.pid}/cmdline`) ?? '');
  return { pid: stat.pid, comm: stat.comm, argv, namespace };
}

export class ProcessTable {
  private readonly tracked = new Map<number, TrackedProcess>();

  constructor(private readonly classify: ProcessClassifier) {}

  /**
   * Re-reads /proc. A process first seen now that started at or after `countFrom` (ticks since
   * boot: the last reading) counts whole, since all its CPU falls in the interval being sampled; one
   * that started earlier counts from now, and the CPU it used before shows as `other`.
   */
  scan(countFrom?: number): void {
    const byInode = namespaceInodes();
    const seen = new Set<number>();
    for (const pid of hostPids()) {
      const stat = readPidStat(pid);
      if (!stat || stat.state === 'Z') continue;
      seen.add(pid);
      const old = this.tracked.get(pid);
      // Same process, same program: keep its role and its tick baseline.
      if (old && old.startTime === stat.startTime && old.comm === stat.comm) continue;
      const namespace = namespaceOf(pid, byInode);
      // After an exec (same process, new program) a classified process goes on from its last
      // sample; any other starts from now (an unclassified one's baseline is stale).
      const goesOn = old !== undefined && old.startTime === stat.startTime && old.role !== undefined;
      const newSinceReading = old?.startTime !== stat.startTime && countFrom !== undefined && stat.startTime >= countFrom;
      this.tracked.set(pid, {
        pid,
        startTime: stat.startTime,
        comm: stat.comm,
        namespace,
        role: this.classify(processInfo(stat, namespace)),
        ticks: goesOn ? old.ticks : newSinceReading ? 0 : stat.utime + stat.stime,
      });
    }
    for (const pid of this.tracked.keys()) if (!seen.has(pid)) this.tracked.delete(pid);
  }

  /**
   * Ticks each role used since the last call, from the classified processes only. A process that
   * ended since loses its last interval (it shows as `other`).
   */
  roleTicks(): Map<Role, number> {
    const ticks = new Map<Role, number>();
    for (const p of this.tracked.values()) {
      if (p.role === undefined) continue;
      const stat = readPidStat(p.pid);
      if (!stat || stat.startTime !== p.startTime) {
        this.tracked.delete(p.pid);
        continue;
      }
      const now = stat.utime + stat.stime;
      ticks.set(p.role, (ticks.get(p.role) ?? 0) + now - p.ticks);
      p.ticks = now;
    }
    return ticks;
  }

  /** Live PIDs in each named namespace, to read its net/dev through any of them. */
  namespacePids(): Map<string, number[]> {
    const pids = new Map<string, number[]>();
    for (const p of this.tracked.values()) {
      if (p.namespace === undefined) continue;
      const list = pids.get(p.namespace) ?? [];
      list.push(p.pid);
      pids.set(p.namespace, list);
    }
    return pids;
  }

  /** The PIDs each role has (the YCSB JVMs a phase saw are counted from these). */
  pidsByRole(): Record<string, number[]> {
    const pids: Record<string, number[]> = {};
    for (const p of this.tracked.values()) if (p.role !== undefined) (pids[p.role] ??= []).push(p.pid);
    return pids;
  }

  /** How many processes each role has. */
  countByRole(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const p of this.tracked.values()) if (p.role !== undefined) counts[p.role] = (counts[p.role] ?? 0) + 1;
    return counts;
  }
}
