/**
 * What the benchmarks that run whole scenarios share: a throw-away Temporal dev server, the local
 * fleet, the real worker with every real activity, and a results directory of their own; all
 * brought down again, whatever happens. The figures are read from the results store afterwards,
 * as a user's report would be.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../services/results/results-store';
import type { CellRecord, RunRecord } from '../core/run-record';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { localTemporal } from '../test/support/temporal';
import { createWorker } from '../worker/worker';
import { progressQuery, type RunProgress, type RunSummary, type ScenarioInput } from '../workflows/definitions';

export interface FinishedRun {
  summary: RunSummary;
  run: RunRecord;
  cells: CellRecord[];
  /** Host-clock start of each run phase, as the progress query reported it. */
  phaseOrigins: number[];
}

export type RunScenario = (input: ScenarioInput) => Promise<FinishedRun>;

const TASK_QUEUE = 'fragbench-bench';

/** Brings the engine and a `topology` fleet up, hands `work` a way to run scenarios, then brings everything down. */
export async function withEngine<T>(topology: string, work: (runScenario: RunScenario) => Promise<T>): Promise<T> {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fb-bench-results-'));
  process.env.FRAGBENCH_RESULTS_DIR = resultsDir;
  const env = await localTemporal();
  try {
    await fleetUp(topology);
    const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue: TASK_QUEUE });
    return await worker.runUntil(() =>
      work(async (input) => {
        const handle = await env.client.workflow.start('scenarioWorkflow', {
          taskQueue: TASK_QUEUE,
          workflowId: `bench-${Date.now()}`,
          args: [input],
        });
        const phaseOrigins: number[] = [];
        // One query at a time, and the last one settled before the worker stops: a query still
        // being retried after the connection closed threw from the SDK's retry timer and killed the
        // benchmark after its figures were printed (CI, 2026-11-26).
        let inFlight: Promise<void> | undefined;
        const poll = setInterval(() => {
          inFlight ??= handle
            .query(progressQuery)
            .then(
              (p) => {
                const origin = (p as RunProgress).cell?.phaseStartedAt;
                if (origin !== undefined && !phaseOrigins.includes(origin)) phaseOrigins.push(origin);
              },
              () => undefined,
            )
            .finally(() => (inFlight = undefined));
        }, 1000);
        try {
          const summary = (await handle.result()) as RunSummary;
          const store = new ResultsStore(resultsDir);
          const run = await store.readRun(summary.runId);
          return { summary, run, cells: await store.readCells(run), phaseOrigins };
        } finally {
          clearInterval(poll);
          await inFlight;
        }
      }),
    );
  } finally {
    await fleetDown();
    await env.teardown();
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
