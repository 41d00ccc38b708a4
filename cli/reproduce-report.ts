/**
 * Writes the comparison of a reproduce directory (comparison.md, comparison.json and the
 * self-contained comparison.html beside the ledger) from the runs its ledger lists, and returns
 * the Markdown for the terminal. Figures are read from each run's stored cells (per cell, those
 * of its last plan), so the comparison can be made again at any time (`reproduce --resume <dir>
 * --report-only`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ResultsStore } from '../services/results/results-store';
import { writeFileAtomic, writeJsonAtomic } from '../platform/files';
import type { CellPlan } from '../core/scenario';
import type { CellRecord } from '../core/run-record';
import { aggregate } from '../core/reproduce/aggregate';
import { compareReproduction } from '../core/reproduce/comparison';
import {
  experimentSection,
  readmeSection,
  REPLAN_NOTE,
  RULES_NOTE,
  suiteTable,
  type ExperimentComparison,
  type RunTime,
} from '../core/reproduce/comparison-text';
import { experimentDurations } from '../core/reproduce/durations';
import { BUDGET } from '../core/reproduce/experiment';
import { InputError } from '../core/errors';
import { writeComparisonHtml } from '../report/comparison-html';
import { namingFleets, runFigures, type CellPlacement, type Figure, type PhaseClient } from '../core/reproduce/figures';
import { runsOf, sameCell, type Coordinates, type Ledger } from '../core/reproduce/ledger';
import { cellProgress, planNote, replanCells } from '../core/reproduce/replan';
import type { PlannedPart, PlannedReproduction } from './reproduce-plan';
import { partsSharingRuns, REPRODUCTIONS, withSharedRuns } from '../core/reproduce/catalogue';
import type { PartRef } from '../core/reproduce/experiment';

/**
 * The client each phase of a recorded cell ran with, from the run's own record of its plan: its
 * threads, and its target as a ceiling unless the targets are the offered load.
 */
function clientsOf(plans: CellPlan[], targetsAreOfferedLoad: boolean) {
  return (cell: CellRecord, phase: string): PhaseClient | undefined =>
    plans
      .find((p) => JSON.stringify(p.coordinates) === JSON.stringify(cell.coordinates))
      ?.phases.flatMap((p) =>
        p.kind === 'run' && p.name === phase ? [{ ...(targetsAreOfferedLoad ? {} : { target: p.ycsb.target }), threads: p.ycsb.threads }] : [],
      )[0];
}

/** Where each recorded cell ran its client and its database, from the run's record of its plan. */
function placementsOf(plans: CellPlan[]) {
  return (cell: CellRecord): CellPlacement | undefined => {
    const plan = plans.find((p) => JSON.stringify(p.coordinates) === JSON.stringify(cell.coordinates));
    return plan && { client: plan.client, nodes: plan.nodes };
  };
}

/** The figures one run recorded for one cell. */
async function figuresOfRun(store: ResultsStore, runId: string, cell: Coordinates, targetsAreOfferedLoad: boolean): Promise<Figure[]> {
  if (!(await store.hasRun(runId))) return [];
  const run = await store.readRun(runId);
  const cells = (await store.readCells(run).catch(() => [] as CellRecord[])).filter((c) => sameCell(c.coordinates, cell));
  const plans = (run.settings.cells as CellPlan[] | undefined) ?? [];
  return runFigures(cells, clientsOf(plans, targetsAreOfferedLoad), placementsOf(plans));
}

/**
 * The ledger entry a part's runs are under: its own, or, where it has none in this repetition, a
 * part running the same scenario (`sameRunsAs`, either way) that has.
 */
function runsUnder(ledger: Ledger, experiment: string, part: PlannedPart, repetition: number): PartRef {
  const own = { experiment, part: part.id };
  if (runsOf(ledger, experiment, part.id, repetition).length > 0) return own;
  return partsSharingRuns(own).find((other) => runsOf(ledger, other.experiment, other.part, repetition).length > 0) ?? own;
}

/** One experiment's figures per repetition and the re-plans behind them. */
interface ExperimentFigures {
  perRepetition: Figure[][];
  /** "r1 cassandra latencyScale=0.2: re-planned: …", for every cell not run as planned. */
  plans: string[];
  firstRepetitionRuns: string[];
  /** Parts whose figures came from another reproduction's runs: part -> that reproduction. */
  sharedRuns: Record<string, string>;
}

/**
 * Per repetition, part and cell, the figures of the cell's last finished attempt, each with the
 * plan that produced it; a cell no attempt finished shows what its latest run recorded.
 */
async function experimentFigures(store: ResultsStore, ledger: Ledger, planned: PlannedReproduction, repeat: number): Promise<ExperimentFigures> {
  const experiment = planned.reproduction.id;
  const result: ExperimentFigures = { perRepetition: [], plans: [], firstRepetitionRuns: [], sharedRuns: {} };
  for (let repetition = 1; repetition <= repeat; repetition++) {
    const figures: Figure[] = [];
    for (const part of planned.parts) {
      const defined = planned.reproduction.parts.find((p) => p.id === part.id)!;
      const cells = replanCells(defined, part.plan);
      const under = runsUnder(ledger, experiment, part, repetition);
      if (under.experiment !== experiment) result.sharedRuns[part.id] = under.experiment;
      const runs = runsOf(ledger, under.experiment, under.part, repetition);
      for (const progress of cellProgress(ledger, { ...under, repetition }, cells)) {
        const last = progress.attempts[progress.attempts.length - 1];
        const note = last ? planNote(progress) : 'unfinished';
        const runIds = last ? [last.runId] : runs.map((r) => r.runId).reverse();
        for (const runId of runIds) {
          const found = namingFleets(
            planned.reproduction.parts,
            defined.scenario.fleet,
            await figuresOfRun(store, runId, progress.cell, planned.reproduction.targetsAreOfferedLoad === true),
          );
          if (found.length === 0) continue;
          figures.push(...found.map((f) => ({ ...f, plan: note })));
          if (repetition === 1 && !result.firstRepetitionRuns.includes(runId)) result.firstRepetitionRuns.push(runId);
          break;
        }
        if (note !== 'as planned' && runs.length > 0)
          result.plans.push(
            `r${repetition} ${part.id} ${Object.entries(progress.cell)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}: ${note}`,
          );
      }
    }
    result.perRepetition.push(figures);
  }
  return result;
}

/** Each planned reproduction's comparison from the runs its ledger lists. */
export async function compareDirectory(planned: PlannedReproduction[], ledger: Ledger, store = new ResultsStore()): Promise<ExperimentComparison[]> {
  const comparisons: ExperimentComparison[] = [];
  for (const p of planned) {
    const { reproduction, estimate } = p;
    const repeat = ledger.repeat[reproduction.id] ?? estimate.repeat;
    const { perRepetition, plans, firstRepetitionRuns, sharedRuns } = await experimentFigures(store, ledger, p, repeat);
    comparisons.push({
      reproduction,
      repeat,
      figures: aggregate(perRepetition),
      plans,
      firstRepetitionRuns,
      sharedRuns,
      agreement: compareReproduction(reproduction, perRepetition),
    });
  }
  return comparisons;
}

/** Where else the comparison goes: the suite page (`--suite-table`) and a README's section (`--readme`). */
export interface ComparisonOutputs {
  suiteTable?: string;
  readme?: string;
}

/**
 * Writes comparison.md, comparison.json and comparison.html into `dir` (and the suite page and the
 * README's section where `outputs` name them); `store` holds the runs the ledger lists.
 */
export async function writeComparison(
  dir: string,
  planned: PlannedReproduction[],
  ledger: Ledger,
  store = new ResultsStore(),
  outputs: ComparisonOutputs = {},
): Promise<string> {
  const writtenAt = Date.now();
  const comparisons = await compareDirectory(planned, ledger, store);
  const heading = `# Reproduction of the published experiments on one host\n\nDirectory: ${dir}; written ${new Date(writtenAt).toISOString()}.\n\nRules: ${RULES_NOTE}\n\n${REPLAN_NOTE}\n`;
  const markdown = [heading, ...comparisons.map(experimentSection)].join('\n');
  writeFileAtomic(path.join(dir, 'comparison.md'), markdown);
  const json = Object.fromEntries(
    comparisons.map(({ reproduction, repeat, plans, figures, agreement, sharedRuns }) => [
      reproduction.id,
      { repeat, runs: ledger.runs.filter((r) => r.experiment === reproduction.id), sharedRuns, plans, agreement, figures },
    ]),
  );
  writeJsonAtomic(path.join(dir, 'comparison.json'), json);
  const html = await writeComparisonHtml(store, { dir, writtenAt, comparisons });
  const suite = outputs.suiteTable ? writeSuiteTable(outputs.suiteTable, dir, comparisons) : undefined;
  const readme = outputs.readme ? writeReadmeSection(outputs.readme, dir, comparisons, planned, ledger, outputs.suiteTable) : undefined;
  return `${markdown}\ncomparison: ${path.join(dir, 'comparison.md')} (and comparison.json, ${path.basename(html)})${suite ? `; suite table: ${suite}` : ''}${readme ? `; README section: ${readme}` : ''}`;
}

/** The lines a README's reproduction section sits between; `--readme` rewrites what is between them. */
export const README_MARKERS = { begin: '<!-- fragbench reproduce: begin -->', end: '<!-- fragbench reproduce: end -->' } as const;

/** Why `file` cannot take the README section (missing, or without both markers in order), or undefined. */
export function readmeProblem(file: string): string | undefined {
  if (!existsSync(file)) return `${file} does not exist: give the README to fill, e.g. --readme README.md`;
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(README_MARKERS.begin);
  const end = text.indexOf(README_MARKERS.end);
  if (begin < 0 || end < begin)
    return `${file} has no place for the table: put the line ${README_MARKERS.begin} and, below it, ${README_MARKERS.end} where the section goes`;
  return undefined;
}

/** How long this directory's runs took, per experiment summed, beside the plan and the budget. */
function runTime(dir: string, planned: PlannedReproduction[], ledger: Ledger): RunTime {
  const found = experimentDurations(
    [{ directory: path.basename(dir), ledger }],
    planned.map((p) => withSharedRuns(p.reproduction)),
  );
  const complete = [...found.values()].filter((d) => d?.complete);
  return {
    realMinutes: complete.reduce((s, d) => s + d!.realS, 0) / 60,
    plannedMinutes: planned.filter((p) => found.get(p.reproduction.id)?.complete).reduce((s, p) => s + p.estimate.totalS, 0) / 60,
    budgetMinutes: BUDGET.suiteS / 60,
    complete: complete.length,
  };
}

function writeReadmeSection(
  file: string,
  dir: string,
  comparisons: ExperimentComparison[],
  planned: PlannedReproduction[],
  ledger: Ledger,
  suitePage?: string,
): string {
  const problem = readmeProblem(file);
  if (problem) throw new InputError('--readme', problem);
  const target = path.resolve(file);
  const text = readFileSync(target, 'utf8');
  const from = path.relative(process.cwd(), dir) || dir;
  const page = suitePage && path.relative(path.dirname(target), path.resolve(suitePage));
  const section = readmeSection(comparisons, from, runTime(dir, planned, ledger), page);
  const before = text.slice(0, text.indexOf(README_MARKERS.begin) + README_MARKERS.begin.length);
  const after = text.slice(text.indexOf(README_MARKERS.end));
  // Generated, so the formatter leaves it as written (prettier's own markers for a Markdown range).
  writeFileAtomic(target, `${before}\n<!-- prettier-ignore-start -->\n${section}\n<!-- prettier-ignore-end -->\n${after}`);
  return target;
}

/** How to fill the suite page and read it: kept on the page, which the suite table rewrites whole. */
const SUITE_HOW_TO = [
  'How to run it (about 2.5 hours of plan for every experiment on a 2-core host; `npx fragbench reproduce all --plan` prints',
  "each experiment's estimate, deviations from the published set-up, and what it compares or not and why):",
  '',
  '```sh',
  'FRAGBENCH_TASK_QUEUE=fb-repro npx fragbench reproduce all --suite-table docs/reproduce.md',
  'FRAGBENCH_TASK_QUEUE=fb-repro npx fragbench reproduce latency overlay-paths --suite-table docs/reproduce.md   # some of them',
  'npx fragbench reproduce --resume results/reproduce-<stamp> --report-only --suite-table docs/reproduce.md   # again, from a directory',
  '```',
  '',
  "Each experiment's own comparison, with its deviations and every figure, is in `results/reproduce-<stamp>/comparison.md` and `.html`.",
].join('\n');

/** The page docs/reproduce.md: its heading, how to fill it, which experiments this run covered, and the suite table from `dir`. */
export function suitePage(dir: string, comparisons: ExperimentComparison[]): string {
  const ran = new Set(comparisons.map((c) => c.reproduction.id));
  const notRun = REPRODUCTIONS.map((r) => r.id).filter((id) => !ran.has(id));
  const scope =
    notRun.length === 0
      ? `This run covered every experiment of the catalogue (${ran.size}).`
      : `This run covered ${ran.size} of the catalogue's ${REPRODUCTIONS.length} experiments (${[...ran].join(', ')}); not run: ${notRun.join(', ')}. Their figures are in no row below.`;
  return [
    '# Reproducing the published results: the suite',
    '',
    `One row per published figure and claim of each experiment run (core/reproduce/published-results.json), from one run of \`fragbench reproduce\`. ${scope}`,
    '',
    SUITE_HOW_TO,
    '',
    suiteTable(comparisons, path.relative(process.cwd(), dir) || dir),
  ].join('\n');
}

function writeSuiteTable(file: string, dir: string, comparisons: ExperimentComparison[]): string {
  const target = path.resolve(file);
  writeFileAtomic(target, suitePage(dir, comparisons));
  return target;
}
