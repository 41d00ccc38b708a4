import { normalizeCells, pairBytes, settleTimes, summarizeCell, SETTLE_RULE } from '../../core/cell-summary';
import { cellTimeline } from '../../core/cell-timeline';
import { T0, cell, okSeries, phase, recorded, second } from './builders';

describe('summarizeCell', () => {
  it('counts seconds with no successful operation and averages throughput over every second', () => {
    const s = summarizeCell([phase('run', okSeries([5, 0, 0, 3, 0, 12]))]);
    expect(s.zeroSeconds).toBe(3);
    expect(s.okOps).toBe(20);
    expect(s.throughputOpsPerS).toBeCloseTo(20 / 6, 2);
  });

  it('leaves the flush and load phases out when there is a measured phase, and uses them when not', () => {
    const setup = [phase('flush', []), phase('load', okSeries([1000, 1000])), phase('load3', okSeries([500], T0 + 3000))];
    const s = summarizeCell([...setup, phase('run', okSeries([10, 20], T0 + 5000))]);
    expect(s.okOps).toBe(30);
    expect(s.throughputOpsPerS).toBe(15);
    expect(summarizeCell(setup).okOps).toBe(2500);
  });

  it('computes the error percentage from ok and failed operations, and 0 without operations', () => {
    const samples = [second(1, { READ: { ok: 40, failed: 5 }, UPDATE: { ok: 50, failed: 5 } }), second(2, { READ: { ok: 0 } })];
    const s = summarizeCell([phase('run', samples)]);
    expect(s.failedOps).toBe(10);
    expect(s.errorPercent).toBe(10);
    expect(summarizeCell([phase('run', okSeries([0, 0]))]).errorPercent).toBe(0);
  });

  it('weights each second’s latency by its ok count, per operation type', () => {
    const samples = [
      second(1, { READ: { ok: 10, avgUs: 100 }, UPDATE: { ok: 1, avgUs: 5000 } }),
      second(2, { READ: { ok: 30, avgUs: 200 }, UPDATE: { ok: 0 } }),
    ];
    const s = summarizeCell([phase('run', samples)]);
    expect(s.avgLatencyUs.READ).toBe(175);
    expect(s.avgLatencyUs.UPDATE).toBe(5000);
  });

  it('adds up overlapping phases (a ramped client) within the same second', () => {
    const main = phase('run', okSeries([10, 10, 10, 10]));
    const extra = phase('run:c2', okSeries([5, 5], T0 + 2000));
    const timeline = cellTimeline([main, extra]);
    expect(timeline.points.map((p) => p.sample.okPerS)).toEqual([10, 10, 15, 15]);
    expect(summarizeCell([main, extra]).throughputOpsPerS).toBe(12.5);
  });

  it('falls back on YCSB totals when a phase kept no samples', () => {
    const s = summarizeCell([
      phase('run', [], { totals: { runtimeMs: 4000, throughputOpsPerS: 25, ops: { READ: { ok: 80, failed: 20, avgLatencyUs: 300 } } } }),
    ]);
    expect(s.throughputOpsPerS).toBe(20);
    expect(s.errorPercent).toBe(20);
    expect(s.avgLatencyUs.READ).toBe(300);
  });

  it('normalizes against a reference cell’s throughput and bytes', () => {
    const traffic = [
      { time: T0, pairs: [{ a: 'x', b: 'y', bytes: 1000 }] },
      { time: T0 + 4000, pairs: [{ a: 'x', b: 'y', bytes: 3000 }] },
    ];
    const s = summarizeCell([phase('run', okSeries([30, 30, 30, 30]), { traffic })], { throughputOpsPerS: 10, bytesTransferred: 4000 });
    expect(s.normalizedThroughput).toBe(3);
    expect(s.bytesTransferred).toBe(2000);
    expect(s.normalizedBytes).toBe(0.5);
  });
});

describe('pairBytes', () => {
  it('takes each pair’s counter growth over the phase, in either order of names, and sums phases', () => {
    const first = phase('run', okSeries([1]), {
      traffic: [
        { time: T0, pairs: [{ a: 'b', b: 'a', bytes: 100 }] },
        {
          time: T0 + 9000,
          pairs: [
            { a: 'a', b: 'b', bytes: 600 },
            { a: 'b', b: 'c', bytes: 50 },
          ],
        },
      ],
    });
    const later = phase('run:2', okSeries([1], T0 + 10_000), { traffic: [{ time: T0 + 20_000, pairs: [{ a: 'a', b: 'b', bytes: 70 }] }] });
    const bytes = pairBytes([first, later]).sort((p, q) => p.a.localeCompare(q.a) || p.b.localeCompare(q.b));
    // a-b: 600-100 in the first phase; the second phase has one reading, counted as it is.
    expect(bytes).toEqual([
      { a: 'a', b: 'b', bytes: 570 },
      { a: 'b', b: 'c', bytes: 50 },
    ]);
  });

  it('treats a counter that went down as reset and counts its last value', () => {
    const p = phase('run', okSeries([1]), {
      traffic: [
        { time: T0, pairs: [{ a: 'a', b: 'b', bytes: 900 }] },
        { time: T0 + 5000, pairs: [{ a: 'a', b: 'b', bytes: 40 }] },
      ],
    });
    expect(pairBytes([p])).toEqual([{ a: 'a', b: 'b', bytes: 40 }]);
  });
});

describe('settle times after a resize', () => {
  /** 30 s at `before`, a resize at 30 s, then `after` for the given seconds, then `level` to 90 s. */
  function resized(after: number[], level: number, before = 100) {
    const counts = [...Array<number>(30).fill(before), ...after, ...Array<number>(60 - after.length).fill(level)];
    return [phase('run', okSeries(counts), { events: [recorded('resize-remove', 'remove n3', 30)] })];
  }

  it('measures from the request to the start of the first second of a stretch within the band', () => {
    const [settle] = settleTimes(resized([50, 50, 50, 50, 50], 100));
    expect(settle.levelOpsPerS).toBe(100);
    expect(settle.settledAfterS).toBe(5);
    expect(summarizeCell(resized([50, 50, 50, 50, 50], 100)).settleSeconds).toEqual({ 'remove n3': 5 });
  });

  it('settles at the new level, not the old one', () => {
    const [settle] = settleTimes(resized([20, 20, 20], 60));
    expect(settle.levelOpsPerS).toBe(60);
    expect(settle.settledAfterS).toBe(3);
  });

  it('uses ±tolerance of the level as the band', () => {
    const inside = 100 * (1 - SETTLE_RULE.tolerance) + 1;
    const outside = 100 * (1 - SETTLE_RULE.tolerance) - 1;
    expect(settleTimes(resized(Array<number>(10).fill(inside), 100))[0].settledAfterS).toBe(0);
    expect(settleTimes(resized(Array<number>(10).fill(outside), 100))[0].settledAfterS).toBe(10);
  });

  it('requires the hold time in the band: a brief return does not count', () => {
    const [settle] = settleTimes(resized([50, 100, 100, 50, 50, 50, 50], 100));
    expect(settle.settledAfterS).toBe(7);
  });

  it('widens the band to the new level’s own noise', () => {
    // The new level alternates 80/120 (sd ~20, band ~±41): 80 and 120 are inside it, 50 is not.
    const noisy = Array.from({ length: 60 }, (_, i) => (i < 4 ? 50 : i % 2 === 0 ? 80 : 120));
    const counts = [...Array<number>(30).fill(100), ...noisy];
    const [settle] = settleTimes([phase('run', okSeries(counts), { events: [recorded('resize-add', 'add n3', 30)] })]);
    expect(settle.settledAfterS).toBe(4);
  });

  it('reports no settle time when the next event comes first, and leaves it out of the summary', () => {
    const phases = resized(Array<number>(60).fill(50), 100);
    phases[0].events.push(recorded('link-cut', 'cut a-b/0', 33));
    const [settle] = settleTimes(phases);
    expect(settle.windowEndT).toBe(33);
    expect(settle.settledAfterS).toBeNull();
    expect(summarizeCell(phases).settleSeconds).toEqual({});
  });

  it('ignores measurements as disturbances and gives repeated labels a number', () => {
    const counts = Array<number>(90).fill(100);
    const events = [recorded('resize-remove', 'step', 20), recorded('measure-rtt', 'ping', 22), recorded('resize-remove', 'step', 50)];
    const settles = settleTimes([phase('run', okSeries(counts), { events })]);
    expect(settles.map((s) => [s.label, s.windowEndT])).toEqual([
      ['step', 50],
      ['step #2', 90],
    ]);
  });
});

describe('normalizeCells', () => {
  const run = (ok: number) => [phase('run', okSeries([ok, ok]))];
  const cells = [
    cell('r1', { database: 'redis', latencyScale: 1 }, run(10)),
    cell('r02', { database: 'redis', latencyScale: 0.2 }, run(40)),
    cell('c1', { database: 'cassandra', latencyScale: 1 }, run(5)),
    cell('c02', { database: 'cassandra', latencyScale: 0.2 }, run(10)),
  ];

  it('divides by the same database’s cell at latencyScale 1 by default', () => {
    const byId = Object.fromEntries(normalizeCells(cells).map((c) => [c.cellId, c.summary.normalizedThroughput]));
    expect(byId).toEqual({ r1: 1, r02: 4, c1: 1, c02: 2 });
  });

  it('follows the reference the scenario named', () => {
    const byId = Object.fromEntries(normalizeCells(cells, { latencyScale: 0.2 }).map((c) => [c.cellId, c.summary.normalizedThroughput]));
    expect(byId).toEqual({ r1: 0.25, r02: 1, c1: 0.5, c02: 1 });
  });

  it('leaves cells without a reference cell, and matrices without a scale, as they are', () => {
    const lonely = cell('m02', { database: 'mongodb', latencyScale: 0.2 }, run(7));
    expect(normalizeCells([...cells, lonely]).find((c) => c.cellId === 'm02')?.summary.normalizedThroughput).toBeUndefined();
    const plain = [cell('a', { database: 'redis' }, run(3))];
    expect(normalizeCells(plain)).toBe(plain);
  });
});
