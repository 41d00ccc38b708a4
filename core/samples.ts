/**
 * Per-second samples: what load activities return and what every table and figure is computed
 * from. One sample per second of a run, on the wall clock of the host that runs the workflow's
 * activities (the same clock events are stamped with).
 */

/** YCSB operation types, as YCSB names them in its status lines. */
export type OpType = 'READ' | 'UPDATE' | 'INSERT' | 'SCAN' | 'READ-MODIFY-WRITE' | 'DELETE';

export interface LatencyUs {
  avg: number;
  p95: number;
  p99: number;
}

export interface OpSample {
  /** Successful operations completed in this second. */
  ok: number;
  /** Failed operations in this second. */
  failed: number;
  /** Latency of the successful operations in this second; null when there were none. */
  latencyUs: LatencyUs | null;
}

export interface Sample {
  /** Wall-clock time at the end of the second, epoch milliseconds. */
  time: number;
  /** Seconds since the run started (1 for the first sample). */
  elapsedS: number;
  /** Per operation type; a type with no operations in the whole run is absent. */
  ops: Partial<Record<OpType, OpSample>>;
  /**
   * Database operations in this second, summed over operation types except READ-MODIFY-WRITE,
   * whose read and update YCSB also counts as READ and UPDATE. So with workload F (50 % reads,
   * 50 % read-modify-writes) this is 1.5 times YCSB's own throughput, which counts each
   * read-modify-write once (see `ycsbOperations`).
   */
  okPerS: number;
  failedPerS: number;
}

/** YCSB's final summary, per operation type, for checking the samples add up. */
export interface RunTotals {
  runtimeMs: number;
  /** YCSB's [OVERALL] throughput: its operations (a read-modify-write is one) per second. */
  throughputOpsPerS: number;
  ops: Partial<Record<OpType, { ok: number; failed: number; avgLatencyUs: number | null }>>;
}

export interface RunSeries {
  samples: Sample[];
  totals: RunTotals;
  /** CPU time the client's JVM used, ms, as it reported at its exit (absent from a client that did not). */
  clientCpuMs?: number;
  /** Of that, what it had used when it became ready: its start, before any operation. */
  clientCpuAtReadyMs?: number;
}

export function sumOps(samples: Sample[]): { ok: number; failed: number } {
  return samples.reduce((acc, s) => ({ ok: acc.ok + s.okPerS, failed: acc.failed + s.failedPerS }), { ok: 0, failed: 0 });
}

/**
 * Operations as YCSB counts them against its operationcount: every type's ok and failed, but a
 * read-modify-write once, not as its READ and UPDATE too.
 */
export function ycsbOperations(ops: RunTotals['ops']): number {
  let n = 0;
  for (const [op, t] of Object.entries(ops) as [OpType, { ok: number; failed: number }][]) {
    n += op === 'READ-MODIFY-WRITE' ? -(t.ok + t.failed) : t.ok + t.failed;
  }
  return n;
}

/**
 * One sample per elapsed second, in order: where a second was recorded more than once (a client's
 * final series after its per-second stream, or a retried write), the last record wins.
 */
export function latestPerSecond(samples: Sample[]): Sample[] {
  const bySecond = new Map<number, Sample>();
  for (const sample of samples) bySecond.set(sample.elapsedS, sample);
  return [...bySecond.values()].sort((a, b) => a.elapsedS - b.elapsedS);
}

/** A phase's totals made from its samples, for a phase whose client never printed YCSB's summary (killed, cancelled). */
export function totalsFromSamples(samples: Sample[]): RunTotals {
  const ops: RunTotals['ops'] = {};
  const weight: Partial<Record<OpType, number>> = {};
  for (const sample of samples) {
    for (const [op, s] of Object.entries(sample.ops) as [OpType, OpSample][]) {
      const t = (ops[op] ??= { ok: 0, failed: 0, avgLatencyUs: null });
      t.ok += s.ok;
      t.failed += s.failed;
      if (s.latencyUs) weight[op] = (weight[op] ?? 0) + s.latencyUs.avg * s.ok;
    }
  }
  for (const [op, t] of Object.entries(ops) as [OpType, NonNullable<RunTotals['ops'][OpType]>][]) {
    t.avgLatencyUs = t.ok > 0 && weight[op] !== undefined ? weight[op] / t.ok : null;
  }
  const runtimeMs = samples.length * 1000;
  return { runtimeMs, throughputOpsPerS: runtimeMs > 0 ? ycsbOperations(ops) / (runtimeMs / 1000) : 0, ops };
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
