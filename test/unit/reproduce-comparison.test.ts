/**
 * The comparison's rules on constructed figures: a ratio's agreement (range, 20 % of a single
 * value), whether the published value is inside our interval, orderings judged from our figures,
 * figures not `ok` never used, and the seeded bootstrap interval.
 */
import { aggregate } from '../../core/reproduce/aggregate';
import { epochLabel } from '../../core/reproduce/experiment';
import type { Figure } from '../../core/reproduce/figures';
import { compareLatency, judgeRatio, type PublishedLatency } from '../../core/reproduce/latency-comparison';
import { latencyTable } from '../../core/reproduce/comparison-text';
import { bootstrapMedianInterval, estimate, median } from '../../core/reproduce/statistics';
import type { Workload } from '../../core/ycsb';
import published from '../../core/reproduce/published-latency.json';

const throughput = (database: string, workload: Workload, scale: number, value: number, verdict: Figure['verdict'] = 'ok'): Figure => ({
  database,
  cell: 'latencyScale=0.2',
  phase: epochLabel(workload, scale),
  measure: 'throughput',
  unit: 'ops/s',
  value,
  verdict,
  ...(verdict === 'ok' ? {} : { why: 'host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)' }),
});

/** T = base / scale^k: k = 1 is fully latency-bound (T(0.2)/T(1.0) = 5). */
type ByWorkload = Record<string, Partial<Record<Workload, number>>>;

function repetition(sensitivity: ByWorkload, base: ByWorkload, jitter = 1): Figure[] {
  return Object.entries(sensitivity).flatMap(([db, byWorkload]) =>
    (Object.entries(byWorkload) as [Workload, number][]).flatMap(([w, k]) =>
      [0.2, 0.4, 1.0].map((s) => throughput(db, w, s, (base[db][w]! * jitter) / s ** k)),
    ),
  );
}

const SENSITIVITY: ByWorkload = { redis: { a: 1, c: 1, f: 1, e: 1.1 }, cassandra: { a: 0.6, c: 0.6, f: 0.6, e: 0.3 } };
const BASE: ByWorkload = { redis: { a: 100, c: 110, f: 60, e: 20 }, cassandra: { a: 50, c: 55, f: 30, e: 10 } };

test('median and the seeded bootstrap interval: the same values give the same interval', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  const a = bootstrapMedianInterval([4.8, 5.1, 5.6, 4.9]);
  expect(bootstrapMedianInterval([4.8, 5.1, 5.6, 4.9])).toEqual(a);
  expect(a.low).toBeGreaterThanOrEqual(4.8);
  expect(a.high).toBeLessThanOrEqual(5.6);
  expect(a.low).toBeLessThan(a.high);
  expect(bootstrapMedianInterval([7])).toEqual({ low: 7, high: 7 });
  expect(bootstrapMedianInterval([1, 2, 3], { seed: 1, resamples: 500, level: 0.95 })).not.toEqual(
    bootstrapMedianInterval([1, 2, 30], { seed: 1, resamples: 500, level: 0.95 }),
  );
});

test('a ratio agrees inside its published range or within 20 % of a single value; the published value against our interval', () => {
  expect(judgeRatio(estimate([5.2, 5.4, 5.3]), { publishedRange: [5.0, 5.8] })).toEqual({ agrees: true, publishedInsideInterval: true });
  expect(judgeRatio(estimate([4.2, 4.4, 4.3]), { publishedRange: [5.0, 5.8] })).toEqual({ agrees: false, publishedInsideInterval: false });
  expect(judgeRatio(estimate([1.6, 1.62, 1.65]), { published: 1.84 })).toMatchObject({ agrees: true, publishedInsideInterval: false });
  expect(judgeRatio(estimate([1.4, 1.45, 1.5]), { published: 1.84 })).toMatchObject({ agrees: false });
  expect(judgeRatio(estimate([1.7, 1.9, 1.8]), { published: 1.84 })).toEqual({ agrees: true, publishedInsideInterval: true });
});

test('the published table: ratios from our repetitions, workload B not run here, orderings judged from our figures', () => {
  const reps = [repetition(SENSITIVITY, BASE, 1), repetition(SENSITIVITY, BASE, 1.02), repetition(SENSITIVITY, BASE, 0.98)];
  const c = compareLatency(published as PublishedLatency, reps);
  const row = (entry: string) => c.ratios.find((r) => r.entry === entry)!;
  expect(row('redis A T(0.2)/T(1.0)').ours!.median).toBeCloseTo(5, 6);
  expect(row('redis A T(0.2)/T(1.0)').agrees).toBe(true);
  expect(row('redis A T(0.2)/T(0.4)')).toMatchObject({ agrees: true });
  expect(row('redis E T(0.2)/T(1.0)').ours!.median).toBeCloseTo(5 ** 1.1, 6);
  expect(row('cassandra A T(0.2)/T(0.4)').ours!.median).toBeCloseTo(2 ** 0.6, 6);
  expect(row('redis B T(0.2)/T(1.0)').note).toMatch(/^not run here: workload B/);
  expect(row('cassandra B T(0.2)/T(1.0)').ours).toBeUndefined();
  const ordering = (start: string) => c.orderings.find((o) => o.entry.startsWith(start))!;
  expect(ordering('redis T(0.2)/T(1.0) > cassandra')).toMatchObject({ holds: true, heldIn: 3, judgedIn: 3 });
  expect(ordering('redis throughput > cassandra')).toMatchObject({ holds: true });
  expect(ordering('for both databases')).toMatchObject({ holds: true });
  expect(ordering('redis: workload e')).toMatchObject({ holds: true });
  const table = latencyTable(c);
  expect(table).toMatch(/\| MongoDB, every workload \| \(published set\) \| not runnable on this host \|/);
  expect(table).toMatch(/\| redis A T\(0\.2\)\/T\(1\.0\) \| 5–5\.8 \| 5\.00 \[5\.00, 5\.00\] \| yes \| yes \|/);
});

test('throughputs of databases run with different client threads are compared per thread', () => {
  const withThreads = (figures: Figure[]) => figures.map((f) => ({ ...f, threads: f.database === 'redis' ? 8 : 1 }));
  const c = compareLatency(published as PublishedLatency, [withThreads(repetition(SENSITIVITY, BASE))]);
  const row = c.orderings.find((o) => o.entry.startsWith('redis throughput > cassandra'))!;
  // 100 ops/s on 8 threads is 12.5 per thread, below Cassandra's 50 on one.
  expect(row).toMatchObject({ holds: false, heldIn: 0, judgedIn: 1 });
  expect(row.shows).toMatch(/^per client thread \(redis 8, cassandra 1 threads\): A@0\.2: 62\.5 vs 131 ops\/s per thread; /);
  // The same thread count: compared as measured.
  const same = compareLatency(published as PublishedLatency, [repetition(SENSITIVITY, BASE).map((f) => ({ ...f, threads: 4 }))]);
  expect(same.orderings.find((o) => o.entry.startsWith('redis throughput > cassandra'))!).toMatchObject({
    holds: true,
    shows: expect.stringMatching(/^A@0\.2: 500 vs 131 ops\/s;/) as unknown,
  });
});

test('orderings that do not hold in our figures say so, with the figures', () => {
  const flat: ByWorkload = { redis: { a: 0.2, c: 0.2, f: 0.2, e: 0.1 }, cassandra: { a: 0.6, c: 0.6, f: 0.6, e: 0.9 } };
  const c = compareLatency(published as PublishedLatency, [repetition(flat, BASE)]);
  const first = c.orderings[0];
  expect(first.holds).toBe(false);
  expect(first.shows).toMatch(/^A: 1\.38 vs 2\.63; C: 1\.38 vs 2\.63$/);
  expect(c.orderings[3]).toMatchObject({ holds: false });
});

test('a figure not ok is never used: its ratio is "not reproducible here" with the verdict, and aggregation leaves it out', () => {
  const rep = repetition(SENSITIVITY, BASE).map((f) =>
    f.database === 'cassandra' && f.phase === epochLabel('a', 1.0)
      ? { ...f, verdict: 'host-bound' as const, why: 'host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)' }
      : f,
  );
  const c = compareLatency(published as PublishedLatency, [rep]);
  expect(c.ratios.find((r) => r.entry === 'cassandra A T(0.2)/T(0.4)')!.ours).toBeDefined();
  expect(c.orderings[0].shows).toBe(
    'not reproducible here: no ok figure for cassandra A at 1; on the flagged figures it holds (A: 5.00 vs 2.63; C: 5.00 vs 2.63)',
  );
  const agg = aggregate([rep, repetition(SENSITIVITY, BASE)]);
  const flagged = agg.find((f) => f.database === 'cassandra' && f.phase === epochLabel('a', 1.0))!;
  expect(flagged.measured).toBe(2);
  expect(flagged.estimate!.n).toBe(1);
  expect(flagged.flagged).toEqual([{ repetition: 1, verdict: 'host-bound', why: 'host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)' }]);
});

test('with no ok repetition a ratio is not reproducible here, and the flagged figures are shown beside it for reading only', () => {
  const flagged = repetition(SENSITIVITY, BASE).map((f) =>
    f.database === 'redis' ? { ...f, verdict: 'host-bound' as const, why: 'other ≥ 95 % of one core in 100 % of seconds (threshold 10 %)' } : f,
  );
  const c = compareLatency(published as PublishedLatency, [flagged]);
  const row = c.ratios.find((r) => r.entry === 'redis A T(0.2)/T(1.0)')!;
  expect(row.ours).toBeUndefined();
  expect(row.agrees).toBeUndefined();
  expect(row.note).toBe('not reproducible here (verdict host-bound: other ≥ 95 % of one core in 100 % of seconds (threshold 10 %))');
  expect(row.flagged!.median).toBeCloseTo(5, 6);
  expect(latencyTable(c)).toContain('; flagged figures give 5.00 (1 run: no interval) | – | – |');
  expect(c.orderings[0].shows).toMatch(
    /^not reproducible here: no ok figure for redis A at 0\.2, redis C at 0\.2; on the flagged figures it holds \(A: 5\.00 vs 2\.63/,
  );
});
