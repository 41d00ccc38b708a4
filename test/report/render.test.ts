/**
 * Each recorded run in fixtures/runs is rendered to a report, which headless Chromium then opens
 * from disk as a reader would: every figure must have drawn (non-empty SVG with marks, the
 * expected axis and legend titles), nothing may be fetched but the file itself, the console must
 * stay clean, each figure's PNG must exist beside the page and match the figure's size, and the
 * page's own PNG button must download one. A screenshot of each report is kept for a human look.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { launchChromium, type Chromium } from '../../report/chromium';
import { writeReport } from '../../report/write-report';
import { EVENT_STYLE } from '../../report/figures/figure';
import { drawnFigures, openReport } from './report-page';

const FIXTURES = path.join(__dirname, 'fixtures', 'runs');
const SCREENSHOTS = path.join(tmpdir(), 'fb-report-screenshots');

const QUICKSTART = { figures: 2, texts: ['Seconds since start', 'latency epoch', 'link cut', 'link restore'] };

/**
 * Per recorded run: how many figures its data calls for, and titles (axes, legends) that must be
 * drawn. The runs carry the shipped experiment names, but the figures follow from the data.
 */
const EXPECTED: Record<string, { figures: number; texts: string[] }> = {
  'fx-latency-epochs': { figures: 2, texts: ['Latency scaling factor', 'Throughput (5X = 1)', 'Throughput (ops/s)', 'Database', '5X'] },
  'fx-bandwidth-epochs': { figures: 2, texts: ['Bandwidth scaling factor', 'Throughput (5X = 1)', 'Throughput (ops/s)'] },
  'fx-traffic': { figures: 5, texts: ['Bytes transferred', 'Transferred data (5X = 1)', 'Latency scaling factor', 'client (singapore)'] },
  'fx-single-resize': {
    figures: 11,
    texts: ['Latency scaling factor', 'Seconds after the request', 'Database', 'Seconds since start', 'Operations per second', 'resize: remove node'],
  },
  'fx-resize-on-the-fly': {
    figures: 7,
    texts: ['Variant', 'Seconds since start', 'Operations per second', 'After a resize', 'resize moving data', 'throughput settling', 'Resize step'],
  },
  'fx-link-removal': { figures: 2, texts: ['Mean round-trip time (ms)', 'Seconds since start', 'Operations per second', 'link cut'] },
  'fx-bursting': {
    figures: 3,
    texts: ['Layout (private_public nodes)', 'Throughput (ops/s)', 'Average latency (ms)', 'Failed operations (%)', '8_0', '1_7'],
  },
  'fx-distance': { figures: 2, texts: ['Layout (private_public nodes)', 'Region', 'Throughput (ops/s)', 'virginia'] },
  'fx-horizontal-scaling': { figures: 2, texts: ['Public nodes', 'Throughput (ops/s)', 'Average latency (ms)'] },
  'fx-vertical-scaling': { figures: 2, texts: ['Cores per public node', 'Throughput (ops/s)'] },
  'fx-vm-packing': { figures: 2, texts: ['Public VMs x cores', 'Throughput (ops/s)', '4x2'] },
  'fx-timed-events': { figures: 2, texts: ['Client', 'Seconds since start', 'Operations per second', 'client start', 'server start', 'failed'] },
  'fx-quickstart': QUICKSTART,
  'fx-consistency': {
    figures: 4,
    texts: ['Anomalies', 'stale reads', 'lost acknowledged writes', 'Failed operations, by cause', 'CLUSTERDOWN', 'unavailable', 'Failed per second'],
  },
  'quickstart-20261121-114113': QUICKSTART,
};

const runs = readdirSync(FIXTURES).sort();
let results: string;
let browser: Chromium;

beforeAll(async () => {
  results = mkdtempSync(path.join(tmpdir(), 'fb-report-render-'));
  cpSync(FIXTURES, results, { recursive: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(results, { recursive: true, force: true });
});

function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

it('expects something of every recorded run', () => {
  expect(Object.keys(EXPECTED).sort()).toEqual(runs);
});

describe.each(runs)('report of %s', (runId) => {
  it('renders every figure, offline and without console errors, with a PNG for each', async () => {
    const store = new ResultsStore(results);
    const run = await store.readRun(runId);
    const expected = EXPECTED[runId];
    const written = await writeReport(store, runId, { png: true });

    const { page, requests, problems } = await openReport(browser.context, written.reportPath, { width: 1500, height: 1000 });
    const figures = await drawnFigures(page);
    expect(figures).toHaveLength(expected.figures);
    for (const f of figures) {
      expect({ id: f.id, drawn: f.rendered > 10_000 && f.marks > 0 }).toEqual({ id: f.id, drawn: true });
      expect(f.heading).toMatch(/\?.+\.$/);
      const png = pngSize(path.join(path.dirname(written.reportPath), `${f.id}.png`));
      expect(png.width).toBe(f.width * 2);
    }
    const texts = new Set(figures.flatMap((f) => f.texts));
    // Every kind of event the run recorded has its entry in a legend.
    const recordedKinds = (await store.readCells(run)).flatMap((c) => c.phases.flatMap((p) => p.events.map((e) => e.kind)));
    const eventTitles = [...new Set(recordedKinds)].filter((k) => !k.startsWith('measure-')).map((k) => EVENT_STYLE[k].name);
    for (const title of [...expected.texts, ...eventTitles]) expect({ title, shown: texts.has(title) }).toEqual({ title, shown: true });
    expect(written.pngs).toHaveLength(figures.length);

    const download = page.waitForEvent('download');
    await page.click(`button[data-png="${figures[0].id}"]`);
    expect((await download).suggestedFilename()).toBe(`${figures[0].id}.png`);

    expect(await page.$$eval('.figure-warning', (ws) => ws.map((w) => w.textContent))).toEqual([]);
    const tables = await page.$$eval('section[id^="table-"] tbody tr', (rows) => rows.length);
    expect(tables).toBeGreaterThanOrEqual(run.cellIds.length);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${runId}.png`), fullPage: true });

    // On a narrow screen every figure shrinks to fit its section and the window: no legend cut off on the right.
    await page.setViewportSize({ width: 760, height: 1000 });
    const overflowing = await page.$$eval('section.figure', (sections) =>
      sections
        .filter((s) => {
          const right = Math.min(s.getBoundingClientRect().right, document.documentElement.clientWidth);
          return (s.querySelector('svg')?.getBoundingClientRect().right ?? 0) > right + 0.5;
        })
        .map((s) => s.id),
    );
    expect(overflowing).toEqual([]);
    await page.close();

    expect(problems).toEqual([]);
    expect(requests.filter((url) => !/^(file|data|blob):/.test(url))).toEqual([]);
    expect(requests.some((url) => url.startsWith('file:'))).toBe(true);
  }, 60_000);
});
