/**
 * The commands that talk to Temporal, run as a user runs them against a real dev server of this
 * file's own (TEMPORAL_ADDRESS): `run` starts the scenario workflow and returns, `abort` and
 * `cancel` reach it (or name a run that is not there), a refused option starts no workflow, and
 * `worker` polls its task queue until Ctrl-C, then exits cleanly. No worker ever serves the
 * queue the runs are started on: nothing here brings a fleet up.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { waitFor } from '../../platform/wait';
import { abortSignal } from '../../workflows/definitions';
import { fragbench, printed, scratchEnv, startFragbench } from '../support/cli';
import { writeSmallScenario } from '../support/small-topology';
import { localTemporal } from '../support/temporal';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-temporal-'));
let temporal: TestWorkflowEnvironment;
/** The CLI's environment: this file's server, and a task queue no worker polls. */
let env: Record<string, string>;
const runQueue = `fb-cli-runs-${randomUUID()}`;

beforeAll(async () => {
  temporal = await localTemporal();
  env = { ...scratchEnv(scratch), TEMPORAL_ADDRESS: temporal.address, FRAGBENCH_TASK_QUEUE: runQueue };
});

afterAll(async () => {
  await temporal?.teardown();
  rmSync(scratch, { recursive: true, force: true });
});

const scenario = () =>
  writeSmallScenario(scratch, 'cli-temporal', {
    experiment: 'Does the CLI start, abort and cancel a run?',
    phases: [{ phase: 'load' }, { phase: 'run', duration: 30 }],
  });

/** The workflow ids on `queue`, once the server's visibility shows at least `atLeast` of them. */
async function workflowsOn(queue: string, atLeast: number): Promise<string[]> {
  return waitFor(
    async () => {
      const ids: string[] = [];
      for await (const wf of temporal.client.workflow.list({ query: `TaskQueue = "${queue}"` })) ids.push(wf.workflowId);
      return ids.length >= atLeast ? ids : undefined;
    },
    { what: `${atLeast} workflow(s) on ${queue}`, timeoutMs: 10_000, intervalMs: 200 },
  );
}

test('run starts one workflow and returns; a refused option before it started none; abort and cancel reach it', async () => {
  const refused = await fragbench(['run', scenario(), '--time-scale', 'nan'], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/option '--time-scale <factor>' argument 'nan' is invalid/);

  const started = await fragbench(['run', scenario()], env);
  expect(started.stderr).toBe('');
  expect(started.code).toBe(0);
  const runId = /^started run (fb-cli-temporal-\S+): /m.exec(started.stdout)?.[1];
  expect(runId).toBeDefined();
  expect(started.stdout).toContain(`fragbench abort ${runId}`);
  // Visibility lists in order of start: the refused command, had it started one, would be listed too.
  expect(await workflowsOn(runQueue, 1)).toEqual([runId]);

  const handle = temporal.client.workflow.getHandle(runId as string);
  try {
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const aborted = await fragbench(['abort', runId as string], env);
    expect([aborted.code, aborted.stdout.trim()]).toEqual([0, `abort sent to ${runId}`]);
    const cancelled = await fragbench(['cancel', runId as string], env);
    expect([cancelled.code, cancelled.stdout.trim()]).toEqual([0, `cancel sent to ${runId}`]);
    const { events } = await handle.fetchHistory();
    expect(events?.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === abortSignal.name)).toBe(true);
    expect(events?.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
  } finally {
    await handle.terminate('test over').catch(() => undefined);
  }
});

test('cancel and abort of a run the server does not have: exit 1, naming the run', async () => {
  const results = await Promise.all(['cancel', 'abort'].map((command) => fragbench([command, 'no-such-run'], env)));
  for (const result of results) {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('fragbench: workflow not found for ID: no-such-run');
  }
});

test('worker: polls its task queue until Ctrl-C, then exits 0', async () => {
  const queue = `fb-cli-worker-${randomUUID()}`;
  const worker = startFragbench(['worker'], { ...env, FRAGBENCH_TASK_QUEUE: queue });
  try {
    await printed(worker, new RegExp(`^fragbench worker: polling ${temporal.address} namespace default, task queue ${queue}$`, 'm'));
    // The server's view: a poller on the queue (an unspecified queue type is the workflow queue).
    await waitFor(
      async () =>
        ((await temporal.client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: queue } })).pollers?.length ?? 0) > 0,
      { what: `a poller on ${queue}`, timeoutMs: 15_000, intervalMs: 250 },
    );
    worker.kill('SIGINT');
    expect(await worker.exited).toBe(0);
  } finally {
    worker.kill('SIGKILL');
  }
});
