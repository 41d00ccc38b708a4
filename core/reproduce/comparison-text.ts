/**
 * The comparison as text: for the latency experiment the table `published | ours | agrees?`
 * with its rules beside it; for every experiment our figures (median and 95 % interval across
 * repetitions) with their verdicts and plans, and what was not run here and why. The tables are
 * data (TextTable) that the Markdown here and the HTML page (report/comparison-html.ts) draw.
 */
import { notReproducible, type AggregatedFigure } from './aggregate';
import type { Reproduction } from './experiment';
import { AGREEMENT_TOLERANCE, type LatencyComparison } from './latency-comparison';
import { REPLAN_POLICY } from './replan';
import { BOOTSTRAP, type Estimate } from './statistics';

const num = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
const yesNo = (b: boolean | undefined) => (b === undefined ? '–' : b ? 'yes' : 'no');

export function formatEstimate(e: Estimate): string {
  return e.n === 1 ? `${num(e.median)} (1 run: no interval)` : `${num(e.median)} [${num(e.low)}, ${num(e.high)}]`;
}

export const INTERVAL_NOTE = `median across repetitions; [95 % interval]: percentile bootstrap of the median, ${BOOTSTRAP.resamples} resamples, seed ${BOOTSTRAP.seed}`;

/** A table as text cells, which the Markdown and the HTML page both draw. */
export interface TextTable {
  columns: string[];
  rows: string[][];
}

export function markdownTable(t: TextTable): string {
  return [`| ${t.columns.join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`, ...t.rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The agreement rules, written beside the table. */
export const LATENCY_RULES = `a ratio agrees when our median is inside its published range, or within ${AGREEMENT_TOLERANCE * 100} % of a single published value; "published in our CI" says whether the published value (or range) meets our interval. An ordering holds when it holds between our medians; "held in" counts the repetitions where it held on their own figures. Ours: ${INTERVAL_NOTE}. Only figures whose verdict was \`ok\` are used.`;

/** `published | ours | agrees?`, MongoDB and MySQL Cluster included as not runnable here. */
export function ratioTable(c: LatencyComparison): TextTable {
  const noFigure = (r: LatencyComparison['ratios'][number]) => `${r.note}${r.flagged ? `; flagged figures give ${formatEstimate(r.flagged)}` : ''}`;
  return {
    columns: ['entry', 'published', 'ours (median, 95 % CI)', 'agrees?', 'published in our CI?'],
    rows: [
      ...c.ratios.map((r) => [
        r.entry,
        r.published,
        r.ours ? formatEstimate(r.ours) : noFigure(r),
        r.ours ? yesNo(r.agrees) : '–',
        r.ours ? yesNo(r.publishedInsideInterval) : '–',
      ]),
      ...c.notRunnable.map((db) => [`${db}, every workload`, '(published set)', 'not runnable on this host', '–', '–']),
    ],
  };
}

export function orderingTable(c: LatencyComparison): TextTable {
  return {
    columns: ['ordering (published)', 'holds here?', 'held in', 'our figures'],
    rows: c.orderings.map((o) => [
      o.entry,
      o.holds === undefined ? '–' : o.holds ? 'holds' : 'does not hold',
      o.judgedIn > 0 ? `${o.heldIn} of ${o.judgedIn}` : '–',
      o.shows,
    ]),
  };
}

export function latencyTable(c: LatencyComparison): string {
  return [`Rules: ${LATENCY_RULES}`, '', markdownTable(ratioTable(c)), '', markdownTable(orderingTable(c))].join('\n');
}

/** Which plan produced a figure: "as planned", or each re-planned repetition's plan. */
export function figurePlan(f: AggregatedFigure): string {
  if (f.replans.length === 0) return 'as planned';
  const all = f.replans.length === f.measured && new Set(f.replans.map((r) => r.plan)).size === 1;
  return all ? f.replans[0].plan : f.replans.map((r) => `r${r.repetition} ${r.plan}`).join('; ');
}

/** Our figures with their verdicts, the host's load while measured, and the plan that produced them. */
export function figureTable(figures: AggregatedFigure[]): TextTable {
  return {
    columns: ['figure', 'ours (median, 95 % CI)', 'verdicts', 'host busy (median per run)', 'plan'],
    rows: figures.map((f) => {
      const ours = f.estimate
        ? `${formatEstimate(f.estimate)} ${f.unit}`
        : `${notReproducible(f.flagged)}; flagged: ${formatEstimate(f.flaggedEstimate!)} ${f.unit}`;
      const ok = f.measured - f.flagged.length;
      const verdicts = `${ok} of ${f.measured} ok${f.flagged.length ? `; ${f.flagged.map((x) => `r${x.repetition} ${x.verdict}`).join(', ')}` : ''}`;
      const busy = f.hostBusyMedianPercent.length ? f.hostBusyMedianPercent.map((b) => `${b.toFixed(0)} %`).join(', ') : '–';
      return [f.key, ours, verdicts, busy, figurePlan(f)];
    }),
  };
}

export function figuresTable(figures: AggregatedFigure[]): string {
  return markdownTable(figureTable(figures));
}

/** What the verdicts say about the measurer: how many figures were `ok`, and how busy the host was. */
export function measurerSummary(figures: AggregatedFigure[]): string {
  const measured = figures.reduce((n, f) => n + f.measured, 0);
  const flagged = figures.flatMap((f) => f.flagged);
  const busy = figures.flatMap((f) => f.hostBusyMedianPercent);
  const byVerdict = new Map<string, number>();
  for (const f of flagged) byVerdict.set(f.verdict, (byVerdict.get(f.verdict) ?? 0) + 1);
  const flags = [...byVerdict].map(([v, n]) => `${n} ${v}`).join(', ');
  const range = busy.length ? `; host busy (median per phase) ${Math.min(...busy).toFixed(0)}–${Math.max(...busy).toFixed(0)} %` : '';
  return `verdicts: ${measured - flagged.length} of ${measured} measured figures ok${flags ? ` (${flags})` : ''}${range}`;
}

/** The re-plan policy in one sentence, for the comparison and `--plan`. */
export const REPLAN_NOTE = `A cell whose verdict is host-bound or network-off runs again with one ${REPLAN_POLICY.jvmDatabases.map((d) => d.charAt(0).toUpperCase() + d.slice(1)).join('/')} data node fewer (down to the floor its experiment states), then with half the client load; a client-bound cell with half the load only; at most ${REPLAN_POLICY.maxReplans} re-plans, after which a cell still not ok is not reproducible here. Its figures are those of its last plan.`;

/** One experiment of a reproduce directory, as the comparison shows it (Markdown, JSON and HTML). */
export interface ExperimentComparison {
  reproduction: Reproduction;
  repeat: number;
  figures: AggregatedFigure[];
  /** Each cell not run as planned: "r1 cassandra latencyScale=0.2: re-planned: …". */
  plans: string[];
  latency?: LatencyComparison;
  /** The runs repetition 1's figures came from (each cell's last plan): the HTML page draws their reports' figures. */
  firstRepetitionRuns: string[];
}

export function experimentSection({ reproduction: r, repeat: repetitions, figures, plans, latency }: ExperimentComparison): string {
  const lines = [
    `## ${r.id}: ${r.title}`,
    '',
    `Source: ${r.source}. Repetitions: ${repetitions}.`,
    '',
    `Published set-up: ${r.publishedSetup}`,
    '',
    `Scaled: sites ${r.scaling.sites}; records ${r.scaling.records}; durations ${r.scaling.durations}; threads ${r.scaling.threads}.`,
    `Why: ${r.scaling.why}`,
    '',
    ...r.notRunHere.map((n) => `- not run here: ${n}`),
    '',
    measurerSummary(figures),
    '',
    `Re-plans: ${plans.length === 0 ? 'none (every cell ran as planned)' : ''}`,
    ...plans.map((p) => `- ${p}`),
    '',
  ];
  if (latency) lines.push(latencyTable(latency), '');
  else lines.push('No published values in shared/reference for this experiment: our figures with the published set-up only.', '');
  lines.push(`Our figures (${INTERVAL_NOTE}):`, '', figuresTable(figures), '');
  return lines.join('\n');
}
