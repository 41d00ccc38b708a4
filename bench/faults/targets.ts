/**
 * Which process is a part, now: found the way the tool itself records them (the fleet's state, the
 * dev supervisor's PID files, the database node's namespace, the worker's own children), never by a
 * name pattern across the host.
 */
import { namespaceOf } from '../../infra/local/plan';
import { runHost } from '../../platform/command';
import { statePaths } from '../../platform/paths';
import { readPidFile } from '../../platform/process';
import { hostPids, readPidStat } from '../../platform/pid';
import { readState, type ProcessKind } from '../../infra/local/state';
import { pick, type Part } from './schedule';

export interface Target {
  pid: number;
  /** The fleet daemon's owner, or the database node: for matching the fault the run records. */
  owner?: string;
}

const comm = (pid: number) => readPidStat(pid)?.comm;

/** Every live descendant of `root`, by walking the processes' parent links. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const pid of hostPids()) {
    const stat = readPidStat(pid);
    if (stat) parent.set(pid, stat.ppid);
  }
  const found: number[] = [];
  for (const pid of parent.keys()) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

function fleetDaemon(kind: ProcessKind, random: () => number): Target | undefined {
  const daemon = pick(readState()?.processes.filter((p) => p.kind === kind) ?? [], random);
  return daemon && { pid: daemon.pid, owner: daemon.owner };
}

async function databaseServer(nodes: readonly string[], random: () => number): Promise<Target | undefined> {
  const node = pick(nodes, random);
  if (!node) return undefined;
  const { stdout } = await runHost(['ip', 'netns', 'pids', namespaceOf(node)]);
  const pid = stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .find((p) => comm(p)?.startsWith('redis-server'));
  return pid === undefined ? undefined : { pid, owner: node };
}

export function workerPid(): number | undefined {
  return readPidFile(statePaths.devSupervision('worker.pid'));
}

/** The process that is `part` now, or undefined when none runs (the part is still coming back). */
export async function findTarget(part: Part, databaseNodes: readonly string[], random: () => number): Promise<Target | undefined> {
  switch (part) {
    case 'emulator':
      return fleetDaemon('emulator', random);
    case 'tincd':
      return fleetDaemon('tinc', random);
    case 'wireguard':
      return fleetDaemon('wireguard', random);
    case 'database':
      return databaseServer(databaseNodes, random);
    case 'ycsb': {
      const worker = workerPid();
      const pid = worker === undefined ? undefined : descendants(worker).find((p) => comm(p) === 'java');
      return pid === undefined ? undefined : { pid };
    }
    case 'worker': {
      const pid = workerPid();
      return pid === undefined ? undefined : { pid };
    }
    case 'temporal-server': {
      const pid = readPidFile(statePaths.temporalDev('pid'));
      return pid === undefined ? undefined : { pid };
    }
  }
}
