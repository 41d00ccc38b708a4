/**
 * The results activities (services/results/recording.ts): the engine records a run's start,
 * each phase's samples, each finished cell, and the run's end through these. Finishing also
 * renders the report, which sits above the services: the service completes the records, then
 * this adapter writes the report from them. Bad ids are InputErrors (not retried, see
 * worker/final-errors.ts); every other step may be retried, and repeats leave the same records.
 * The results directory is $FRAGBENCH_RESULTS_DIR or ./results, read at each call.
 */
import { writeReport } from '../report/write-report';
import * as recording from '../services/results/recording';
import { ResultsStore } from '../services/results/results-store';
import type { ResultsActivities } from './contracts';

type Input<K extends keyof ResultsActivities> = Parameters<ResultsActivities[K]>[0];

export async function recordRunStart({ record }: Input<'recordRunStart'>): Promise<{ dir: string }> {
  return { dir: await recording.recordRunStart(new ResultsStore(), record) };
}

export function recordSamples({ runId, cellId, phaseIndex, samples }: Input<'recordSamples'>): Promise<void> {
  return recording.recordSamples(new ResultsStore(), runId, cellId, phaseIndex, samples);
}

export function recordCell({ runId, cell, reference }: Input<'recordCell'>) {
  return recording.recordCell(new ResultsStore(), runId, cell, reference);
}

export async function finishRun({ runId, status, finishedAt }: Input<'finishRun'>): Promise<{ reportPath: string }> {
  const results = new ResultsStore();
  await recording.finishRun(results, runId, status, finishedAt);
  const { reportPath } = await writeReport(results, runId, { png: 'auto' });
  return { reportPath };
}

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ recordRunStart, recordSamples, recordCell, finishRun }) satisfies ResultsActivities;
