/**
 * The results activities (services/results/recording.ts): the engine records a run's start,
 * each phase's samples, each finished cell, and the run's end through these. Finishing also
 * renders the report, which sits above the services: the service completes the records, then
 * this adapter writes the report from them. Bad ids are InputErrors (not retried, see
 * worker/final-errors.ts); every other step may be retried, and repeats leave the same records.
 */
import { writeReport } from '../report/write-report';
import * as recording from '../services/results/recording';
import { ResultsStore, defaultResultsDir } from '../services/results/results-store';
import type { ResultsActivities } from './contracts';

/** root: the results directory; by default $FRAGBENCH_RESULTS_DIR or ./results, read at each call. */
export function createResultsActivities(root?: string): ResultsActivities {
  const store = () => new ResultsStore(root ?? defaultResultsDir());

  return {
    async recordRunStart({ record }) {
      return { dir: await recording.recordRunStart(store(), record) };
    },

    async recordSamples({ runId, cellId, phaseIndex, samples }) {
      await recording.recordSamples(store(), runId, cellId, phaseIndex, samples);
    },

    async recordCell({ runId, cell, reference }) {
      return recording.recordCell(store(), runId, cell, reference);
    },

    async finishRun({ runId, status, finishedAt }) {
      const results = store();
      await recording.finishRun(results, runId, status, finishedAt);
      const { reportPath } = await writeReport(results, runId, { png: 'auto' });
      return { reportPath };
    },
  };
}

/** The activities as the worker registers them. */
export const resultsActivities: ResultsActivities = createResultsActivities();
