/**
 * Writes a run's report: results/<run>/report/index.html, and beside it one PNG per figure.
 * The PNGs are drawn by the page's own export script in headless Chromium, so a PNG file and
 * the page's PNG button give the same picture; without Chromium the page is still written and
 * its buttons still work.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResultsStore, writeFileAtomic } from '../services/results/results-store';
import { buildReport } from './build-report';
import { chromiumUnavailable, withChromium } from './chromium';
import { renderHtml } from './html';
import { renderSvg, type RenderedFigure } from './vega';

/** PNG pixels per SVG pixel: sharp enough for a paper. */
const PNG_SCALE = 2;

export interface WrittenReport {
  reportPath: string;
  pngs: string[];
  /** Why no PNGs were written, when none were. */
  pngSkipped?: string;
}

async function writePngs(htmlFile: string, ids: string[]): Promise<string[]> {
  return withChromium(async (context) => {
    const page = await context.newPage();
    await page.goto(pathToFileURL(htmlFile).href);
    const written: string[] = [];
    for (const id of ids) {
      const dataUrl = await page.evaluate(
        ([figure, scale]) =>
          (window as unknown as { fragbenchFigurePng(id: string, scale: number): Promise<string> }).fragbenchFigurePng(figure, scale),
        [id, PNG_SCALE] as const,
      );
      const file = path.join(path.dirname(htmlFile), `${id}.png`);
      await writeFileAtomic(file, Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
      written.push(file);
    }
    return written;
  });
}

/** png: true = required, false = skip, 'auto' = when Chromium is available. */
export async function writeReport(store: ResultsStore, runId: string, options: { png?: boolean | 'auto' } = {}): Promise<WrittenReport> {
  const run = await store.readRun(runId);
  const model = buildReport(run, await store.readCells(run));
  const rendered = new Map<string, RenderedFigure>();
  for (const figure of model.figures) {
    try {
      rendered.set(figure.id, await renderSvg(figure.spec));
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- its message is kept; a cause would add vega's stack to the failure finishRun records
      throw new Error(`figure ${figure.id} of run ${runId}: ${(err as Error).message}`);
    }
  }
  const dir = store.reportDir(runId);
  await fs.mkdir(dir, { recursive: true });
  // PNGs of figures this report no longer has would mislead.
  const wanted = new Set(model.figures.map((f) => `${f.id}.png`));
  for (const entry of await fs.readdir(dir)) {
    if (entry.endsWith('.png') && !wanted.has(entry)) await fs.rm(path.join(dir, entry));
  }
  const reportPath = store.reportFile(runId);
  await writeFileAtomic(reportPath, renderHtml(model, rendered));

  const png = options.png ?? 'auto';
  const unavailable = chromiumUnavailable();
  if (png === false) return { reportPath, pngs: [], pngSkipped: 'not asked for' };
  if (model.figures.length === 0) return { reportPath, pngs: [], pngSkipped: 'the report has no figures' };
  if (png === 'auto' && unavailable) return { reportPath, pngs: [], pngSkipped: unavailable };
  return {
    reportPath,
    pngs: await writePngs(
      reportPath,
      model.figures.map((f) => f.id),
    ),
  };
}
