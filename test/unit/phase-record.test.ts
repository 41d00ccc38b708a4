/**
 * Counting a phase's operations, checked on real YCSB output: as YCSB counts them (workload F's
 * read-modify-writes once), totals of a client that ran in parts, totals made from samples.
 */
import { readRecordedRun } from './fixtures/ycsb/read';
import { buildSeries } from '../../services/ycsb/series';
import { addTotals, latestPerSecond, sumOps, totalsFromSamples, ycsbOperations } from '../../core/samples';

describe('operations as YCSB counts them', () => {
  it('workload F: a read-modify-write counts once against operationcount, while the samples count its read and update', () => {
    const run = readRecordedRun('run-f');
    const { samples, totals } = buildSeries(run.output, run.totals);
    const rmw = totals.ops['READ-MODIFY-WRITE']!;
    expect(rmw.ok).toBeGreaterThan(1000);
    // The recording ran with operationcount=3000.
    expect(ycsbOperations(totals.ops)).toBe(3000);
    expect(sumOps(samples).ok).toBe(totals.ops.READ!.ok + totals.ops.UPDATE!.ok);
    expect(sumOps(samples).ok).toBe(3000 + rmw.ok);
  });

  it('workload A: every read and update is an operation', () => {
    const run = readRecordedRun('run-short');
    const { totals } = buildSeries(run.output, run.totals);
    expect(ycsbOperations(totals.ops)).toBe(5000);
  });
});

describe('totals of a phase a client ran in parts', () => {
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

  it("made from the samples alone (a client lost before its summary), agree with YCSB's own counts", () => {
    const made = totalsFromSamples(series.samples);
    for (const op of ['READ', 'UPDATE'] as const) {
      expect(made.ops[op]!.ok).toBe(series.totals.ops[op]!.ok);
      expect(made.ops[op]!.failed).toBe(series.totals.ops[op]!.failed);
      // Per-second averages weighted by their counts: YCSB's overall average within rounding.
      expect(made.ops[op]!.avgLatencyUs!).toBeCloseTo(series.totals.ops[op]!.avgLatencyUs!, -1);
    }
    expect(ycsbOperations(made.ops)).toBe(5000);
  });

  it('keeps the last record of a second stored twice, in elapsed order', () => {
    const [a, b, c] = series.samples;
    const again = { ...b, okPerS: b.okPerS + 1 };
    expect(latestPerSecond([a, c, b, again])).toEqual([a, again, c]);
  });
});
