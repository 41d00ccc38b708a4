/**
 * A run phase's record built from load windows (workflows/phase-record.ts), checked on real YCSB
 * output: operation counts as YCSB counts them (workload F's read-modify-writes once), totals of
 * consecutive windows, and one time axis for windows that each count from their own start.
 */
import { readRecordedRun } from './fixtures/ycsb/read';
import { buildSeries } from '../../activities/ycsb/series';
import { sumOps, ycsbOperations } from '../../core/samples';
import { addTotals, appendWindow, emptyPhase, windowProgress } from '../../workflows/phase-record';

describe('operations as YCSB counts them', () => {
  it('workload F: a read-modify-write counts once against operationcount, while the samples count its read and update', () => {
    const run = readRecordedRun('run-f');
    const { samples, totals } = buildSeries(run.output, run.totals);
    const rmw = totals.ops['READ-MODIFY-WRITE']!;
    expect(rmw.ok).toBeGreaterThan(1000);
    // The recording ran with operationcount=3000.
    expect(ycsbOperations(totals.ops)).toBe(3000);
    expect(windowProgress(totals).done).toBe(3000);
    expect(sumOps(samples).ok).toBe(totals.ops.READ!.ok + totals.ops.UPDATE!.ok);
    expect(sumOps(samples).ok).toBe(3000 + rmw.ok);
  });

  it('workload A: every read and update is an operation', () => {
    const run = readRecordedRun('run-short');
    const { totals } = buildSeries(run.output, run.totals);
    expect(ycsbOperations(totals.ops)).toBe(5000);
  });
});

describe('a phase from consecutive windows', () => {
  const run = readRecordedRun('run-short');
  const series = buildSeries(run.output, run.totals);

  it('adds counts and runtimes, weights average latency by ok count, and keeps throughput in YCSB operations', () => {
    const twice = addTotals(series.totals, series.totals);
    expect(twice.runtimeMs).toBe(2 * series.totals.runtimeMs);
    expect(twice.ops.READ).toEqual({ ...series.totals.ops.READ, ok: 2 * series.totals.ops.READ!.ok, failed: 2 * series.totals.ops.READ!.failed });
    expect(twice.throughputOpsPerS).toBeCloseTo(10_000 / (twice.runtimeMs / 1000), 6);
    const slower = { ...series.totals, ops: { READ: { ok: 100, failed: 0, avgLatencyUs: 5000 } } };
    const mixed = addTotals(series.totals, slower).ops.READ!;
    const { ok, avgLatencyUs } = series.totals.ops.READ!;
    expect(mixed.avgLatencyUs).toBeCloseTo((ok * avgLatencyUs! + 100 * 5000) / (ok + 100), 6);
  });

  it('puts the second window after the first on the phase axis and returns what it appended', () => {
    const record = emptyPhase('run');
    const origin = series.samples[0].time - 1000;
    const first = appendWindow(record, series, origin);
    const later = { ...series, samples: series.samples.map((s) => ({ ...s, time: s.time + 60_000 })) };
    const second = appendWindow(record, later, origin);
    expect(record.samples).toEqual([...first, ...second]);
    expect(first.map((s) => s.elapsedS)).toEqual(series.samples.map((_, i) => i + 1));
    expect(second[0].elapsedS).toBe(61);
  });
});
