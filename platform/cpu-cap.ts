/**
 * A CPU cap on processes of this host: a cgroup of the kernel's cpu controller with a CFS quota of
 * `cpus` cores, so that a database server on a local node gets the CPU of a small VM however many
 * cores the host has. cgroup v1 (the cpu controller mounted at /sys/fs/cgroup/cpu, as on this
 * project's hosts) and v2 (cpu.max in the unified hierarchy) both work. Groups are named by the
 * caller (`fb-…`) and removed by name once their processes are gone.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The CFS period: the quota is `cpus` of it. 10 ms rather than the kernel's 100: a process over
 * its quota waits at most the rest of one period, so a server capped at 0.1 core stalls 9 ms at a
 * time, as under a hypervisor's fine-grained vCPU scheduling, not 90.
 */
const PERIOD_US = 10_000;

interface Hierarchy {
  version: 1 | 2;
  root: string;
}

const V1_ROOT = '/sys/fs/cgroup/cpu';
const V2_ROOT = '/sys/fs/cgroup';

/** Where the cpu controller is on this host, or undefined when it is on neither hierarchy. */
function hierarchy(): Hierarchy | undefined {
  if (existsSync(path.join(V1_ROOT, 'cpu.cfs_quota_us'))) return { version: 1, root: V1_ROOT };
  const controllers = path.join(V2_ROOT, 'cgroup.controllers');
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) return { version: 2, root: V2_ROOT };
  return undefined;
}

/** Why a cap cannot be set on this host, or undefined when it can. */
export function cpuCapProblem(): string | undefined {
  if (!hierarchy()) return `this host has no cgroup cpu controller (neither ${V1_ROOT}/cpu.cfs_quota_us nor "cpu" in ${V2_ROOT}/cgroup.controllers)`;
  if (process.getuid?.() !== 0) return 'setting a CPU cap needs root (it writes cgroups under /sys/fs/cgroup)';
  return undefined;
}

function groupDir(h: Hierarchy, group: string): string {
  if (!/^fb-[A-Za-z0-9_.-]+$/.test(group)) throw new Error(`cpu cap group "${group}": a name of fragbench's own (fb-…, letters, digits, . _ -)`);
  return path.join(h.root, group);
}

function requireHierarchy(): Hierarchy {
  const h = hierarchy();
  const problem = cpuCapProblem();
  if (!h || problem) throw new Error(`cannot cap CPU: ${problem}`);
  return h;
}

/** Puts `pid` (every thread of it, and what it starts later) under a cap of `cpus` cores in `group`, made if missing. */
export function capProcess(group: string, cpus: number, pid: number): void {
  if (!(cpus > 0)) throw new Error(`a CPU cap must be above 0 cores, got ${cpus}`);
  const h = requireHierarchy();
  const dir = groupDir(h, group);
  if (h.version === 2) {
    const control = path.join(h.root, 'cgroup.subtree_control');
    if (!readFileSync(control, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(control, '+cpu');
  }
  mkdirSync(dir, { recursive: true });
  const quota = String(Math.round(cpus * PERIOD_US));
  if (h.version === 1) {
    writeFileSync(path.join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), quota);
  } else {
    writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
  }
  writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
}

/** The cap of `group` in cores and the PIDs in it, or undefined when there is no such group. */
export function capOf(group: string): { cpus: number; pids: number[] } | undefined {
  const h = hierarchy();
  if (!h) return undefined;
  const dir = groupDir(h, group);
  if (!existsSync(dir)) return undefined;
  const [quota, period] =
    h.version === 1
      ? [readFileSync(path.join(dir, 'cpu.cfs_quota_us'), 'utf8'), readFileSync(path.join(dir, 'cpu.cfs_period_us'), 'utf8')]
      : readFileSync(path.join(dir, 'cpu.max'), 'utf8').trim().split(' ');
  const pids = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  return { cpus: Number(quota) / Number(period), pids };
}

/**
 * Removes `group`; its processes must have ended (the kernel refuses a group in use: the error
 * says which PIDs are left). A group that is not there is fine.
 */
export function removeCap(group: string): void {
  const h = hierarchy();
  if (!h) return;
  const dir = groupDir(h, group);
  if (!existsSync(dir)) return;
  try {
    rmdirSync(dir);
  } catch (err) {
    const left = capOf(group)?.pids ?? [];
    throw new Error(
      `could not remove CPU cap group ${group}${left.length ? ` (still in it: PIDs ${left.join(', ')})` : ''}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
