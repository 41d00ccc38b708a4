/**
 * Writes the comparison of a reproduce directory (comparison.md, comparison.json and the
 * self-contained comparison.html beside the ledger) from the runs its ledger lists, and returns
 * the Markdown for the terminal. Figures are read from each run's stored cells (per cell, those
 * of its last plan), so the comparison can be made again at any time (`reproduce --resume <dir>
 * --report-only`).
 */
import path from 'node:path';
import { ResultsStore } from '../services/results/results-store';
import { writeFileAtomic, writeJsonAtomic } from '../platform/files';
import type { CellPlan } from '../core/scenario';
import type { CellRecord } from '../core/run-record';
import { aggregate } from '../core/reproduce/aggregate';
import { experimentSection, REPLAN_NOTE, type ExperimentComparison } from '../core/reproduce/comparison-text';
import { writeComparisonHtml } from '../report/comparison-html';
import { namingFleets, runFigures, type Figure, type PhaseClient } from '../core/reproduce/figures';
import { compareLatency, type PublishedLatency } from '../core/reproduce/latency-comparison';
import { sameCell, type Coordinates, type Ledger } from '../core/reproduce/ledger';
import { cellProgress, planNote, replanCells } from '../core/reproduce/replan';
import type { PlannedReproduction } from './reproduce-plan';
import published from '../core/reproduce/published-latency.json';

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

/** The figures one run recorded for one cell. */
async function figuresOfRun(store: ResultsStore, runId: string, cell: Coordinates, targetsAreOfferedLoad: boolean): Promise<Figure[]> {
  if (!(await store.hasRun(runId))) return [];
  const run = await store.readRun(runId);
  const cells = (await store.readCells(run).catch(() => [] as CellRecord[])).filter((c) => sameCell(c.coordinates, cell));
  return runFigures(cells, clientsOf((run.settings.cells as CellPlan[] | undefined) ?? [], targetsAreOfferedLoad));
}

/** One experiment's figures per repetition and the re-plans behind them. */
interface ExperimentFigures {
  perRepetition: Figure[][];
  /** "r1 cassandra latencyScale=0.2: re-planned: …", for every cell not run as planned. */
  plans: string[];
  firstRepetitionRuns: string[];
}

/**
 * Per repetition, part and cell, the figures of the cell's last finished attempt, each with the
 * plan that produced it; a cell no attempt finished shows what its latest run recorded.
 */
async function experimentFigures(store: ResultsStore, ledger: Ledger, planned: PlannedReproduction, repeat: number): Promise<ExperimentFigures> {
  const experiment = planned.reproduction.id;
  const result: ExperimentFigures = { perRepetition: [], plans: [], firstRepetitionRuns: [] };
  for (let repetition = 1; repetition <= repeat; repetition++) {
    const figures: Figure[] = [];
    for (const part of planned.parts) {
      const defined = planned.reproduction.parts.find((p) => p.id === part.id)!;
      const cells = replanCells(defined, part.plan);
      const runs = ledger.runs.filter((r) => r.experiment === experiment && r.part === part.id && r.repetition === repetition);
      for (const progress of cellProgress(ledger, { experiment, part: part.id, repetition }, cells)) {
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

/**
 * Writes comparison.md, comparison.json and comparison.html into `dir`; `store` holds the runs
 * the ledger lists (the default results directory unless told otherwise).
 */
export async function writeComparison(dir: string, planned: PlannedReproduction[], ledger: Ledger, store = new ResultsStore()): Promise<string> {
  const writtenAt = Date.now();
  const comparisons: ExperimentComparison[] = [];
  for (const p of planned) {
    const { reproduction, estimate } = p;
    const repeat = ledger.repeat[reproduction.id] ?? estimate.repeat;
    const { perRepetition, plans, firstRepetitionRuns } = await experimentFigures(store, ledger, p, repeat);
    const latency = reproduction.id === 'latency' ? compareLatency(published as PublishedLatency, perRepetition) : undefined;
    comparisons.push({ reproduction, repeat, figures: aggregate(perRepetition), plans, firstRepetitionRuns, ...(latency ? { latency } : {}) });
  }
  const heading = `# Reproduction of the published experiments on one host\n\nDirectory: ${dir}; written ${new Date(writtenAt).toISOString()}.\n\n${REPLAN_NOTE}\n`;
  const markdown = [heading, ...comparisons.map(experimentSection)].join('\n');
  writeFileAtomic(path.join(dir, 'comparison.md'), markdown);
  const json = Object.fromEntries(
    comparisons.map(({ reproduction, repeat, plans, figures, latency }) => [
      reproduction.id,
      { repeat, runs: ledger.runs.filter((r) => r.experiment === reproduction.id), plans, figures, ...(latency ? { latency } : {}) },
    ]),
  );
  writeJsonAtomic(path.join(dir, 'comparison.json'), json);
  const html = await writeComparisonHtml(store, { dir, writtenAt, comparisons, published: published as PublishedLatency });
  return `${markdown}\ncomparison: ${path.join(dir, 'comparison.md')} (and comparison.json, ${path.basename(html)})`;
}
