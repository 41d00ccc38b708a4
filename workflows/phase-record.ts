/**
 * Building a phase's record from load windows: a run phase is split into windows (one ycsbRun
 * each), and its record is their samples on one time axis and their totals added up. Pure.
 */
import type { PhaseRecord } from '../core/run-record';
import { ycsbOperations, type OpType, type RunSeries, type RunTotals, type Sample } from '../core/samples';

export function emptyPhase(name: string): PhaseRecord {
  return { name, samples: [], events: [], rtt: [], traffic: [], resizes: [] };
}

type OpTotals = NonNullable<RunTotals['ops'][OpType]>;

function addOp(a: OpTotals | undefined, b: OpTotals): OpTotals {
  if (!a) return b;
  const ok = a.ok + b.ok;
  const weighted = (a.avgLatencyUs ?? 0) * a.ok + (b.avgLatencyUs ?? 0) * b.ok;
  return { ok, failed: a.failed + b.failed, avgLatencyUs: ok > 0 ? weighted / ok : (a.avgLatencyUs ?? b.avgLatencyUs) };
}

/** Totals of two consecutive windows: counts add, latency averages weighted by ok count. */
export function addTotals(a: RunTotals | undefined, b: RunTotals): RunTotals {
  if (!a) return b;
  const ops: RunTotals['ops'] = { ...a.ops };
  for (const [op, t] of Object.entries(b.ops) as [OpType, OpTotals][]) ops[op] = addOp(ops[op], t);
  const runtimeMs = a.runtimeMs + b.runtimeMs;
  return { runtimeMs, throughputOpsPerS: runtimeMs > 0 ? ycsbOperations(ops) / (runtimeMs / 1000) : 0, ops };
}

/** Operations a window finished (ok or failed, as YCSB counts them), and how many were inserts. */
export function windowProgress(totals: RunTotals): { done: number; inserted: number } {
  return { done: ycsbOperations(totals.ops), inserted: totals.ops.INSERT?.ok ?? 0 };
}

/**
 * Appends a window's series. Each window's samples count elapsed seconds from its own start;
 * the phase's record counts them from the phase's origin (a host-clock time), so windows, events
 * and ramped clients share one axis. Returns the samples as appended.
 */
export function appendWindow(record: PhaseRecord, series: RunSeries, originMs: number): Sample[] {
  const samples = series.samples.map((sample) => ({ ...sample, elapsedS: Math.max(1, Math.round((sample.time - originMs) / 1000)) }));
  record.samples.push(...samples);
  record.totals = addTotals(record.totals, series.totals);
  return samples;
}
