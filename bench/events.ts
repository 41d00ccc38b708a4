/**
 * How punctually scenario events fire. Rehearses a timeline of `--minutes` (default 30) with a
 * latency epoch and a link cut or restore every simulated minute, shrunk by `--time-scale`
 * (default 0.1), on the local fleet fhc-4 with Redis Cluster and YCSB running throughout, and
 * prints the distribution of (requested time - scheduled time) over every event. Target: < 1 s.
 *
 *   npx tsx bench/events.ts [--minutes 30] [--time-scale 0.1]
 *
 * Needs root and no other local fleet up; uses a throw-away Temporal dev server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { CellRecord } from '../core/run-record';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { temporalBinary } from '../worker/dev-server';
import { createWorker } from '../worker/worker';
import { progressQuery, type RunProgress, type RunSummary } from '../workflows/definitions';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function timeline(minutes: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let m = 1; m < minutes; m++) {
    events.push({ at: m * 60, latency: [0.2, 0.4, 0.6, 0.8, 1.0][m % 5] });
    events.push({ at: m * 60 + 30, [m % 2 ? 'cut' : 'restore']: 'sydney-pune/0' });
  }
  return events;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const minutes = option('minutes', 30);
  const timeScale = option('time-scale', 0.1);
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fb-bench-events-'));
  process.env.FRAGBENCH_RESULTS_DIR = resultsDir;
  const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: await temporalBinary() } } });
  await fleetUp('fhc-4');
  const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue: 'fragbench-bench' });
  try {
    await worker.runUntil(async () => {
      const scenario = {
        name: 'bench-events',
        experiment: 'timed-events',
        fleet: { local: 'fhc-4' },
        database: { name: 'redis', nodes: ['sydney', 'pune', 'singapore'] },
        ycsb: { workload: 'a', recordCount: 1000, threads: 4, fieldCount: 10, fieldLength: 8, timeoutMs: 2000, retries: 1 },
        matrix: { latencyScale: [0.2] },
        phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', duration: minutes * 60, events: timeline(minutes) }],
      };
      const handle = await env.client.workflow.start('scenarioWorkflow', {
        taskQueue: 'fragbench-bench',
        workflowId: `bench-events-${Date.now()}`,
        args: [{ scenario, options: { timeScale } }],
      });
      let origin: number | undefined;
      const poll = setInterval(() => {
        handle.query(progressQuery).then((p) => (origin ??= (p as RunProgress).cell?.phaseStartedAt), () => undefined);
      }, 1000);
      const summary = (await handle.result()) as RunSummary;
      clearInterval(poll);
      if (origin === undefined) throw new Error('never saw the run phase start');
      const cell = JSON.parse(readFileSync(path.join(resultsDir, summary.runId, 'cells', `${summary.cells[0].cellId}.json`), 'utf8')) as CellRecord;
      const run = cell.phases.find((p) => p.name === 'run')!;
      const late = run.events.map((e) => e.requestedAt - (origin! + e.scheduledOffsetS * 1000)).sort((a, b) => a - b);
      console.log(`events: ${late.length} over a ${minutes}-minute timeline at time scale ${timeScale} (${((minutes * 60 * timeScale) / 60).toFixed(1)} min real)`);
      console.log(
        `firing error ms: min ${late[0]} median ${percentile(late, 50)} p95 ${percentile(late, 95)} max ${late[late.length - 1]}; ` +
          `within 1 s: ${late.filter((l) => Math.abs(l) < 1000).length}/${late.length}`,
      );
    });
  } finally {
    await fleetDown();
    await env.teardown();
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
