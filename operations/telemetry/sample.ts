/** One telemetry sample from two readings of the host's counters: the arithmetic, apart from the I/O. */
import type { ByteCounts, Role, TelemetrySample } from '../../core/telemetry';
import type { HostCpuTicks, InterfaceBytes, MemInfo } from '../../platform/proc';

/** What the sampler reads at each tick; a sample is the difference of two. */
export interface Reading {
  /** Epoch ms it was taken. */
  at: number;
  /** The same moment in clock ticks since boot, the clock of a process's start time. */
  bootTicks: number;
  cpu: HostCpuTicks;
  /** Cumulative bytes keyed `<namespace>/<interface>`. */
  interfaces: InterfaceBytes;
  /** Cumulative bytes per link id (a's view), where the back end counts them. */
  links: Record<string, ByteCounts>;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Byte deltas; a counter missing from either reading or that went back (re-created) is left out. */
function byteDeltas(before: Record<string, ByteCounts>, after: Record<string, ByteCounts>): Record<string, ByteCounts> {
  const deltas: Record<string, ByteCounts> = {};
  for (const [key, now] of Object.entries(after)) {
    const then = before[key];
    if (!then || now.rxBytes < then.rxBytes || now.txBytes < then.txBytes) continue;
    deltas[key] = { rxBytes: now.rxBytes - then.rxBytes, txBytes: now.txBytes - then.txBytes };
  }
  return deltas;
}

/**
 * The host's busy time less the named roles, as % of one core: never below zero (the readings are
 * a few µs apart).
 */
export function unclassifiedPercent(before: Pick<Reading, 'cpu'>, after: Pick<Reading, 'cpu'>, roleTicks: Map<Role, number>): number {
  const busy = after.cpu.busy - before.cpu.busy;
  const perCore = Math.max(busy + after.cpu.idle - before.cpu.idle, 1) / after.cpu.cores;
  const named = [...roleTicks.values()].reduce((sum, ticks) => sum + ticks, 0);
  return round1(Math.max(0, (100 * (busy - named)) / perCore));
}

/**
 * A role's ticks over the ticks one core had in the interval (all cores' ticks / cores): so USER_HZ
 * never enters, and the host and the roles are measured against the same clock.
 */
export function telemetrySample(before: Reading, after: Reading, roleTicks: Map<Role, number>, mem: MemInfo): TelemetrySample {
  const busy = after.cpu.busy - before.cpu.busy;
  const idle = after.cpu.idle - before.cpu.idle;
  const total = Math.max(busy + idle, 1);
  const cores = after.cpu.cores;
  const perCore = total / cores;
  const roles: Record<string, number> = {};
  for (const [role, ticks] of roleTicks) roles[role] = round1((100 * ticks) / perCore);
  roles.other = unclassifiedPercent(before, after, roleTicks);
  return {
    time: Math.round(after.at / 1000) * 1000,
    intervalMs: after.at - before.at,
    hostBusyPercent: round1((100 * busy) / total),
    hostIdlePercent: round1((100 * idle) / total),
    cores,
    memUsedMb: Math.round((mem.totalKb - mem.availableKb) / 1024),
    memAvailableMb: Math.round(mem.availableKb / 1024),
    roles,
    roleMaxPercent: cores * 100,
    interfaces: byteDeltas(before.interfaces, after.interfaces),
    links: byteDeltas(before.links, after.links),
  };
}
