/**
 * `fragbench compare <run> <run>...`: runs of one scenario shape (or of different databases)
 * lined up cell for cell, as one self-contained page written beside them, or as JSON. Runs whose
 * cells cannot be matched are refused with the reason (exit 2). See report/compare-runs/.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { compareRuns, comparisonJson } from '../report/compare-runs/model';
import { SIDES, type ComparedRun, type Side } from '../report/compare-runs/line-up';
import { writeComparisonPage } from '../report/compare-runs/page';
import type { ResultsStore } from '../services/results/results-store';
import { locateRun } from './run-location';

async function readRun(arg: string): Promise<ComparedRun & { store: ResultsStore }> {
  const { store, runId } = locateRun(arg);
  const run = await store.readRun(runId);
  return { run, cells: await store.readCells(run), store };
}

async function compareCommand(args: string[], opts: { by?: Side; json?: boolean; out?: string }): Promise<void> {
  const runs = await Promise.all(args.map(readRun));
  const comparison = compareRuns(runs, opts.by);
  if (opts.json) {
    console.log(comparisonJson(comparison));
    return;
  }
  const reportOf = (runId: string) => runs.find((r) => r.run.runId === runId)!.store.reportFile(runId);
  // Beside the runs: in the results directory of the first.
  const out = opts.out === undefined ? undefined : path.resolve(opts.out);
  console.log(await writeComparisonPage(comparison, runs[0].store.root, reportOf, out));
}

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .argument('<runs...>', 'run ids (see `fragbench runs`) or run directories: runs of one scenario shape, or of different databases')
    .addOption(
      new Option(
        '--by <side>',
        'what the runs are compared by (default: the first of database, topology, scenario on which they differ; run: each run is its own)',
      ).choices(SIDES),
    )
    .option('--json', 'print the comparison as JSON instead of writing the page')
    .option('--out <file>', 'where to write the page; default: comparisons/<runs>.html in the results directory')
    .description(
      'line runs up cell for cell: throughput over time aligned at each event, the cells side by side (ops/s, p99, errors, resizes, verdict) and their differences with intervals where runs repeat; prints the page’s path',
    )
    .action(compareCommand);
}
