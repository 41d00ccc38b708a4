/**
 * The comparison of a reproduce directory as one self-contained page (comparison.html): per
 * experiment the published set-up beside each deviation of ours, the table `experiment | figure |
 * published | ours | agrees | verdict` with the rules beside it and the counts it ends with, our
 * figures with their intervals, verdicts and the plan that produced each,
 * and the figures drawn: the page's own (normalized throughput, intervals) and those of the
 * first repetition's run reports. Figures are drawn by the report's one plotting path (Vega-Lite
 * to SVG, report/vega.ts) and inlined; the page loads nothing (report/html.ts's policy).
 */
import path from 'node:path';
import {
  REPLAN_NOTE,
  INTERVAL_NOTE,
  RULES_NOTE,
  agreementTable,
  besideLines,
  causeLines,
  countsLine,
  deviationTable,
  figureTable,
  measurerSummary,
  paperSource,
  publishedSetupLines,
  type ExperimentComparison,
  type TextTable,
} from '../core/reproduce/comparison-text';
import type { CellRecord } from '../core/run-record';
import { ResultsStore, writeFileAtomic } from '../services/results/results-store';
import { buildReport } from './build-report';
import type { Figure } from './figures/figure';
import { intervalFigures, normalizedThroughputFigure } from './figures/reproduction';
import { escapeHtml, pageHead, scopeSvgIds } from './html';
import { renderSvg } from './vega';

/** Run-report figures drawn per run: the overview ones come first in a report, timelines after. */
export const RUN_FIGURES_PER_RUN = 4;

export interface ComparisonPage {
  dir: string;
  writtenAt: number;
  comparisons: ExperimentComparison[];
}

const STYLE = `
  body { font: 14px/1.45 'DejaVu Sans', Helvetica, Arial, sans-serif; color: #1a1a1a; margin: 0; background: #fafafa; }
  header { padding: 18px 28px 10px; background: #fff; border-bottom: 1px solid #ddd; }
  header h1 { font-size: 20px; margin: 0 0 6px; }
  header p, nav { color: #444; margin: 4px 0; max-width: 110ch; }
  nav a { margin-right: 10px; }
  main { padding: 12px 28px; }
  section.experiment { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 12px 16px; margin-bottom: 20px; }
  h2 { font-size: 17px; margin: 0 0 8px; }
  h3 { font-size: 14px; margin: 14px 0 6px; }
  table { border-collapse: collapse; font-size: 12.5px; margin: 4px 0; }
  th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
  th { background: #f3f3f3; font-weight: 600; }
  td.disagree { color: #a50f15; font-weight: 600; } td.agree { color: #006d2c; font-weight: 600; } td.undecided { color: #8c6d00; font-weight: 600; }
  .beside { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 18px; align-items: start; }
  .rule { font-size: 12.5px; background: #f7f7f7; border-left: 3px solid #999; padding: 6px 10px; margin: 4px 0; }
  table.setup td { width: 50%; } table.setup ul { margin: 0; padding-left: 18px; }
  .verdicts.flagged { background: #fde0dd; border: 2px solid #c51b8a; padding: 4px 8px; }
  .verdicts.ok { background: #e5f5e0; border: 1px solid #31a354; padding: 4px 8px; }
  figure { margin: 10px 0; } figcaption { font-size: 13px; color: #333; margin-bottom: 4px; }
  figure svg { display: block; max-width: 100%; height: auto; }
`;

function tableHtml(t: TextTable, className = ''): string {
  const cell = (v: string, column: string) => {
    const judged = column === 'agrees' ? /^(agree|disagree|undecided)\b/.exec(v)?.[1] : undefined;
    return `<td${judged ? ` class="${judged}"` : ''}>${escapeHtml(v)}</td>`;
  };
  const head = t.columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = t.rows.map((r) => `<tr>${r.map((v, i) => cell(v, t.columns[i])).join('')}</tr>`).join('\n');
  return `<table${className ? ` class="${className}"` : ''}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function setupHtml(c: ExperimentComparison): string {
  const r = c.reproduction;
  return `<table class="setup"><thead><tr><th>published</th><th>ours, where it differs</th></tr></thead>
<tbody><tr><td><ul>${publishedSetupLines(r.id)
    .map((l) => `<li>${escapeHtml(l)}</li>`)
    .join('')}</ul></td><td>${tableHtml(deviationTable(r), 'deviations')}</td></tr></tbody></table>`;
}

/** The page's own figures and the first repetition's run-report figures, for one experiment. */
async function experimentFigures(store: ResultsStore, c: ExperimentComparison): Promise<Figure[]> {
  const own = [...normalizedThroughputFigure(c.reproduction.id, c.figures), ...intervalFigures(c.reproduction.id, c.figures)];
  const fromRuns: Figure[] = [];
  for (const runId of c.firstRepetitionRuns) {
    if (!(await store.hasRun(runId))) continue;
    const run = await store.readRun(runId);
    const cells = await store.readCells(run).catch(() => [] as CellRecord[]);
    const figures = buildReport(run, cells).figures.slice(0, RUN_FIGURES_PER_RUN);
    fromRuns.push(...figures.map((f) => ({ ...f, id: `${runId}-${f.id}`, heading: `Run ${runId} (repetition 1): ${f.heading}` })));
  }
  return [...own, ...fromRuns];
}

async function figureHtml(figure: Figure): Promise<string> {
  const { svg, warnings } = await renderSvg(figure.spec);
  return `<figure id="fig-${escapeHtml(figure.id)}"><figcaption>${escapeHtml(figure.heading)}</figcaption>${scopeSvgIds(svg, figure.id)}${warnings.map((w) => `<p class="rule">Drawing this figure: ${escapeHtml(w)}</p>`).join('')}</figure>`;
}

async function experimentHtml(store: ResultsStore, c: ExperimentComparison): Promise<string> {
  const r = c.reproduction;
  const summary = measurerSummary(c.figures);
  const flagged = c.figures.some((f) => f.flagged.length > 0);
  const figures = await Promise.all((await experimentFigures(store, c)).map(figureHtml));
  const beside = besideLines(c.agreement.rows);
  const causes = causeLines(c.agreement.rows);
  return `<section class="experiment" id="exp-${escapeHtml(r.id)}">
<h2>${escapeHtml(`${r.id}: ${r.title}`)}</h2>
<p>Source: ${escapeHtml(`${r.source}; ${paperSource(r.id)}`)}. Repetitions: ${c.repeat}.</p>
<h3>Published set-up and ours</h3>
${setupHtml(c)}
<p class="verdicts ${flagged ? 'flagged' : 'ok'}">${escapeHtml(summary)}</p>
<h3>Re-plans</h3>
${c.plans.length ? `<ul class="plans">${c.plans.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : '<p class="plans">None: every cell ran as planned.</p>'}
<h3>Published figures and claims beside ours</h3>
${tableHtml(agreementTable(c.agreement.rows), 'comparison')}
<p class="counts">${escapeHtml(countsLine(c.agreement.counts))}</p>
${beside.map((l) => `<p class="beside">${escapeHtml(l)}</p>`).join('\n')}
${causes.map((l) => `<p class="cause">${escapeHtml(`Disagreement ${l}`)}</p>`).join('\n')}
<h3>Our figures (${escapeHtml(INTERVAL_NOTE)})</h3>
${tableHtml(figureTable(c.figures), 'figures')}
${figures.join('\n')}
</section>`;
}

export function comparisonHtmlPath(dir: string): string {
  return path.join(dir, 'comparison.html');
}

export async function renderComparisonHtml(store: ResultsStore, page: ComparisonPage): Promise<string> {
  const sections: string[] = [];
  for (const c of page.comparisons) sections.push(await experimentHtml(store, c));
  const nav = page.comparisons.map((c) => `<a href="#exp-${escapeHtml(c.reproduction.id)}">${escapeHtml(c.reproduction.id)}</a>`).join(' ');
  return `${pageHead('Reproduction of the published experiments · fragbench', STYLE)}
<body>
<header>
<h1>Reproduction of the published experiments on one host</h1>
<p>Directory ${escapeHtml(page.dir)}; written ${escapeHtml(new Date(page.writtenAt).toISOString())}.</p>
<p class="rule">Rules: ${escapeHtml(RULES_NOTE)}</p>
<p>${escapeHtml(REPLAN_NOTE)}</p>
<nav>${nav}</nav>
</header>
<main>
${sections.join('\n')}
</main>
</body>
</html>
`;
}

/** Writes comparison.html into the page's directory and returns its path. */
export async function writeComparisonHtml(store: ResultsStore, page: ComparisonPage): Promise<string> {
  const file = comparisonHtmlPath(page.dir);
  await writeFileAtomic(file, await renderComparisonHtml(store, page));
  return file;
}
