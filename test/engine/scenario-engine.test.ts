/**
 * The scenario engine against a real Temporal dev server (the real `temporal` binary), the real
 * worker with every real activity, and a real local fleet (fhc-4) running Redis Cluster:
 * - a malformed scenario fails at once naming the field, and nothing starts;
 * - a run started with one JSON payload, exactly as the UI's Start Workflow form sends it, runs
 *   end to end (link cut and restore, a latency epoch, a ramped client, a node killed and revived,
 *   a database server crashed unasked and healed), answers `progress` mid-run, records samples
 *   and events on one clock, and leaves the fleet clean;
 * - a cancelled run restores every link within 10 s;
 * - a worker process killed by SIGKILL mid-phase leaves no YCSB client behind, and with a new
 *   worker the run completes: the client resumes where its stored seconds end, losing at most
 *   5 s of samples, and the restart is recorded as an event.
 * Workflows are bundled once for the whole file (worker/worker.ts keeps the bundle).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { localTemporal } from '../support/temporal';
import type { Worker } from '@temporalio/worker';
import { runHost } from '../../platform/command';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { fleetStatus } from '../../infra/local/status';
import { createWorker } from '../../worker/worker';
import { liveSample } from '../../cli/run-follow';
import { progressQuery, type RunProgress, type RunSummary, type ScenarioInput } from '../../workflows/definitions';
import { startAsTheUiDoes as startUi } from '../support/ui-start';

jest.setTimeout(240_000);

const TASK_QUEUE = 'fragbench-engine-test';
const DATA_NODES = ['sydney', 'pune', 'singapore'];
const resultsDir = mkdtempSync(path.join(tmpdir(), 'fb-engine-results-'));

let env: TestWorkflowEnvironment;
let worker: Worker;
let workerDone: Promise<void>;
/** Worker processes a test started; stopped in afterAll too, should the test time out. */
const workerProcesses: ChildProcess[] = [];

beforeAll(async () => {
  process.env.FRAGBENCH_RESULTS_DIR = resultsDir;
  env = await localTemporal();
  await fleetUp('fhc-4');
  worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue: TASK_QUEUE });
  workerDone = worker.run();
});

afterAll(async () => {
  for (const w of workerProcesses) w.kill('SIGKILL');
  await Promise.all(workerProcesses.map(exited));
  worker?.shutdown();
  await workerDone;
  await fleetDown();
  await env?.teardown();
  rmSync(resultsDir, { recursive: true, force: true });
});

function scenario(runPhase: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'engine-test',
    experiment: 'quickstart',
    fleet: { local: 'fhc-4' },
    database: { name: 'redis', nodes: DATA_NODES },
    ycsb: { workload: 'a', recordCount: 500, threads: 4, fieldCount: 10, fieldLength: 8, timeoutMs: 2000, retries: 1 },
    matrix: { latencyScale: [0.2] },
    phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', ...runPhase }],
  };
}

/** Starts the workflow the way the Temporal UI's form does: one `json/plain` payload. */
function startAsTheUiDoes(input: ScenarioInput, taskQueue = TASK_QUEUE): Promise<WorkflowHandle> {
  return startUi(env, input, taskQueue, 'engine-test');
}

async function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A check that throws (a file not written yet) counts as not yet, whether it is async or not.
    const value = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function cutLinks(): Promise<string[]> {
  return (await fleetStatus()).links.filter((l) => l.cut).map((l) => l.id);
}

/** PIDs of the processes named `comm…` running in the given nodes' namespaces. */
async function processesIn(nodes: string[], comm: string): Promise<number[]> {
  const pids: number[] = [];
  for (const node of nodes) {
    const { stdout } = await runHost(['ip', 'netns', 'pids', `fb-${node}`]);
    for (const pid of stdout.split('\n').filter(Boolean)) {
      const name = existsSync(`/proc/${pid}/comm`) ? readFileSync(`/proc/${pid}/comm`, 'utf8').trim() : '';
      if (name.startsWith(comm)) pids.push(Number(pid));
    }
  }
  return pids;
}

/** Redis servers still running in the fleet's data namespaces. */
const redisServers = () => processesIn(DATA_NODES, 'redis-server');

/** YCSB clients (JVMs) running anywhere in the fleet. */
async function ycsbClients(): Promise<number[]> {
  return processesIn(
    (await fleetStatus()).nodes.map((n) => n.name),
    'java',
  );
}

/** `fragbench worker` as its own process, polling `taskQueue` of the test's server. */
async function startWorkerProcess(taskQueue: string, log: string): Promise<ChildProcess> {
  const out = openSync(log, 'a');
  const child = spawn(process.execPath, [path.join(__dirname, '../../bin/fragbench.js'), 'worker'], {
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default', FRAGBENCH_TASK_QUEUE: taskQueue },
    stdio: ['ignore', out, out],
  });
  workerProcesses.push(child);
  const polling = waitFor('the worker process to poll', 60_000, () => (readFileSync(log, 'utf8').includes('worker: polling') ? true : undefined));
  const died = exited(child).then(() => {
    throw new Error(`the worker process exited: ${readFileSync(log, 'utf8').slice(-800)}`);
  });
  await Promise.race([polling, died]);
  died.catch(() => undefined);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** How many `name` activities a workflow has scheduled so far. */
async function scheduledActivities(handle: WorkflowHandle, name: string): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name).length;
}

function readJson<T>(...parts: string[]): T {
  return JSON.parse(readFileSync(path.join(resultsDir, ...parts), 'utf8')) as T;
}

test('a malformed scenario fails at once naming the field, and nothing starts', async () => {
  const bad = scenario({ duration: 30, events: [{ at: 5, cut: 'sydney-pune/2' }] });
  const handle = await startAsTheUiDoes({ scenario: bad });
  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  // The refusal itself, not "activity task failed" around it.
  const input = (failure as WorkflowFailedError).cause as ApplicationFailure;
  expect(input).toBeInstanceOf(ApplicationFailure);
  expect(input.type).toBe('InputError');
  expect(input.message).toMatch(
    /^phases\[2\]\.events\[0\]\.cut: unknown link "sydney-pune\/2"; between sydney and pune fleet fhc-4 has: sydney-pune\/0/,
  );

  const history = await handle.fetchHistory();
  const scheduled = (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  // Validated before the fleet is touched; giving back a lease it never took does nothing.
  expect(scheduled).toEqual(['registeredSearchAttributes', 'acquireFleet', 'releaseFleet']);
  const attempts = (history.events ?? [])
    .filter((e) => e.activityTaskStartedEventAttributes)
    .map((e) => e.activityTaskStartedEventAttributes!.attempt);
  expect(attempts).toEqual([1, 1, 1]);
  expect(existsSync(path.join(resultsDir, handle.workflowId))).toBe(false);
  expect(await cutLinks()).toEqual([]);
});

/** PIDs of redis-server processes in a node's namespace (its network daemons run there too). */
async function redisPidsOn(node: string): Promise<string[]> {
  const { stdout } = await runHost(['ip', 'netns', 'pids', `fb-${node}`]);
  return stdout.split('\n').filter((pid) => pid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('redis-server'));
}

// One run for the engine's whole event path (it saves a fleet's worth of CI time): a killed node
// stays down until revived, one that crashes unasked is recorded and restarted, links, latency and
// a ramped client change on time.
test('a run started with one JSON object runs end to end, answers progress mid-run, keeps a killed node down until revived, heals a crash and leaves the fleet clean', async () => {
  const events = [
    { at: 2, measureRtt: { count: 2 } },
    { at: 3, kill: 'pune' },
    { at: 8, cut: 'sydney-pune/0' },
    { at: 9, revive: 'pune' },
    { at: 16, restore: 'sydney-pune/0' },
    { at: 20, latency: 0.4 },
    { at: 24, clientStart: { name: 'extra', threads: 2 } },
    { at: 34, clientStop: 'extra' },
  ];
  const handle = await startAsTheUiDoes({ scenario: scenario({ duration: 40, events }) });

  // Mid-run: the progress query names the cell and step, and the client heartbeats its latest second.
  const mid = await waitFor('the run phase', 150_000, async () => {
    const p = (await handle.query(progressQuery)) as RunProgress;
    return p.cell?.step === 'run' ? p : undefined;
  });
  expect(mid).toMatchObject({ status: 'running', cellIndex: 1, cellCount: 1, cell: { cellId: 'c1-lsf0.2' } });
  const origin = mid.cell!.phaseStartedAt!;
  const live = await waitFor('a live sample', 30_000, async () => {
    const sample = await liveSample(env.client, mid.cellWorkflowId!);
    return sample && sample.okPerS > 0 ? sample : undefined;
  });
  expect(live.time).toBeGreaterThan(origin);
  // Between the kill and the revive the killed member stays down: supervision leaves a declared death alone.
  await waitFor('the kill', 20_000, () => (Date.now() > origin + 6_000 ? true : undefined));
  expect(await redisPidsOn('pune')).toEqual([]);
  // An unasked crash, once the revive is done.
  await waitFor('the revive', 20_000, () => (Date.now() > origin + 13_000 ? true : undefined));
  const crashedAt = Date.now();
  for (const pid of await redisPidsOn('sydney')) await runHost(['kill', '-KILL', pid]);

  const summary = (await handle.result()) as RunSummary;
  expect(summary).toMatchObject({ runId: handle.workflowId, status: 'completed', cells: [{ cellId: 'c1-lsf0.2', status: 'completed' }] });
  expect(summary.cells[0].summary!.okOps).toBeGreaterThan(0);
  expect(existsSync(summary.reportPath!)).toBe(true);

  const run = readJson<RunRecord>(handle.workflowId, 'run.json');
  expect(run).toMatchObject({ status: 'completed', scenario: 'engine-test', cellIds: ['c1-lsf0.2'] });
  const cell = readJson<CellRecord>(handle.workflowId, 'cells', 'c1-lsf0.2.json');
  expect(cell.phases.map((p) => p.name)).toEqual(['flush', 'load', 'run', 'run:extra']);
  const [, , main, extra] = cell.phases;
  // One client for the whole phase: one activity, its samples on the phase's axis, increasing.
  expect(await scheduledActivities(env.client.workflow.getHandle(`${handle.workflowId}.c1-lsf0.2`), 'ycsbRun')).toBe(2);
  const seconds = main.samples.map((s) => s.elapsedS);
  expect(seconds.length).toBeGreaterThanOrEqual(25);
  expect([...seconds].sort((a, b) => a - b)).toEqual(seconds);
  expect(Math.max(...seconds)).toBeLessThanOrEqual(42);
  // The ramped client ran only between its start and its stop (plus the seconds YCSB takes to start).
  expect(extra.samples.length).toBeGreaterThan(3);
  expect(extra.samples.filter((s) => s.elapsedS <= 24 || s.elapsedS > 34 + 5)).toEqual([]);
  const stop = main.events.find((e) => e.kind === 'client-stop')!;
  expect(stop.completedAt).toBe(extra.samples.at(-1)!.time);
  // Every event fired, within 1 s of its offset, stamped on the samples' clock.
  expect(main.events.map((e) => e.kind).sort()).toEqual([
    'client-start',
    'client-stop',
    'latency-epoch',
    'link-cut',
    'link-restore',
    'measure-rtt',
    'node-fault',
    'node-kill',
    'node-revive',
  ]);
  const fault = main.events.find((e) => e.kind === 'node-fault')!;
  expect(fault).toMatchObject({ label: 'redis on sydney died', detail: { node: 'sydney', database: 'redis' } });
  // Found within 2 s of the crash (the monitor looks once a second), and back serving.
  expect(fault.requestedAt - crashedAt).toBeLessThan(2_500);
  expect(fault.detail.restartSeconds).toEqual(expect.any(Number));
  const lateness = main.events.map((e) => [e.label, e.requestedAt - (origin + e.scheduledOffsetS * 1000)] as const);
  expect(lateness.filter(([, late]) => !(late >= 0 && late < 1000))).toEqual([]);
  expect(main.rtt).toHaveLength(1);

  expect(await cutLinks()).toEqual([]);
  expect(await redisServers()).toEqual([]);
});

test('cancelling a run restores every link within 10 s and stops the cluster', async () => {
  const handle = await startAsTheUiDoes({
    scenario: scenario({
      duration: 300,
      events: [
        { at: 3, cut: 'sydney-pune/0' },
        { at: 4, cut: 'pune-seoul/0' },
      ],
    }),
  });
  await waitFor('both links cut', 150_000, async () => {
    const cut = await cutLinks();
    return cut.length === 2 ? cut : undefined;
  });
  const cancelledAt = Date.now();
  await handle.cancel();
  await waitFor('links restored', 10_000, async () => ((await cutLinks()).length === 0 ? true : undefined));
  expect(Date.now() - cancelledAt).toBeLessThanOrEqual(10_000);

  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  expect(readJson<RunRecord>(handle.workflowId, 'run.json').status).toBe('cancelled');
  expect(readdirSync(path.join(resultsDir, handle.workflowId, 'cells'))).toEqual(['c1-lsf0.2.json']);
  expect(await redisServers()).toEqual([]);
});

test('a worker killed by SIGKILL mid-phase: no client left behind, and a new worker completes the run, losing at most 5 s of samples', async () => {
  const queue = 'fragbench-crash-test';
  const log = path.join(resultsDir, 'crash-test-workers.log');
  const workers: ChildProcess[] = [];
  try {
    workers.push(await startWorkerProcess(queue, log));
    const handle = await startAsTheUiDoes({ scenario: scenario({ duration: 38, events: [{ at: 3, cut: 'sydney-pune/0' }] }) }, queue);
    // The cell's child workflow runs the client. Kill the worker once the client has stored seconds for a while.
    const cellRun = env.client.workflow.getHandle(`${handle.workflowId}.c1-lsf0.2`);
    await waitFor("the run phase's client", 180_000, async () => ((await scheduledActivities(cellRun, 'ycsbRun')) >= 1 ? true : undefined));
    const clients = await waitFor('its YCSB client', 20_000, async () => {
      const pids = await ycsbClients();
      return pids.length > 0 ? pids : undefined;
    });
    await waitFor('live samples', 60_000, async () => (((await liveSample(env.client, cellRun.workflowId))?.okPerS ?? 0) > 0 ? true : undefined));
    // Some stored seconds before the kill; the heartbeat timeout (10 s) and a new client still fit in the phase after it.
    await new Promise((r) => setTimeout(r, 8_000));

    const killedAt = Date.now();
    workers[0].kill('SIGKILL');
    await exited(workers[0]);
    // The client notices its caller is gone (its stdin closes) and exits by itself.
    await waitFor('the orphaned client to exit', 10_000, async () => ((await ycsbClients()).some((pid) => clients.includes(pid)) ? undefined : true));
    expect(await cutLinks()).toEqual(['sydney-pune/0']);

    workers.push(await startWorkerProcess(queue, log));
    const summary = (await handle.result()) as RunSummary;
    expect(summary).toMatchObject({ status: 'completed', cells: [{ status: 'completed' }] });

    // Exactly the activities that ran with the worker ran twice: the client and the phase's monitor.
    const history = await cellRun.fetchHistory();
    const names = new Map<string, string>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) names.set(String(e.eventId), scheduled.activityType!.name!);
    }
    const retried = (history.events ?? [])
      .map((e) => e.activityTaskStartedEventAttributes)
      .filter((started) => started && started.attempt! > 1)
      .map((started) => [names.get(String(started!.scheduledEventId)), started!.attempt]);
    expect(retried.map(String).sort()).toEqual(['monitorPhase,2', 'ycsbRun,2']);

    // The samples: one per second, increasing, none past the phase; the seconds before the kill
    // are all there but the last few; the restart is an event saying how long no client ran.
    const cell = readJson<CellRecord>(handle.workflowId, 'cells', `${summary.cells[0].cellId}.json`);
    const run = cell.phases.find((p) => p.name === 'run')!;
    const seconds = run.samples.map((s) => s.elapsedS);
    expect(new Set(seconds).size).toBe(seconds.length);
    expect([...seconds].sort((a, b) => a - b)).toEqual(seconds);
    expect(Math.max(...seconds)).toBeLessThanOrEqual(40);
    const lastBeforeKill = run.samples.filter((s) => s.time <= killedAt).at(-1)!;
    expect(killedAt - lastBeforeKill.time).toBeLessThanOrEqual(5_000);
    const restart = run.events.find((e) => e.kind === 'client-restart')!;
    expect(restart.detail).toMatchObject({ attempt: 2, lastStoredElapsedS: lastBeforeKill.elapsedS });
    expect(run.samples.filter((s) => s.time > restart.requestedAt).length).toBeGreaterThan(0);

    expect(await cutLinks()).toEqual([]);
    expect(await redisServers()).toEqual([]);
    expect(await ycsbClients()).toEqual([]);
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map(exited));
  }
});
