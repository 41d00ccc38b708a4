import { apportion, buildSeries, latestSample, type ReceivedStatus } from '../../services/ycsb/series';
import type { IntervalLine, StatusLine } from '../../services/ycsb/output';
import type { OpType, RunTotals, Sample } from '../../core/samples';
import { FIXTURES, readRecordedRun } from './fixtures/ycsb/read';

function totalsOf(samples: Sample[], op: OpType): { ok: number; failed: number } {
  return samples.reduce((t, s) => ({ ok: t.ok + (s.ops[op]?.ok ?? 0), failed: t.failed + (s.ops[op]?.failed ?? 0) }), { ok: 0, failed: 0 });
}

describe('samples from recorded YCSB runs', () => {
  it.each(FIXTURES)('%s: one sample per second, no gaps, one second apart on the clock', (name) => {
    const run = readRecordedRun(name);
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => s.elapsedS)).toEqual(samples.map((_, i) => i + 1));
    for (let i = 1; i < samples.length; i++) expect(samples[i].time - samples[i - 1].time).toBe(1000);
    // As many seconds as the client worked (connected to final status line), a partial one included.
    const statuses = run.output.statuses;
    expect(run.output.readyMs).toBeDefined();
    const workedS = (statuses[statuses.length - 1].line.timeMs - run.output.readyMs!) / 1000;
    expect(samples.length).toBeGreaterThanOrEqual(Math.floor(workedS));
    expect(samples.length).toBeLessThanOrEqual(Math.ceil(workedS) + 1);
  });

  it.each(FIXTURES)('%s: the interval lines alone add up to the final summary, and so do the samples', (name) => {
    const run = readRecordedRun(name);
    const { samples } = buildSeries(run.output, run.totals);
    for (const [op, total] of Object.entries(run.totals.ops) as [OpType, NonNullable<RunTotals['ops'][OpType]>][]) {
      const counted = { ok: 0, failed: 0 };
      for (const i of run.output.intervals) {
        if (i.measurement === op) counted.ok += i.count;
        else if (i.measurement.startsWith(`${op}-`)) counted.failed += i.count;
      }
      expect(counted).toEqual({ ok: total.ok, failed: total.failed });
      expect(totalsOf(samples, op)).toEqual({ ok: total.ok, failed: total.failed });
    }
  });

  it.each(FIXTURES)('%s: latency only where operations succeeded, p95 <= p99', (name) => {
    const run = readRecordedRun(name);
    const { samples } = buildSeries(run.output, run.totals);
    for (const s of samples) {
      for (const op of Object.values(s.ops)) {
        if (op.ok === 0) expect(op.latencyUs).toBeNull();
        else {
          expect(op.latencyUs!.avg).toBeGreaterThan(0);
          expect(op.latencyUs!.p95).toBeLessThanOrEqual(op.latencyUs!.p99);
        }
      }
    }
  });

  it('a stalled server shows as seconds with no operation, then a burst; a dead one as failures', () => {
    const run = readRecordedRun('run-faults');
    const { samples } = buildSeries(run.output, run.totals);
    const idle = samples.findIndex((s) => s.okPerS === 0 && s.failedPerS === 0);
    expect(idle).toBeGreaterThan(0);
    expect(samples[idle + 1].okPerS + samples[idle + 1].failedPerS).toBe(0);
    const afterStall = samples.slice(idle).find((s) => s.okPerS > 0)!;
    const before = samples[idle - 2].okPerS;
    expect(afterStall.okPerS).toBeGreaterThan(before);
    const last = samples[samples.length - 1];
    expect(last.okPerS).toBe(0);
    expect(last.ops.READ!.failed).toBeGreaterThan(0);
    expect(last.ops.UPDATE!.failed).toBeGreaterThan(0);
  });

  it('the final partial second is a sample of its own, with fewer operations than a full one', () => {
    const run = readRecordedRun('run-short');
    const { samples } = buildSeries(run.output, run.totals);
    const [full, partial] = samples.slice(-2);
    expect(partial.okPerS).toBeGreaterThan(0);
    expect(partial.okPerS).toBeLessThan(full.okPerS);
  });

  it('heartbeat samples while running match the final series for the seconds they report', () => {
    const run = readRecordedRun('run-faults');
    const { samples } = buildSeries(run.output, run.totals);
    let checked = 0;
    for (let n = 2; n < run.output.statuses.length - 1; n++) {
      const seen = run.output.statuses.slice(0, n + 1);
      const until = seen[seen.length - 1].line.timeMs + 200;
      const live = latestSample({ ...run.output, statuses: seen, intervals: run.output.intervals.filter((i) => i.endMs <= until) });
      if (!live) continue;
      const final = samples[live.elapsedS - 1];
      // The run's origin is refined as status lines arrive: the clock may move by a few ms.
      expect(Math.abs(live.time - final.time)).toBeLessThan(50);
      expect({ ...live, time: 0 }).toEqual({ ...final, time: 0 });
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('streams no second before FRAGBENCH-READY has come, so the streamed seconds and the final series leave no hole', () => {
    // The client connected 2.5 s into its clock; status lines 1 and 2 reached us before READY did.
    const run = syntheticRun(
      [1, 2, 3, 4, 5, 6].map((s) => ({ atMs: s * 1000 + 3, ok: s < 3 ? 0 : 100 })),
      2_500,
    );
    const streamed = new Map<number, number>();
    run.output.statuses.forEach((_, i) => {
      const seen = run.output.statuses.slice(0, i + 1);
      const readyYet = i >= 3; // READY read after the third status line (t = 2 s)
      const live = latestSample({ ...run.output, statuses: seen, readyMs: readyYet ? run.output.readyMs : undefined });
      if (live) streamed.set(live.time, live.elapsedS);
    });
    const { samples } = buildSeries(run.output, run.totals);
    // Every streamed second is one of the final series' (by time); none is placed before the client was ready.
    for (const time of streamed.keys()) expect(samples.map((x) => x.time)).toContain(time);
    expect(Math.min(...streamed.keys())).toBeGreaterThanOrEqual(samples[0].time);
    expect(streamed.size).toBeGreaterThan(0);
  });
});

/**
 * A run as YCSB would print it, origin 0: a status line at each cut's time with READ (and
 * READ-FAILED) blocks, and the interval lines of the same cuts.
 */
function syntheticRun(cuts: { atMs: number; ok: number; failed?: number; p95?: number }[], readyMs?: number) {
  const statuses: ReceivedStatus[] = [];
  const intervals: IntervalLine[] = [];
  let previous = 0;
  for (const cut of [{ atMs: 0, ok: 0 }, ...cuts]) {
    const blocks: StatusLine['blocks'] = { READ: { count: cut.ok, avgUs: 100, p90Us: 150, p99Us: 300 } };
    intervals.push({
      kind: 'interval',
      measurement: 'READ',
      startMs: previous,
      endMs: cut.atMs,
      count: cut.ok,
      avgUs: 100,
      p95Us: cut.p95 ?? 200,
      p99Us: 300,
    });
    if (cut.failed !== undefined) {
      blocks['READ-FAILED'] = { count: cut.failed, avgUs: 50, p90Us: 60, p99Us: 70 };
      intervals.push({
        kind: 'interval',
        measurement: 'READ-FAILED',
        startMs: previous,
        endMs: cut.atMs,
        count: cut.failed,
        avgUs: 50,
        p95Us: 65,
        p99Us: 70,
      });
    }
    const line: StatusLine = { kind: 'status', timeMs: cut.atMs, elapsedSec: Math.floor(cut.atMs / 1000), totalOps: 0, blocks };
    statuses.push({ line, receivedAt: cut.atMs + 5 });
    previous = cut.atMs;
  }
  const ok = cuts.reduce((n, c) => n + c.ok, 0);
  const failed = cuts.reduce((n, c) => n + (c.failed ?? 0), 0);
  const totals: RunTotals = { runtimeMs: previous, throughputOpsPerS: 0, ops: { READ: { ok, failed, avgLatencyUs: 100 } } };
  return { output: { statuses, intervals, readyMs }, totals };
}

describe('reconciling status-thread timing', () => {
  it('shares a late interval between the seconds it spans, in proportion to its overlap', () => {
    const run = syntheticRun([
      { atMs: 1004, ok: 100 },
      { atMs: 2600, ok: 160 },
      { atMs: 3002, ok: 40 },
    ]);
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => s.okPerS)).toEqual([100, 100, 100]);
    expect(samples.map((s) => s.time)).toEqual([1005, 2005, 3005]);
  });

  it('merges a doubled status line into the second it belongs to, keeping the larger percentiles', () => {
    const run = syntheticRun([
      { atMs: 1001, ok: 50 },
      { atMs: 2001, ok: 60 },
      { atMs: 2010, ok: 5, p95: 280 },
    ]);
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => s.okPerS)).toEqual([50, 65]);
    expect(samples[1].ops.READ!.latencyUs).toEqual({ avg: 100, p95: 280, p99: 300 });
  });

  it('spreads a span over seconds that had no status line of their own', () => {
    const run = syntheticRun([
      { atMs: 1000, ok: 10, failed: 0 },
      { atMs: 4000, ok: 30, failed: 3 },
    ]);
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => [s.okPerS, s.failedPerS])).toEqual([
      [10, 0],
      [10, 1],
      [10, 1],
      [10, 1],
    ]);
    expect(samples[1].ops.READ!.latencyUs).toEqual({ avg: 100, p95: 200, p99: 300 });
  });

  it('places the cut YCSB makes at export, after its final status line, in the last second', () => {
    const run = syntheticRun([
      { atMs: 1000, ok: 10 },
      { atMs: 1600, ok: 6 },
    ]);
    run.output.intervals.push({ kind: 'interval', measurement: 'READ', startMs: 1600, endMs: 2900, count: 2, avgUs: 100, p95Us: 200, p99Us: 300 });
    run.totals.ops.READ!.ok += 2;
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => s.okPerS)).toEqual([10, 8]);
  });

  it('takes a block without its interval line at the status line p99 for p95', () => {
    const run = syntheticRun([
      { atMs: 1000, ok: 10 },
      { atMs: 2000, ok: 10 },
    ]);
    run.output.intervals.pop();
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples[1].ops.READ!.latencyUs).toEqual({ avg: 100, p95: 300, p99: 300 });
  });

  it('puts operations the lines missed into the last second, and refuses a surplus', () => {
    const run = syntheticRun([
      { atMs: 1000, ok: 10 },
      { atMs: 2000, ok: 10 },
    ]);
    run.totals.ops.READ!.ok += 3;
    expect(buildSeries(run.output, run.totals).samples.map((s) => s.okPerS)).toEqual([10, 13]);
    run.totals.ops.READ!.ok -= 6;
    expect(() => buildSeries(run.output, run.totals)).toThrow(/more READ operations than its summary/);
  });

  it('starts at the second the client became ready: the seconds before are client start-up', () => {
    const run = syntheticRun(
      [
        { atMs: 1000, ok: 0 },
        { atMs: 2000, ok: 70 },
        { atMs: 3000, ok: 100 },
      ],
      1300,
    );
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => [s.elapsedS, s.okPerS, s.time])).toEqual([
      [1, 70, 2005],
      [2, 100, 3005],
    ]);
  });

  it('places nothing of a long first interval before the client was ready', () => {
    const run = syntheticRun(
      [
        { atMs: 2600, ok: 130 },
        { atMs: 3000, ok: 40 },
      ],
      1300,
    );
    const { samples } = buildSeries(run.output, run.totals);
    expect(samples.map((s) => s.okPerS)).toEqual([70, 100]);
  });

  it('apportions whole operations that add up exactly', () => {
    for (const [count, weights] of [
      [7, [1, 1, 1]],
      [100, [997, 3]],
      [1, [5, 5]],
      [0, [1, 2]],
      [13, [0.4, 0.6, 1.7]],
    ] as const) {
      const shares = apportion(count, [...weights]);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(count);
      shares.forEach((s, i) => expect(Math.abs(s - (count * weights[i]) / weights.reduce((a, b) => a + b, 0))).toBeLessThan(1));
    }
  });
});
