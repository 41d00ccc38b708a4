/**
 * `fragbench reproduce [experiment|all]`: the published experiments of SPEC.md §4, scaled to this
 * host (core/reproduce/), each run as ordinary scenario runs through the same start path as
 * `fragbench run --local`, once per repetition. Everything lands in results/reproduce-<stamp>/:
 * the generated scenarios, the ledger of runs (for `--resume`) and the comparison.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { wholeNumberAbove0 } from './options';
import type { Client } from '@temporalio/client';
import { defaultResultsDir, ResultsStore } from '../services/results/results-store';
import { InputError } from '../core/errors';
import type { CellRecord } from '../core/run-record';
import { selectReproductions } from '../core/reproduce/catalogue';
import { cellFinished, emptyLedger, pendingCells, restrictToCell, withRun, type Coordinates, type Ledger, type LedgerRun } from '../core/reproduce/ledger';
import type { ScenarioFile } from '../core/scenario';
import { readJson, writeJsonAtomic } from '../platform/files';
import type { TemporalSettings } from '../worker/connection';
import { ensureDevServer, stopDevServer } from '../worker/dev-server';
import { runIdFor } from '../workflows/definitions';
import { formatSuitePlan, planReproduction, type PlannedPart, type PlannedReproduction } from './reproduce-plan';
import { writeComparison } from './reproduce-report';
import { followRun, startRun, withLocalWorker } from './run';

interface ReproduceOptions {
  plan?: boolean;
  repeat?: number;
  resume?: string;
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
  if (!existsSync(dir) || !ledger) throw new InputError('--resume', `${resume} is not a reproduce directory (no ledger.json in it); give one that \`fragbench reproduce\` made, e.g. results/reproduce-<stamp>`);
  mkdirSync(paths(dir).scenarios, { recursive: true });
  return { dir, ledger };
}

/** Cells of a finished run whose record holds every planned phase. */
async function finishedCellsOf(runId: string, part: PlannedPart): Promise<Coordinates[]> {
  const store = new ResultsStore();
  if (!(await store.hasRun(runId))) return [];
  const records: CellRecord[] = await store.readCells(await store.readRun(runId)).catch(() => []);
  const planned = part.plan.cells[0]?.phases.length ?? 0;
  return records.filter((r) => cellFinished(r.phases.map((p) => p.name), planned)).map((r) => r.coordinates);
}

/** The scenarios that finish a part's repetition: the whole scenario, or one per cell still pending after an interruption. */
function scenariosToRun(scenario: ScenarioFile, part: PlannedPart, pending: Coordinates[]): ScenarioFile[] {
  if (pending.length === part.plan.cells.length) return [scenario];
  return pending.map((cell) => restrictToCell(scenario, cell));
}

class ReproduceSession {
  constructor(
    readonly dir: string,
    private ledger: Ledger,
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

  /** Runs one repetition of one part; cells finished earlier (a resume) are not redone. */
  async runPart(client: Client, settings: TemporalSettings, planned: PlannedReproduction, part: PlannedPart, repetition: number, repeat: number): Promise<void> {
    const experiment = planned.reproduction.id;
    const scenario = planned.reproduction.parts.find((p) => p.id === part.id)!.scenario;
    const pending = pendingCells(this.ledger, experiment, part.id, repetition, part.plan.cells.map((c) => c.coordinates));
    if (pending.length === 0) {
      console.log(`[${experiment}] repetition ${repetition}/${repeat}, part ${part.id}: finished earlier, skipped`);
      return;
    }
    for (const [i, value] of scenariosToRun(scenario, part, pending).entries()) {
      const file = path.join(paths(this.dir).scenarios, `${experiment}-${part.id}-r${repetition}${pending.length < part.plan.cells.length ? `-cell${i + 1}` : ''}.json`);
      writeJsonAtomic(file, { ...value, name: `${value.name}-r${repetition}` });
      console.log(`\n[${experiment}] repetition ${repetition}/${repeat}, part ${part.id}: ${file}`);
      const handle = await startRun(client, settings, file, {});
      const run: LedgerRun = { experiment, part: part.id, repetition, runId: runIdFor(handle.workflowId), status: 'started', finishedCells: [], startedAt: Date.now() };
      this.record(run);
      const { code, summary } = await followRun(client, handle);
      const status = summary?.status ?? (code === 130 ? 'cancelled' : 'failed');
      this.record({ ...run, status, finishedCells: await finishedCellsOf(run.runId, part), finishedAt: Date.now() });
      if (code === 130) throw new Error(`interrupted; continue with: fragbench reproduce ${experiment} --resume ${path.relative(process.cwd(), this.dir)}`);
    }
  }
}

async function reproduce(which: string, opts: ReproduceOptions): Promise<void> {
  const selected = selectReproductions(which);
  const planned: PlannedReproduction[] = [];
  // A resume keeps the repetitions the first invocation asked for, unless told otherwise.
  const earlier = opts.resume ? readJson<Ledger>(paths(path.resolve(opts.resume)).ledger) : undefined;
  for (const r of selected) planned.push(await planReproduction(r, opts.repeat ?? earlier?.repeat[r.id]));
  console.log(formatSuitePlan(planned));
  if (opts.plan) return;

  const { dir, ledger } = openDirectory(opts.resume);
  const session = new ReproduceSession(dir, ledger);
  console.log(`\nreproduce directory: ${dir}`);
  // Started here, stopped here: no dev server is left behind by a reproduction.
  const { started } = await ensureDevServer();
  try {
    await withLocalWorker(async (client, settings) => {
      for (const p of planned) {
        session.setRepeat(p.reproduction.id, p.estimate.repeat);
        for (let repetition = 1; repetition <= p.estimate.repeat; repetition++) {
          for (const part of p.parts) await session.runPart(client, settings, p, part, repetition, p.estimate.repeat);
        }
      }
    });
  } finally {
    // Whatever finished is in the ledger: the comparison says what it shows, even after an interruption.
    console.log(await writeComparison(dir, planned, session.current));
    if (started) await stopDevServer();
  }
}

export function registerReproduceCommands(program: Command): void {
  program
    .command('reproduce [experiment]')
    .description('run the published experiments (SPEC.md §4) scaled to this host, each as scenario runs, and compare them with the published values; `all` (the default) or one of the ids `--plan` lists')
    .option('--plan', "print each experiment's scale and estimated duration; run nothing")
    .option('--repeat <n>', 'repetitions per experiment (default: 3 where the 30-minute budget allows, else fewer)', wholeNumberAbove0)
    .option('--resume <dir>', 'continue an interrupted reproduction in its directory (results/reproduce-<stamp>), skipping finished runs and cells')
    .action((experiment: string | undefined, opts: ReproduceOptions) => reproduce(experiment ?? 'all', opts));
}
