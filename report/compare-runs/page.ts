/**
 * `fragbench compare` as one self-contained page, written beside the runs in the results
 * directory: the runs and how they were lined up, the compared cells side by side, each side's
 * differences from the baseline, and per line the throughput of every run on one time axis
 * aligned at each event. Drawn with the run report's pieces (its look, tables, figure sections
 * and PNG buttons; Vega-Lite to inline SVG), so the page loads nothing.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { INTERVAL_NOTE } from '../../core/reproduce/comparison-text';
import { BOOTSTRAP, type Estimate } from '../../core/reproduce/statistics';
import { writeFileAtomic } from '../../services/results/results-store';
import { MAX_TIMELINES } from '../build-report';
import { alignedThroughput } from '../figures/aligned-throughput';
import { formatNumber } from '../figures/figure';
import { escapeHtml, figureSection, pageHead, PNG_SCRIPT, REPORT_STYLE, tableHtml } from '../html';
import type { Table } from '../tables';
import { renderSvg } from '../vega';
import type { DifferenceValue, RunComparison, SideValue } from './model';

const dash = '–';

function valueText(value: SideValue, digits: number): string {
  if (value === null) return dash;
  if ('text' in value) return value.text;
  const e: Estimate = value;
  const f = (x: number) => formatNumber(x, digits);
  return e.n === 1 ? f(e.median) : `${f(e.median)} [${f(e.low)}, ${f(e.high)}]`;
}

function differenceText(value: DifferenceValue | null, digits: number): string {
  if (value === null) return dash;
  const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${formatNumber(Math.abs(x), digits)}`;
  const interval = value.low === undefined || value.high === undefined ? '' : ` [${signed(value.low)}, ${signed(value.high)}]`;
  const relative = value.relativePercent === undefined ? '' : ` (${signed(Math.round(value.relativePercent))} %)`;
  return `${signed(value.difference)}${interval}${relative}`;
}

/** The compared cells side by side: a row per side of each line, a column per CELL_COLUMNS entry. */
export function cellsTable(comparison: RunComparison): Table {
  const columns = ['Cells at', comparison.by === 'run' ? 'Run' : capital(comparison.by), 'Runs', ...comparison.columns.map((c) => c.heading)];
  const rows = comparison.lines.flatMap((line) =>
    line.sides.map((s) => [
      line.label,
      s.side,
      String(s.cells.length),
      ...comparison.columns.map((c) => valueText(s.values[c.heading] ?? null, c.digits)),
    ]),
  );
  return {
    id: 'compared-cells',
    heading: `The cells side by side, by ${comparison.by}: with repetitions, the ${INTERVAL_NOTE}.`,
    columns,
    numeric: columns.map((_, i) => i >= 2 && (i === 2 || comparison.columns[i - 3].numeric)),
    rows,
  };
}

/** Each side against the baseline, column by column, where both have a number. */
export function differencesTable(comparison: RunComparison): Table {
  const numeric = comparison.columns.filter((c) => c.numeric);
  const columns = ['Cells at', 'Difference', ...numeric.map((c) => c.heading)];
  const rows = comparison.lines.flatMap((line) =>
    line.differences.map((d) => [
      line.label,
      `${d.side} − ${d.against}`,
      ...numeric.map((c) => differenceText(d.values[c.heading] ?? null, c.digits)),
    ]),
  );
  return {
    id: 'differences',
    heading: `Differences from ${comparison.baseline}: median(side) − median(${comparison.baseline}), with its 95 % interval (percentile bootstrap, each side resampled, ${BOOTSTRAP.resamples} resamples, seed ${BOOTSTRAP.seed}) where either side has repetitions, and as a percentage of ${comparison.baseline}'s.`,
    columns,
    numeric: columns.map((_, i) => i >= 2),
    rows,
  };
}

const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function runsAside(comparison: RunComparison, reports: Map<string, string>): string {
  const items = comparison.runs.map((r) => {
    const report = reports.get(r.runId);
    const name = report ? `<a href="${escapeHtml(report)}">${escapeHtml(r.runId)}</a>` : escapeHtml(r.runId);
    return `<dt>${name}</dt><dd>${escapeHtml(`${r.scenario} on ${r.topology}; ${r.databases.join(', ') || 'database not recorded'}; ${r.status}; started ${new Date(r.startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`)}</dd>`;
  });
  const sides = comparison.sides.map(
    (s) => `<dt>${escapeHtml(s.side)}${s.side === comparison.baseline ? ' (baseline)' : ''}</dt><dd>${escapeHtml(s.runIds.join(', '))}</dd>`,
  );
  return `<aside>
  <h2>Runs</h2>
  <dl class="stacked">${items.join('')}</dl>
  <h2>Sides (by ${escapeHtml(comparison.by)})</h2>
  <dl class="stacked">${sides.join('')}</dl>
</aside>`;
}

/**
 * The page. reports: run id -> the path of its report relative to the page, for the runs that
 * have one.
 */
export async function renderComparisonPage(comparison: RunComparison, reports: Map<string, string> = new Map()): Promise<string> {
  const lines = comparison.lines.slice(0, MAX_TIMELINES);
  const figures = lines.flatMap((line) => alignedThroughput(line, comparison.by));
  const drawn = await Promise.all(figures.map(async (f) => figureSection(f, await renderSvg(f.spec))));
  const notes = [
    `Cells meet on a line when their coordinates agree apart from the ${comparison.by}; the runs' timelines are aligned at each scenario event (after the k-th event a run's seconds count on from the first run's k-th event).`,
    ...(comparison.lines.length > lines.length
      ? [`Timelines are drawn for the first ${lines.length} of ${comparison.lines.length} lines; the tables cover all of them.`]
      : []),
  ];
  const title = `${comparison.sides.map((s) => s.side).join(' vs ')}, by ${comparison.by}`;
  return `${pageHead(`${title} · fragbench compare`, REPORT_STYLE)}
<body>
<header>
  <h1>${escapeHtml(title)}</h1>
  <p class="question">How do the ${escapeHtml(comparison.by === 'run' ? 'runs' : `${comparison.by}s`)} compare, cell for cell and event for event?</p>
  <p class="meta">${comparison.runs.length} runs · ${comparison.lines.length} line${comparison.lines.length === 1 ? '' : 's'} of cells · baseline ${escapeHtml(comparison.baseline)}</p>
</header>
<div class="layout">
<main>
<section class="notes">${notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</section>
${tableHtml(cellsTable(comparison))}
${tableHtml(differencesTable(comparison))}
${drawn.join('\n')}
</main>
${runsAside(comparison, reports)}
</div>
<script>${PNG_SCRIPT}</script>
</body>
</html>
`;
}

/** A file name for the runs compared: their ids while short, else the first and a digest of all. */
export function comparisonName(runIds: string[]): string {
  const joined = runIds.join('--');
  if (joined.length <= 120) return `compare-${joined}`;
  const digest = createHash('sha256').update(joined).digest('hex').slice(0, 10);
  return `compare-${runIds[0]}--and-${runIds.length - 1}-more-${digest}`;
}

/**
 * Writes the page to `file` (default: comparisons/<name>.html in the results directory `root`,
 * beside the runs) and returns its path. Each run's report is linked where it has been written.
 */
export async function writeComparisonPage(
  comparison: RunComparison,
  root: string,
  reportOf: (runId: string) => string,
  file = path.join(root, 'comparisons', `${comparisonName(comparison.runs.map((r) => r.runId))}.html`),
): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const reports = new Map<string, string>();
  for (const { runId } of comparison.runs) {
    const report = reportOf(runId);
    if (
      await fs.access(report).then(
        () => true,
        () => false,
      )
    )
      reports.set(runId, path.relative(path.dirname(file), report));
  }
  await writeFileAtomic(file, await renderComparisonPage(comparison, reports));
  return file;
}
