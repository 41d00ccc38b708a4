/** Where a run named on the command line is: a run id in the results directory, or the path of a run's directory. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ResultsStore } from '../services/results/results-store';

export function locateRun(run: string): { store: ResultsStore; runId: string } {
  const dir = path.resolve(run);
  if (/[\\/]/.test(run) && existsSync(path.join(dir, 'run.json'))) {
    return { store: new ResultsStore(path.dirname(dir)), runId: path.basename(dir) };
  }
  return { store: new ResultsStore(), runId: run };
}
