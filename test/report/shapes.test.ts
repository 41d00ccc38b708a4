/**
 * The report must hold up for any scenario a user writes, not only the shipped ones: every shape
 * in fixtures/shapes.ts, under a few seeds and under titles that say nothing about the data (or
 * name a shipped experiment it is not), is recorded, rendered, and opened in headless Chromium.
 * No console error or warning, no page error, no drawing warning (Vega's "Infinite extent" is one), every figure
 * drawn, and no sentence that presents an unchanged value as a change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import type { CellRecord } from '../../core/run-record';
import { buildReport } from '../../report/build-report';
import { launchChromium, type Chromium } from '../../report/chromium';
import { writeReport } from '../../report/write-report';
import { runRecord, T0 } from './builders';
import { randomRun } from './fixtures/random-shapes';
import { SHAPES, TITLES, type Shape } from './fixtures/shapes';
import { seeded } from './fixtures/synthetic';
import { drawnFigures, openReport } from './report-page';
import { unchangedChanges } from './unchanged-change';

const SEEDS = [1, 2, 3];
/** Runs whose every feature the seed draws (fixtures/random-shapes.ts). */
const RANDOM: Shape = { name: 'random', build: randomRun };
const RANDOM_SEEDS = Array.from({ length: 20 }, (_, i) => 100 + i);
const cases = [...SHAPES.flatMap((shape) => SEEDS.map((seed) => ({ shape, seed }))), ...RANDOM_SEEDS.map((seed) => ({ shape: RANDOM, seed }))].map(
  (c, i) => ({ ...c, title: TITLES[i % TITLES.length] }),
);

/**
 * Figures the recorded data calls for, said without the report's own selection code: a cell
 * with per-second samples and events or ramped clients gets its throughput timeline, a cell
 * with an answered RTT measurement its RTT timeline, a timed resize the resize figure, bytes
 * exchanged a traffic graph, a scaling factor with two values the normalized throughput.
 */
function figuresCalledFor(cells: CellRecord[]): string[] {
  const measured = (c: CellRecord) => c.phases.filter((p) => p.name !== 'load');
  const ids = cells.flatMap((c) => {
    const sampled = measured(c).some((p) => p.samples.length > 0);
    const happening = measured(c).some((p) => p.name.includes(':') || p.events.some((e) => !e.kind.startsWith('measure-')));
    const rtt = measured(c).some((p) => p.rtt.some((m) => m.meanMs !== null));
    return [...(sampled && happening ? [`throughput-${c.cellId}`] : []), ...(rtt ? [`rtt-timeline-${c.cellId}`] : [])];
  });
  const events = cells.flatMap((c) => c.phases.flatMap((p) => p.events));
  if (events.some((e) => e.kind.startsWith('resize-') && e.acceptedAt !== undefined)) ids.push('resize-timings');
  // Traffic is drawn at the reference factor (1 in these runs) where the cells have one.
  const graphed = cells.filter(
    (c) => (c.summary.bytesTransferred ?? 0) > 0 && [undefined, 1].includes(c.coordinates.latencyScale as number | undefined),
  );
  ids.push(...new Set(graphed.map((c) => `traffic-graph-${c.coordinates.database}`)));
  if (new Set(cells.map((c) => c.coordinates.latencyScale).filter((v) => v !== undefined)).size > 1) ids.push('normalized-throughput-latencyscale');
  if (new Set(cells.map((c) => c.coordinates.layout).filter((v) => v !== undefined)).size > 1) ids.push('throughput-by-layout');
  return ids;
}

let results: string;
let browser: Chromium;

beforeAll(async () => {
  results = mkdtempSync(path.join(tmpdir(), 'fb-report-shapes-'));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(results, { recursive: true, force: true });
});

describe('the detector of unchanged "changes"', () => {
  it('flags equal values presented as a change, and only those', () => {
    expect(unchangedChanges('Mean RTT went from 6.7 ms to 6.7 ms over 1 removals.')).toHaveLength(1);
    expect(unchangedChanges('It ranges from 5 ops/s (redis 8_0) to 5 ops/s (redis 4_4).')).toHaveLength(1);
    expect(unchangedChanges('the largest single change, 0.0 ms, came with cut a')).toHaveLength(1);
    expect(unchangedChanges('RTT went from 6.7 ms to 6.8 ms; from 1 s to 1 min; a change of 0.5 ms; goes from X to 5X.')).toEqual([]);
  });
});

describe.each(cases)('report of shape "$shape.name" (seed $seed, titled "$title")', ({ shape, seed, title }) => {
  it('opens without errors, draws every figure it has, and reports no unchanged value as a change', async () => {
    const store = new ResultsStore(results);
    const runId = `${shape.name.replace(/[^a-z0-9]+/gi, '-')}-${seed}`;
    const cells = shape.build(seeded(seed), T0);
    const record = runRecord(runId, cells, { experiment: title, scenario: 'my-scenario', status: 'completed', finishedAt: T0 + 600_000 });
    await store.writeRun(record);
    for (const c of cells) await store.writeCell(runId, c);
    const written = await writeReport(store, runId, { png: false });

    const { page, problems } = await openReport(browser.context, written.reportPath, { width: 1400, height: 900 });
    const figures = await drawnFigures(page);
    const warnings = await page.$$eval('.figure-warning', (ws) => ws.map((w) => w.textContent ?? ''));
    const text = await page.$$eval('header, main', (parts) => parts.map((p) => (p as HTMLElement).innerText).join('\n'));
    await page.close();

    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    const drawn = figures.map((f) => f.id);
    expect(figuresCalledFor(cells).filter((id) => !drawn.includes(id))).toEqual([]);
    for (const f of figures) expect({ id: f.id, drawn: f.rendered > 1_000 && f.marks > 0 }).toEqual({ id: f.id, drawn: true });
    expect(unchangedChanges(text)).toEqual([]);
    // The title is the user's words: shown, but it picks nothing.
    expect(text).toContain(title);
    const chosen = (experiment: string) => {
      const model = buildReport({ ...record, experiment }, cells);
      return { question: model.question, figures: model.figures.map((f) => `${f.id}: ${f.heading}`), notes: model.notes };
    };
    expect(chosen('something else entirely')).toEqual(chosen(title));
  }, 60_000);
});
