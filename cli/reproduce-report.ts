/**
 * Writes the comparison of a reproduce directory (comparison.md and comparison.json beside the
 * ledger) from the runs its ledger lists, and returns the Markdown for the terminal. Figures are
 * read from each run's stored cells, so the comparison can be made again at any time
 * (`reproduce --resume <dir>` with nothing left to run does just that).
 */
import path from 'node:path';
import { ResultsStore } from '../services/results/results-store';
import { writeFileAtomic, writeJsonAtomic } from '../platform/files';
import type { CellPlan } from '../core/scenario';
import type { CellRecord } from '../core/run-record';
import { aggregate } from '../core/reproduce/aggregate';
import { experimentSection } from '../core/reproduce/comparison-text';
import { runFigures, type Figure } from '../core/reproduce/figures';
import { compareLatency, type PublishedLatency } from '../core/reproduce/latency-comparison';
import type { Ledger } from '../core/reproduce/ledger';
import type { PlannedReproduction } from './reproduce-plan';
import published from '../core/reproduce/published-latency.json';

/** The ycsb.target each phase of a recorded cell ran under, from the run's own record of its plan. */
function ceilingsOf(plans: CellPlan[]) {
  return (cell: CellRecord, phase: string) =>
    plans
      .find((p) => JSON.stringify(p.coordinates) === JSON.stringify(cell.coordinates))
      ?.phases.flatMap((p) => (p.kind === 'run' && p.name === phase ? [p.ycsb.target] : []))[0];
}

async function figuresOfRun(store: ResultsStore, runId: string): Promise<Figure[]> {
  if (!(await store.hasRun(runId))) return [];
  const run = await store.readRun(runId);
  const cells = await store.readCells(run).catch(() => [] as CellRecord[]);
  return runFigures(cells, ceilingsOf((run.settings.cells as CellPlan[] | undefined) ?? []));
}

/** Figures per repetition of one experiment, over every run (and part) of that repetition. */
async function figuresPerRepetition(store: ResultsStore, ledger: Ledger, experiment: string, repeat: number): Promise<Figure[][]> {
  const perRepetition: Figure[][] = [];
  for (let repetition = 1; repetition <= repeat; repetition++) {
    const runs = ledger.runs.filter((r) => r.experiment === experiment && r.repetition === repetition);
    perRepetition.push((await Promise.all(runs.map((r) => figuresOfRun(store, r.runId)))).flat());
  }
  return perRepetition;
}

export async function writeComparison(dir: string, planned: PlannedReproduction[], ledger: Ledger): Promise<string> {
  const store = new ResultsStore();
  const sections: string[] = [`# Reproduction of the published experiments on one host\n\nDirectory: ${dir}; written ${new Date().toISOString()}.\n`];
  const json: Record<string, unknown> = {};
  for (const { reproduction, estimate } of planned) {
    const repeat = ledger.repeat[reproduction.id] ?? estimate.repeat;
    const perRepetition = await figuresPerRepetition(store, ledger, reproduction.id, repeat);
    const figures = aggregate(perRepetition);
    const latency = reproduction.id === 'latency' ? compareLatency(published as PublishedLatency, perRepetition) : undefined;
    sections.push(experimentSection(reproduction, repeat, figures, latency));
    json[reproduction.id] = { repeat, runs: ledger.runs.filter((r) => r.experiment === reproduction.id), figures, ...(latency ? { latency } : {}) };
  }
  const markdown = sections.join('\n');
  writeFileAtomic(path.join(dir, 'comparison.md'), markdown);
  writeJsonAtomic(path.join(dir, 'comparison.json'), json);
  return `${markdown}\ncomparison: ${path.join(dir, 'comparison.md')} (and comparison.json)`;
}
