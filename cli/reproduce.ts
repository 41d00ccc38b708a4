/**
 * `fragbench reproduce [experiment|all]`: the published experiments of SPEC.md §4, scaled to this
 * host (core/reproduce/), each run as ordinary scenario runs through the same start path as
 * `fragbench run --local`, once per repetition. Everything lands in results/reproduce-<stamp>/:
 * the generated scenarios, the ledger of runs (for `--resume`) and the comparison.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { wholeNumberAbove0 } from './options';
import type { Client } from '@temporalio/client';
import { defaultResultsDir, ResultsStore } from '../services/results/results-store';
import { InputError } from '../core/errors';
import type { CellRecord } from '../core/run-record';
import { partsSharingRuns, REPRODUCTIONS, selectReproductions, withSharedRuns } from '../core/reproduce/catalogue';
import type { Reproduction } from '../core/reproduce/experiment';
import { experimentDurations, formatDurations } from '../core/reproduce/durations';
import { cellFinished, emptyLedger, restrictToCell, withRun, type Coordinates, type Ledger, type LedgerRun } from '../core/reproduce/ledger';
import { cellProgress, planNote, replanCells, scenarioAtSize, finishedUnderAnother, type CellProgress } from '../core/reproduce/replan';
import type { ScenarioFile } from '../core/scenario';
import { readJson, writeJsonAtomic } from '../platform/files';
import type { TemporalSettings } from '../worker/connection';
import { ensureDevServer, stopDevServer } from '../worker/dev-server';
import { runIdFor } from '../workflows/definitions';
import { formatSuitePlan, planReproduction, planSuite, suitePlanJson, type PlannedPart, type PlannedReproduction } from './reproduce-plan';
import { readmeProblem, writeComparison, type ComparisonOutputs } from './reproduce-report';
import { startRun, withLocalWorker } from './run';
import { followRun } from './run-follow';

interface ReproduceOptions {
  plan?: boolean;
  json?: boolean;
  durations?: boolean;
  repeat?: number;
  resume?: string;
  reportOnly?: boolean;
  suiteTable?: string;
  /** A README whose reproduction section (between README_MARKERS) the run's compared rows fill. */
  readme?: string;
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** The reproduce directory's files. */
function paths(dir: string) {
  return { ledger: path.join(dir, 'ledger.json'), scenarios: path.join(dir, 'scenarios') };
}

function openDirectory(resume: string | undefined): { dir: string; ledger: Ledger } {
  if (resume === undefined) {
    const dir = path.join(defaultResultsDir(), `reproduce-${stamp()}`);
    mkdirSync(paths(dir).scenarios, { recursive: true });
    return { dir, ledger: emptyLedger(Date.now()) };
  }
  const dir = path.resolve(resume);
  const ledger = readJson<Ledger>(paths(dir).ledger);
  if (!existsSync(dir) || !ledger)
    throw new InputError(
      '--resume',
      `${resume} is not a reproduce directory (no ledger.json in it); give one that \`fragbench reproduce\` made, e.g. results/reproduce-<stamp>`,
    );
  mkdirSync(paths(dir).scenarios, { recursive: true });
  return { dir, ledger };
}

/** Cells of a finished run whose record holds every planned phase, with their verdicts (which decide a re-plan). */
async function finishedCellsOf(runId: string, part: PlannedPart): Promise<Pick<LedgerRun, 'finishedCells' | 'verdicts'>> {
  const store = new ResultsStore();
  if (!(await store.hasRun(runId))) return { finishedCells: [] };
  const records: CellRecord[] = await store.readCells(await store.readRun(runId)).catch(() => []);
  const planned = part.plan.cells[0]?.phases.length ?? 0;
  const finished = records.filter((r) =>
    cellFinished(
      r.phases.map((p) => p.name),
      planned,
    ),
  );
  return {
    finishedCells: finished.map((r) => r.coordinates),
    verdicts: finished.map((r) => {
      const v = r.summary.verdict;
      const why = v?.reasons.map((x) => x.text).join('; ');
      return { cell: r.coordinates, verdict: v?.verdict ?? 'unjudged', ...(why ? { why } : {}) };
    }),
  };
}

/** What one run of a part's repetition is: the first plan of some cells, or a re-plan of one. */
interface Attempted {
  scenario: ScenarioFile;
  file: string;
  meta: Pick<LedgerRun, 'attempt' | 'size' | 'replan'>;
}

const dueKey = (p: CellProgress) => `${JSON.stringify(p.cell)}#${p.next?.attempt}`;

class ReproduceSession {
  constructor(
    readonly dir: string,
    private ledger: Ledger,
    /** The experiments this invocation runs, as a resume must name them again. */
    private readonly experiments: string[],
  ) {}

  get current(): Ledger {
    return this.ledger;
  }

  record(run: LedgerRun): void {
    this.ledger = withRun(this.ledger, run);
    writeJsonAtomic(paths(this.dir).ledger, this.ledger);
  }

  setRepeat(experiment: string, repeat: number): void {
    this.ledger = { ...this.ledger, repeat: { ...this.ledger.repeat, [experiment]: repeat } };
    writeJsonAtomic(paths(this.dir).ledger, this.ledger);
  }

  /**
   * Runs one repetition of one part: its cells as planned, then each cell that was not `ok` again
   * one step smaller while the re-plan policy allows (core/reproduce/replan.ts). Attempts that
   * finished earlier (a resume) are not redone; an attempt that does not finish is left to a resume.
   */
  async runPart(
    client: Client,
    settings: TemporalSettings,
    planned: PlannedReproduction,
    part: PlannedPart,
    repetition: number,
    repeat: number,
  ): Promise<void> {
    const experiment = planned.reproduction.id;
    const reproductionPart = planned.reproduction.parts.find((p) => p.id === part.id)!;
    const cells = replanCells(reproductionPart, part.plan);
    const at = { experiment, part: part.id, repetition };
    const label = `[${experiment}] repetition ${repetition}/${repeat}, part ${part.id}`;
    const shared = finishedUnderAnother(this.ledger, partsSharingRuns(at), repetition, cells);
    if (shared) {
      console.log(`${label}: the same scenario finished earlier as ${shared.experiment}'s part ${shared.part}; its runs are used, not run again`);
      return;
    }
    const tried = new Set<string>();
    for (let round = 0; ; round++) {
      const progress = cellProgress(this.ledger, at, cells);
      const due = progress.filter((p) => p.next && !tried.has(dueKey(p)));
      if (due.length === 0) {
        if (round === 0) console.log(`${label}: finished earlier, skipped`);
        for (const p of progress.filter((x) => x.attempts.length > 1 || (x.decision && x.decision.kind !== 'keep')))
          console.log(`${label}, cell ${JSON.stringify(p.cell)}: ${planNote(p)}`);
        return;
      }
      for (const p of due) tried.add(dueKey(p));
      for (const attempt of this.attemptsFor(reproductionPart.scenario, cells, `${experiment}-${part.id}-r${repetition}`, repetition, due)) {
        if (attempt.meta.replan)
          console.log(`\n${label}: re-planned (attempt ${attempt.meta.attempt}): ${attempt.meta.replan.step}, ${attempt.meta.replan.because}`);
        await this.runAttempt(client, settings, at, part, attempt, label);
      }
    }
  }

  /** First plans of the due cells as one run (the whole scenario when every cell is due), then each re-plan as a run of its own cell. */
  private attemptsFor(
    scenario: ScenarioFile,
    cells: ReturnType<typeof replanCells>,
    stem: string,
    repetition: number,
    due: CellProgress[],
  ): Attempted[] {
    const scenarios = paths(this.dir).scenarios;
    const cellIndex = (cell: Coordinates) => cells.findIndex((c) => JSON.stringify(c.coordinates) === JSON.stringify(cell)) + 1;
    // A first attempt at a size other than the plan's (carried from an earlier repetition) runs as a re-plan does: its cell alone, at its size.
    const atBase = (p: CellProgress) => p.next!.attempt === 1 && p.next!.replan === undefined;
    const firsts = due.filter(atBase);
    const attempts: Attempted[] = [];
    if (firsts.length === cells.length)
      attempts.push({ scenario: { ...scenario, name: `${scenario.name}-r${repetition}` }, file: path.join(scenarios, `${stem}.json`), meta: {} });
    else {
      for (const p of firsts) {
        attempts.push({
          scenario: { ...restrictToCell(scenario, p.cell), name: `${scenario.name}-r${repetition}` },
          file: path.join(scenarios, `${stem}-cell${cellIndex(p.cell)}.json`),
          meta: {},
        });
      }
    }
    for (const p of due.filter((x) => !atBase(x))) {
      const { attempt, size, replan } = p.next!;
      const base = cells.find((c) => JSON.stringify(c.coordinates) === JSON.stringify(p.cell))!.base;
      attempts.push({
        scenario: { ...restrictToCell(scenarioAtSize(scenario, base, size), p.cell), name: `${scenario.name}-r${repetition}-a${attempt}` },
        file: path.join(scenarios, `${stem}-cell${cellIndex(p.cell)}-a${attempt}.json`),
        meta: { attempt, size, ...(replan ? { replan } : {}) },
      });
    }
    return attempts;
  }

  private async runAttempt(
    client: Client,
    settings: TemporalSettings,
    at: { experiment: string; part: string; repetition: number },
    part: PlannedPart,
    attempt: Attempted,
    label: string,
  ): Promise<void> {
    writeJsonAtomic(attempt.file, attempt.scenario);
    console.log(`\n${label}: ${attempt.file}`);
    const handle = await startRun(client, settings, attempt.file, {});
    const run: LedgerRun = {
      ...at,
      runId: runIdFor(handle.workflowId),
      status: 'started',
      finishedCells: [],
      startedAt: Date.now(),
      ...attempt.meta,
    };
    this.record(run);
    const { code, summary } = await followRun(client, handle);
    const status = summary?.status ?? (code === 130 ? 'cancelled' : 'failed');
    this.record({ ...run, status, ...(await finishedCellsOf(run.runId, part)), finishedAt: Date.now() });
    if (code === 130)
      throw new Error(
        `interrupted; continue with: fragbench reproduce ${this.experiments.join(' ')} --resume ${path.relative(process.cwd(), this.dir)}`,
      );
  }
}

/** The results store a reproduce directory's runs are in: the directory it sits in (results/). */
const storeOf = (dir: string) => new ResultsStore(path.dirname(dir));

/** `--report-only`: the comparison of a reproduce directory written again from its ledger, running nothing. */
async function reportOnly(which: string[], opts: ReproduceOptions): Promise<void> {
  if (opts.resume === undefined)
    throw new InputError(
      '--report-only',
      'needs --resume <dir>: the reproduce directory whose comparison to write again, e.g. results/reproduce-<stamp>',
    );
  const { dir, ledger } = openDirectory(opts.resume);
  // `all` means what this directory ran.
  const all = which.length === 0 || which.includes('all');
  const selected = selectReproductions(which).filter((r) => !all || r.id in ledger.repeat);
  const ids = selected.map((r) => r.id);
  const planned: PlannedReproduction[] = [];
  for (const r of selected) planned.push(await planReproduction(r, ledger.repeat[r.id], ids));
  console.log(await writeComparison(dir, planned, ledger, storeOf(dir), outputsOf(opts)));
}

/** The reproduce directories `fragbench reproduce` made in the results directory (reproduce-<stamp>), oldest first. */
function reproduceDirectories(): string[] {
  const results = defaultResultsDir();
  if (!existsSync(results)) return [];
  return readdirSync(results)
    .filter((name) => /^reproduce-\d{8}-\d{6}$/.test(name) && existsSync(paths(path.join(results, name)).ledger))
    .sort()
    .map((name) => path.join(results, name));
}

/** `--durations`: each experiment's newest complete run, real against planned minutes, and the suite's sum; running nothing. */
async function durations(which: string[]): Promise<void> {
  const selected = selectReproductions(which);
  const dirs = reproduceDirectories();
  if (dirs.length === 0) {
    throw new InputError(
      '--durations',
      `no reproduce directory in ${defaultResultsDir()} (results/reproduce-<stamp>, made by \`fragbench reproduce\`): run an experiment first`,
    );
  }
  const ledgers = dirs.map((dir) => ({ directory: path.basename(dir), ledger: readJson<Ledger>(paths(dir).ledger)! }));
  const found = experimentDurations(ledgers, selected.map(withSharedRuns));
  const plannedS = new Map<string, number>();
  const ids = selected.map((r) => r.id);
  for (const r of selected) plannedS.set(r.id, (await planReproduction(r, found.get(r.id)?.repeat, ids)).estimate.totalS);
  console.log(formatDurations(found, plannedS));
}

/** Where the comparison goes besides its directory; a README that cannot take it is refused before anything runs. */
function outputsOf(opts: Pick<ReproduceOptions, 'suiteTable' | 'readme'>): ComparisonOutputs {
  return { suiteTable: opts.suiteTable, readme: opts.readme };
}

async function reproduce(which: string[], opts: ReproduceOptions): Promise<void> {
  const readme = opts.readme === undefined ? undefined : readmeProblem(opts.readme);
  if (readme) throw new InputError('--readme', readme);
  if (opts.json && !opts.plan)
    throw new InputError('--json', 'prints the plan only: give it with --plan, e.g. `fragbench reproduce all --plan --json`');
  if (opts.durations) return durations(which);
  if (opts.reportOnly) return reportOnly(which, opts);
  return reproduceWith(selectReproductions(which), opts);
}

/** Runs reproductions (the catalogue's, or a smaller one a check builds) with the CLI's options. */
export async function reproduceWith(selected: Reproduction[], opts: Omit<ReproduceOptions, 'reportOnly'>): Promise<void> {
  // A resume keeps the repetitions the first invocation asked for, unless told otherwise.
  const earlier = opts.resume ? readJson<Ledger>(paths(path.resolve(opts.resume)).ledger) : undefined;
  const planned = await planSuite(selected, opts.repeat);
  if (earlier && opts.repeat === undefined) {
    const ids = selected.map((r) => r.id);
    for (const [i, p] of planned.entries()) {
      const asked = earlier.repeat[p.reproduction.id];
      if (asked !== undefined && asked !== p.estimate.repeat) planned[i] = await planReproduction(p.reproduction, asked, ids);
    }
  }
  if (opts.plan && opts.json) {
    console.log(JSON.stringify(suitePlanJson(planned), null, 2));
    return;
  }
  console.log(formatSuitePlan(planned));
  if (opts.plan) return;

  const { dir, ledger } = openDirectory(opts.resume);
  const session = new ReproduceSession(dir, ledger, selected.length === REPRODUCTIONS.length ? ['all'] : selected.map((r) => r.id));
  console.log(`\nreproduce directory: ${dir}`);
  // Started here, stopped here: no dev server is left behind by a reproduction.
  const { started } = await ensureDevServer();
  try {
    await withLocalWorker(async (client, settings) => {
      for (const p of planned) {
        session.setRepeat(p.reproduction.id, p.estimate.repeat);
        for (let repetition = 1; repetition <= p.estimate.repeat; repetition++) {
          // A part another selected reproduction runs (the same scenario) is run once, under that one.
          for (const part of p.parts.filter((x) => !x.runsUnder)) await session.runPart(client, settings, p, part, repetition, p.estimate.repeat);
        }
      }
    });
  } finally {
    // Whatever finished is in the ledger: the comparison says what it shows, even after an interruption.
    console.log(await writeComparison(dir, planned, session.current, storeOf(dir), outputsOf(opts)));
    if (started) await stopDevServer();
  }
}

export function registerReproduceCommands(program: Command): void {
  program
    .command('reproduce [experiments...]')
    .description(
      'run the published experiments (SPEC.md §4) on this host, each as scenario runs, and compare them with every published figure and claim (core/reproduce/published-results.json); `all` (the default) or one or more of the ids `--plan` lists',
    )
    .option(
      '--plan',
      "print each experiment's deviations from the published set-up, what it compares and what not (why), and its estimated duration; run nothing",
    )
    .option('--json', 'with --plan: the plan as JSON ({experiments: [{id, estimatedMinutes, compares, notCompared, deviations}], totalMinutes})')
    .option('--repeat <n>', 'repetitions per experiment (default: 3 where the 30-minute budget allows, else fewer)', wholeNumberAbove0)
    .option('--resume <dir>', 'continue an interrupted reproduction in its directory (results/reproduce-<stamp>), skipping finished runs and cells')
    .option(
      '--durations',
      "each experiment's newest complete run in results/reproduce-<stamp> directories, real against planned minutes, and the suite's sum; run nothing",
    )
    .option('--report-only', 'with --resume: write the comparison (comparison.md, .json and .html) again from the directory, running nothing')
    .option('--suite-table <file>', 'also write the suite-level table (every experiment, then the counts) to this file, e.g. docs/reproduce.md')
    .option(
      '--readme <file>',
      "also fill the file's reproduction section (between <!-- fragbench reproduce: begin --> and <!-- fragbench reproduce: end -->) with the rows compared, the counts, each disagreement's cause and the run's time, e.g. README.md",
    )
    .action((experiments: string[], opts: ReproduceOptions) => reproduce(experiments, opts));
}
