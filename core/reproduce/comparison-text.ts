/**
 * The comparison as text: per experiment the published set-up beside ours (each deviation with
 * why), one table `experiment | figure | published | ours | agrees | verdict` with a row for every
 * published figure and claim and the counts it ends with, then our figures (median and 95 %
 * interval across repetitions) with their verdicts and plans; and one table for the whole suite.
 * The tables are data (TextTable) that the Markdown here and the HTML page
 * (report/comparison-html.ts) both draw.
 */
import { notReproducible, type AggregatedFigure } from './aggregate';
import type { ComparisonRow, ExperimentAgreement } from './comparison';
import type { Reproduction } from './experiment';
import { publishedExperiment } from './published';
import { REPLAN_POLICY } from './replan';
import { DECISION, countAgreements, formatCounts, type AgreementCounts } from './rules';
import { BOOTSTRAP, type Estimate } from './statistics';

const num = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

export function formatEstimate(e: Estimate): string {
  return e.n === 1 ? `${num(e.median)} (1 run: no interval)` : `${num(e.median)} [${num(e.low)}, ${num(e.high)}]`;
}

export const INTERVAL_NOTE = `median across repetitions; [95 % interval]: percentile bootstrap of the median, ${BOOTSTRAP.resamples} resamples, seed ${BOOTSTRAP.seed}`;

/** The rules, written once beside every table (core/reproduce/rules.ts). */
export const RULES_NOTE =
  `A value agrees when our 95 % interval (${INTERVAL_NOTE.replace(/^median across repetitions; /, '')}) meets the published value widened by ${DECISION.tolerance * 100} % ` +
  `(the papers ran each configuration once and print one or two digits; the largest spread of a ratio between two runs here was 15 %), disagrees when it lies wholly outside, ` +
  `and is undecided when it reaches past the widened value on every side the value bounds (too wide to decide) or rests on fewer than ${DECISION.minSamples} samples. ` +
  `A published floor or ceiling bounds one side only. A sample is one repetition, or one event where the paper states the figure per event. ` +
  `A ratio of throughputs carries its own noise, from the spread of its seconds (at least one operation in those counted): the interval holds it, and where that noise alone leaves the samples' mean wider than the tolerance at 95 %, the row is undecided (too few operations to decide). ` +
  `A stated ordering or shape agrees when it held in every observation, disagrees when in none, and is undecided otherwise or with fewer than ${DECISION.minSamples} observations; ` +
  `orderings are judged only between figures measured with the same client threads. Only figures whose verdict was \`ok\` are used.`;

/** A table as text cells, which the Markdown and the HTML page both draw. */
export interface TextTable {
  columns: string[];
  rows: string[][];
}

const cell = (v: string) => v.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(t: TextTable): string {
  return [`| ${t.columns.join(' | ')} |`, `|${t.columns.map(() => '---').join('|')}|`, ...t.rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join(
    '\n',
  );
}

/** `agree`, `disagree: why`, `not comparable here: why`. */
export function agreesText(row: Pick<ComparisonRow, 'agreement' | 'why'>): string {
  return row.agreement === 'not comparable' ? `not comparable here: ${row.why}` : `${row.agreement}: ${row.why}`;
}

export const AGREEMENT_COLUMNS = ['experiment', 'figure', 'published', 'ours', 'agrees', 'verdict'];

export function agreementTable(rows: ComparisonRow[]): TextTable {
  return {
    columns: AGREEMENT_COLUMNS,
    rows: rows.map((r) => [
      r.experiment,
      r.id,
      r.published,
      r.agreement === 'not comparable' && r.ours === '–' ? '–' : `${r.rule}: ${r.ours}`,
      agreesText(r),
      r.verdict,
    ]),
  };
}

/** The counts a table ends with, as a line. */
export function countsLine(counts: AgreementCounts): string {
  return `Counts: ${formatCounts(counts)}.`;
}

/** Our figures shown beside rows (a trend), one line each. */
export function besideLines(rows: ComparisonRow[]): string[] {
  return rows.filter((r) => r.beside).map((r) => `Beside ${r.id}: ${r.beside}`);
}

export function deviationTable(r: Reproduction): TextTable {
  return { columns: ['what', 'published', 'ours', 'why'], rows: r.deviations.map((d) => [d.what, d.published, d.ours, d.why]) };
}

/** The paper's set-up as published-results.json records it, item by item. */
export function publishedSetupLines(id: string): string[] {
  return Object.entries(publishedExperiment(id).publishedSetup).map(([k, v]) => `${k}: ${v}`);
}

export function paperSource(id: string): string {
  const s = publishedExperiment(id).source;
  return `${s.title}, ${s.section}`;
}

/** Which plan produced a figure: "as planned", or each re-planned repetition's plan. */
export function figurePlan(f: AggregatedFigure): string {
  if (f.replans.length === 0) return 'as planned';
  const all = f.replans.length === f.measured && new Set(f.replans.map((r) => r.plan)).size === 1;
  return all ? f.replans[0].plan : f.replans.map((r) => `r${r.repetition} ${r.plan}`).join('; ');
}

/** Our figures with their verdicts, the host's load while measured, and the plan that produced them (per-pair and per-step ones are in comparison.json). */
export function figureTable(figures: AggregatedFigure[]): TextTable {
  return {
    columns: ['figure', 'ours (median, 95 % CI)', 'verdicts', 'host busy (median per run)', 'plan'],
    rows: figures
      .filter((f) => !f.detail)
      .map((f) => {
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
  agreement: ExperimentAgreement;
  /** The runs repetition 1's figures came from (each cell's last plan): the HTML page draws their reports' figures. */
  firstRepetitionRuns: string[];
  /** The experiment whose runs a shared part's figures came from, per part. */
  sharedRuns?: Record<string, string>;
}

export function experimentSection(c: ExperimentComparison): string {
  const { reproduction: r, repeat: repetitions, figures, plans, agreement } = c;
  const shared = Object.entries(c.sharedRuns ?? {}).map(([part, from]) => `${part} (${from}'s runs)`);
  const lines = [
    `## ${r.id}: ${r.title}`,
    '',
    `Source: ${r.source}; ${paperSource(r.id)}. Repetitions: ${repetitions}.${shared.length ? ` Parts read from another experiment's runs: ${shared.join(', ')}.` : ''}`,
    '',
    'Published set-up:',
    '',
    ...publishedSetupLines(r.id).map((l) => `- ${l}`),
    '',
    'Ours, where it differs:',
    '',
    markdownTable(deviationTable(r)),
    '',
    measurerSummary(figures),
    '',
    `Re-plans: ${plans.length === 0 ? 'none (every cell ran as planned)' : ''}`,
    ...plans.map((p) => `- ${p}`),
    '',
    markdownTable(agreementTable(agreement.rows)),
    '',
    countsLine(agreement.counts),
    ...besideLines(agreement.rows).flatMap((l) => ['', l]),
    ...causeLines(agreement.rows).flatMap((l) => ['', `Disagreement ${l}`]),
    '',
    `Our figures (${INTERVAL_NOTE}):`,
    '',
    markdownTable(figureTable(figures)),
    '',
  ];
  return lines.join('\n');
}

/** Every row of every experiment, and the counts: per experiment and in all. */
export function suiteCounts(comparisons: Pick<ExperimentComparison, 'reproduction' | 'agreement'>[]): {
  perExperiment: [string, AgreementCounts][];
  total: AgreementCounts;
} {
  return {
    perExperiment: comparisons.map((c) => [c.reproduction.id, c.agreement.counts]),
    total: countAgreements(comparisons.flatMap((c) => c.agreement.rows)),
  };
}

/**
 * The suite-level table the README points to (docs/reproduce.md): the rows of every experiment,
 * then the counts per experiment and in all; `from` says which reproduce directory filled it.
 */
export function suiteTable(comparisons: Pick<ExperimentComparison, 'reproduction' | 'agreement' | 'repeat'>[], from: string): string {
  return [
    `Filled from \`${from}\` by \`fragbench reproduce --resume ${from} --report-only --suite-table <file>\`: every "ours" is a figure of that directory's runs.`,
    '',
    `Rules: ${RULES_NOTE}`,
    '',
    markdownTable(agreementTable(comparisons.flatMap((c) => c.agreement.rows))),
    '',
    ...besideSection(comparisons.flatMap((c) => c.agreement.rows)),
    ...causeSection(comparisons.flatMap((c) => c.agreement.rows)),
    markdownTable(countsTable(comparisons)),
    '',
  ].join('\n');
}

/** The counts per experiment and in all, with each not-comparable group and its size. */
function countsTable(comparisons: Pick<ExperimentComparison, 'reproduction' | 'agreement' | 'repeat'>[]): TextTable {
  const { perExperiment, total } = suiteCounts(comparisons);
  return {
    columns: ['experiment', 'repetitions', 'agree', 'disagree', 'undecided', 'not comparable here (why)'],
    rows: [
      ...perExperiment.map(([id, n]) => [id, String(comparisons.find((c) => c.reproduction.id === id)!.repeat), ...countCells(n)]),
      ['all', '', ...countCells(total)],
    ],
  };
}

/** How long the run behind a table took: its real time beside its plan and the budget, in minutes. */
export interface RunTime {
  realMinutes: number;
  plannedMinutes: number;
  budgetMinutes: number;
  /** Experiments with every part of every repetition completed, of those in the table. */
  complete: number;
}

const CLAIM_CHARS = 110;
const CAUSE_CHARS = 220;

/** At most `n` characters, cut at a word, with an ellipsis when cut. */
function shortened(text: string, n: number): string {
  if (text.length <= n) return text;
  const cut = text.slice(0, n);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), n / 2)).replace(/[,;:(]+$/, '')}…`;
}

/** Ours, short: the median and interval of a value, or how often an ordering held. */
export function shortOurs(row: Pick<ComparisonRow, 'ours'>): string {
  const held = /^held in \d+ of \d+/.exec(row.ours);
  if (held) return held[0];
  const value = /^[^|]*?\((?:n = \d+|1 sample)\)/.exec(row.ours);
  return value ? value[0] : shortened(row.ours, CLAIM_CHARS);
}

/**
 * The README's reproduction section: the rows compared in one run (agree, disagree or undecided),
 * short; the counts per experiment and in all; each disagreement's cause; how long the run took.
 * The full table, with every row not comparable here and why, is the suite page's.
 */
export function readmeSection(
  comparisons: Pick<ExperimentComparison, 'reproduction' | 'agreement' | 'repeat'>[],
  from: string,
  time: RunTime,
  suitePage?: string,
): string {
  const rows = comparisons.flatMap((c) => c.agreement.rows);
  const judged = rows.filter((r) => r.agreement !== 'not comparable');
  const { total } = suiteCounts(comparisons);
  const scope = time.complete === comparisons.length ? 'every experiment complete' : `${time.complete} of ${comparisons.length} experiments complete`;
  const budget = time.realMinutes > time.budgetMinutes ? `OVER the ${time.budgetMinutes} min budget` : `budget ${time.budgetMinutes}`;
  return [
    `From \`${from}\` (${comparisons.length} experiments, ${scope}): **${time.realMinutes.toFixed(1)} min real** against ${time.plannedMinutes.toFixed(1)} planned (${budget}). ` +
      `**${total.agree} agree, ${total.disagree} disagree, ${total.undecided} undecided**, ${total.notComparable} not comparable here.`,
    '',
    markdownTable({
      columns: AGREEMENT_COLUMNS,
      rows: judged.map((r) => [r.experiment, r.id, shortened(r.published, CLAIM_CHARS), shortOurs(r), r.agreement, r.verdict]),
    }),
    '',
    markdownTable(countsTable(comparisons)),
    '',
    'Each disagreement and its cause:',
    '',
    ...rows.filter((r) => r.cause).map((r) => `- ${r.id}: ${shortened(r.cause!, CAUSE_CHARS)}`),
    '',
    `Every row, with ours in full, why each row agrees or not, and what is not comparable here and why${suitePage ? `: [${suitePage}](${suitePage})` : ': the suite page (`--suite-table`)'}.`,
  ].join('\n');
}

/** What is shown beside rows (a trend, what a model of the round trips predicts), under the table: where a disagreement's cause is measured. */
function besideSection(rows: ComparisonRow[]): string[] {
  const lines = besideLines(rows);
  return lines.length === 0 ? [] : ['Shown beside rows, not judged:', '', ...lines.map((l) => `- ${l}`), ''];
}

/** Every row that disagrees, with its cause as measured, as suspected, or that none was found. */
export function causeLines(rows: ComparisonRow[]): string[] {
  return rows.filter((r) => r.cause).map((r) => `${r.id} (${r.experiment}): ${r.cause}`);
}

function causeSection(rows: ComparisonRow[]): string[] {
  const lines = causeLines(rows);
  return lines.length === 0 ? [] : ['Disagreements and their causes:', '', ...lines.map((l) => `- ${l}`), ''];
}

function countCells(n: AgreementCounts): string[] {
  const why = Object.entries(n.why)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, k]) => `${reason}: ${k}`)
    .join('; ');
  return [String(n.agree), String(n.disagree), String(n.undecided), `${n.notComparable}${why ? ` (${why})` : ''}`];
}
