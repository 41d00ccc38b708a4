/**
 * `fragbench compare`'s model and page, on runs made from the stored fixture fx-single-resize
 * (test/report/fixtures/compare-runs.ts: three Redis runs and two Cassandra runs of one scenario,
 * each repetition's seconds scaled by a known factor): the side chosen, the cells lined up by
 * coordinates, each side's median and interval and the difference's, the time axis aligned at
 * each event, the refusals (with their reasons), and the page opened in headless Chromium: drawn,
 * offline, with no console error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../../core/errors';
import { bootstrapDifferenceInterval, median } from '../../core/reproduce/statistics';
import type { CellRecord } from '../../core/run-record';
import { launchChromium, type Chromium } from '../../report/chromium';
import { columnsFor, CELL_COLUMNS } from '../../report/compare-runs/columns';
import { lineUp, scenarioEvents, type ComparedRun } from '../../report/compare-runs/line-up';
import { compareRuns, type ComparedLine } from '../../report/compare-runs/model';
import { writeComparisonPage } from '../../report/compare-runs/page';
import { alignedSeconds, alignedThroughput } from '../../report/figures/aligned-throughput';
import { ResultsStore } from '../../services/results/results-store';
import { cellsOf, REPETITIONS, runIdOf, writeCompareRuns } from './fixtures/compare-runs';
import { drawnFigures, openReport } from './report-page';

jest.setTimeout(120_000);

const results = mkdtempSync(path.join(tmpdir(), 'fb-compare-runs-'));
const store = new ResultsStore(results);
let runs: ComparedRun[];
let browser: Chromium;

async function read(runId: string): Promise<ComparedRun> {
  const run = await store.readRun(runId);
  return { run, cells: await store.readCells(run) };
}

beforeAll(async () => {
  runs = await Promise.all(writeCompareRuns(results).map(read));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  rmSync(results, { recursive: true, force: true });
});

const throughputOf = (database: string, latencyScale: number) =>
  runs
    .filter((r) => r.run.runId.startsWith(`sr-${database}-`))
    .map((r) => r.cells.find((c) => c.coordinates.latencyScale === latencyScale)!.summary.throughputOpsPerS);

test('runs of different databases line up by database, cell for cell by their other coordinates', () => {
  const comparison = compareRuns(runs);
  expect(comparison.by).toBe('database');
  expect(comparison.baseline).toBe('redis');
  expect(comparison.sides).toEqual([
    { side: 'redis', runIds: REPETITIONS.redis.map((_, i) => runIdOf('redis', i + 1)) },
    { side: 'cassandra', runIds: REPETITIONS.cassandra.map((_, i) => runIdOf('cassandra', i + 1)) },
  ]);
  expect(comparison.lines.map((l) => l.coordinates)).toEqual([{ latencyScale: 1 }, { latencyScale: 0.2 }]);
  for (const line of comparison.lines) {
    expect(line.sides.map((s) => [s.side, s.cells.length])).toEqual([
      ['redis', 3],
      ['cassandra', 2],
    ]);
    expect(line.anchors.map((a) => a.label)).toEqual(['remove dubai', 'add dubai']);
  }
});

test("each side's throughput is the median of its repetitions with an interval, and the difference's interval holds the difference", () => {
  const comparison = compareRuns(runs);
  const line = comparison.lines.find((l) => l.coordinates.latencyScale === 0.2)!;
  const [redis, cassandra] = [throughputOf('redis', 0.2), throughputOf('cassandra', 0.2)];
  // The repetitions differ (their seconds were scaled), so the intervals are not points.
  expect(new Set(redis).size).toBe(3);
  const side = (name: string) => line.sides.find((s) => s.side === name)!.values['Throughput (ops/s)'];
  expect(side('redis')).toMatchObject({ median: median(redis), n: 3 });
  expect(side('cassandra')).toMatchObject({ median: median(cassandra), n: 2 });
  const estimate = side('redis') as { low: number; high: number };
  expect(estimate.low).toBeLessThan(estimate.high);
  const [difference] = line.differences;
  expect(difference).toMatchObject({ side: 'cassandra', against: 'redis' });
  const throughput = difference.values['Throughput (ops/s)']!;
  expect(throughput.difference).toBeCloseTo(median(cassandra) - median(redis), 9);
  expect(throughput.relativePercent).toBeCloseTo(((median(cassandra) - median(redis)) / median(redis)) * 100, 9);
  expect({ low: throughput.low, high: throughput.high }).toEqual(bootstrapDifferenceInterval(cassandra, redis));
  expect(throughput.low!).toBeLessThanOrEqual(throughput.difference);
  expect(throughput.high!).toBeGreaterThanOrEqual(throughput.difference);
  // Text columns are shown, not differenced.
  expect(line.sides[0].values.Validity).toEqual({ text: 'not checked' });
  expect(difference.values.Validity).toBeUndefined();
});

test('the columns come from one list: every entry, each resize made out into its acceptance and completion', () => {
  const headings = columnsFor(runs.flatMap((r) => r.cells)).map((c) => c.heading);
  expect(headings).toEqual([
    'Throughput (ops/s)',
    'p99 latency (ms, median second)',
    'Errors (%)',
    'Failed operations',
    'remove dubai: accepted after (s)',
    'remove dubai: completed after (s)',
    'add dubai: accepted after (s)',
    'add dubai: completed after (s)',
    'Validity',
  ]);
  // A column added to the list reaches the model (and so the table, the differences and the JSON).
  CELL_COLUMNS.push({ heading: 'Cell id length', value: (c: CellRecord) => c.cellId.length });
  try {
    const line = compareRuns(runs).lines[0];
    expect(line.sides[0].values['Cell id length']).toMatchObject({ median: 'c01-redis-lsf1'.length });
    expect(line.differences[0].values['Cell id length']?.difference).toBe('c03-cassandra-lsf1'.length - 'c01-redis-lsf1'.length);
  } finally {
    CELL_COLUMNS.pop();
  }
});

test('a second counts on from the last event at or before it, placed where the first run had that event', () => {
  const own = [10, 20];
  const anchors = [12, 19];
  expect([5, 10, 15, 20, 25].map((t) => alignedSeconds(own, anchors, t))).toEqual([5, 12, 17, 19, 24]);
  // In the figure, a run whose events came 3 s later than the first run's is drawn with its events' seconds on the first run's.
  const [first] = runs;
  const late = shiftedAfterFirstEvent(first.cells[0], 3);
  const line: ComparedLine = {
    ...compareRuns(runs).lines[0],
    linedCells: [
      { side: 'redis', cells: [{ runId: first.run.runId, cell: first.cells[0] }] },
      { side: 'late', cells: [{ runId: 'late', cell: late }] },
    ],
  };
  const [figure] = alignedThroughput(line, 'database');
  const layers = (figure.spec as { layer: { data: { values: { t: number; side?: string }[] } }[] }).layer;
  const eventTimes = scenarioEvents(first.cells[0]).map((e) => e.t);
  expect(layers[1].data.values.map((r) => r.t)).toEqual(eventTimes);
  const seconds = (side: string) => layers[0].data.values.filter((r) => r.side === side).map((r) => r.t);
  // Every second after the first event lands where the same second of the first run does.
  const after = (ts: number[]) => ts.filter((t) => t >= eventTimes[0]);
  expect(after(seconds('late')).slice(0, 10)).toEqual(after(seconds('redis')).slice(0, 10));
});

/** The cell with everything from its first event on 3 s later (its events fired late). */
function shiftedAfterFirstEvent(cell: CellRecord, seconds: number): CellRecord {
  const firstEvent = Math.min(...cell.phases.flatMap((p) => p.events.map((e) => e.requestedAt)));
  const later = (ms: number) => (ms >= firstEvent ? ms + seconds * 1000 : ms);
  return {
    ...cell,
    phases: cell.phases.map((p) => ({
      ...p,
      samples: p.samples.map((s) => ({ ...s, time: later(s.time) })),
      events: p.events.map((e) => ({ ...e, requestedAt: later(e.requestedAt) })),
    })),
  };
}

describe('refused, with the reason', () => {
  const refusal = (compared: ComparedRun[], by?: Parameters<typeof lineUp>[1]) => {
    try {
      lineUp(compared, by);
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      return (err as Error).message;
    }
    throw new Error('not refused');
  };
  const run = (runId: string, cells: CellRecord[]): ComparedRun => ({ run: { ...runs[0].run, runId }, cells });

  test('a cell with no counterpart on the other side', () => {
    const cassandraAt1 = run(
      'c',
      cellsOf('cassandra').filter((c) => c.coordinates.latencyScale === 1),
    );
    expect(refusal([runs[0], cassandraAt1])).toMatch(
      /their cells cannot be matched \(compared by database[^\n]*\n {2}database cassandra has no cell at latencyScale=0\.2 \(run sr-redis-r1 has c02-redis-lsf0\.2 there\)$/,
    );
  });

  test('cells whose scenario events differ', () => {
    const cells = cellsOf('cassandra').map((c) => ({ ...c, phases: c.phases.map((p) => ({ ...p, events: p.events.slice(0, 1) })) }));
    expect(refusal([runs[0], run('c', cells)])).toContain(
      'at latencyScale=1: run c cell c03-cassandra-lsf1 [resize-remove] differs from run sr-redis-r1 cell c01-redis-lsf1 [resize-remove, resize-add]',
    );
  });

  test('nothing to compare, and a run given twice', () => {
    const redis = runs.filter((r) => r.run.runId.startsWith('sr-redis-'));
    expect(refusal(redis, 'database')).toMatch(/^runs: nothing to compare: every cell has database redis; give runs of other databases/);
    expect(refusal([runs[0]])).toMatch(/^runs: nothing to compare: every cell has run sr-redis-r1/);
    expect(refusal([runs[0], runs[0]])).toBe('runs: run sr-redis-r1 is given twice; give each run once');
  });

  test('repetitions of one database, nothing else differing, line up run by run', () => {
    const redis = runs.filter((r) => r.run.runId.startsWith('sr-redis-'));
    expect(lineUp(redis)).toMatchObject({ by: 'run', sides: [{ side: 'sr-redis-r1' }, { side: 'sr-redis-r2' }, { side: 'sr-redis-r3' }] });
  });
});

test('the page opens in headless Chromium with every figure drawn, nothing loaded and no console error', async () => {
  const comparison = compareRuns(runs);
  const file = await writeComparisonPage(comparison, results, (runId) => store.reportFile(runId));
  expect(path.dirname(file)).toBe(path.join(results, 'comparisons'));
  const { page, requests, problems } = await openReport(browser.context, file, { width: 1400, height: 1000 });
  expect(problems).toEqual([]);
  expect(requests).toEqual([pathToFileURL(file).href]);
  const figures = await drawnFigures(page);
  expect(figures).toHaveLength(comparison.lines.length);
  for (const f of figures) {
    expect({ id: f.id, drawn: f.rendered > 10_000 && f.marks > 0 }).toEqual({ id: f.id, drawn: true });
    expect(f.texts).toEqual(expect.arrayContaining(['redis', 'cassandra', 'remove dubai', 'add dubai']));
  }
  const rows = await page.$$eval('#table-compared-cells tbody tr', (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)),
  );
  expect(rows.map((r) => r.slice(0, 3))).toEqual([
    ['5X', 'redis', '3'],
    ['5X', 'cassandra', '2'],
    ['X', 'redis', '3'],
    ['X', 'cassandra', '2'],
  ]);
  expect(await page.$$eval('#table-differences tbody tr', (trs) => trs.length)).toBe(2);
});
