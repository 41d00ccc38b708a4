/**
 * The scenario workflows' own logic, with every activity mocked (Temporal's recommended way to
 * test workflow branches), against the real Temporal dev server binary. No fleet, no database:
 * each test takes seconds. What is checked here is what the workflows decide:
 * - one client activity per phase, bounded by the phase's end on the host clock;
 * - a resize still moving when the workload ends is marked so; `waitForResizes` keeps the
 *   workload running until it completes, then stops the client;
 * - a client retried after a failure resumes (its restart event is the client's to store);
 * - abort stops the client at once and keeps what ran; warm-up phases are marked;
 * - a disk that refuses the run's records stops the run at once, with the disk's own message;
 * - the progress query never goes back: its sequence grows, the last event never moves to an
 *   older one, and "next" lists only events that have not fired;
 * - the run holds the fleet first and gives it back last, whatever the outcome (completed,
 *   cancelled, failed, refused), taking down what it brought up unless asked to keep it.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { PhaseClientInput, PhaseClientResult } from '../../services/ycsb/phase-client';
import type { InjectEventInput, InjectedEvent } from '../../activities/scenario';
import type { PreparedRun } from '../../operations/scenario/scenario-loader';
import type { CellRecord, CellSummary, RunRecord } from '../../core/run-record';
import type { CellPlan, PlannedEvent, PlannedPhase } from '../../core/scenario';
import { YCSB_DEFAULTS } from '../../core/scenario';
import { CANNOT_SEE, CHECK_MODEL, type PhaseCheckInput, type PhaseConsistency } from '../../core/consistency/consistency';
import { StorageError } from '../../core/errors';
import type { Sample } from '../../core/samples';
import { temporalBinary } from '../../worker/dev-server';
import { createWorker } from '../../worker/worker';
import { abortSignal, progressQuery, type CellProgress, type RunProgress, type RunSummary } from '../../workflows/definitions';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: await temporalBinary() } } });
});
afterAll(async () => {
  await env?.teardown();
});

type RunPhase = Extract<PlannedPhase, { kind: 'run' }>;

function runPhase(over: Partial<RunPhase>): RunPhase {
  return {
    kind: 'run',
    name: 'run',
    durationS: 4,
    ycsb: { ...YCSB_DEFAULTS },
    warmup: false,
    waitForResizes: false,
    measure: [],
    events: [],
    ...over,
  };
}

function plan(phases: PlannedPhase[]): PreparedRun {
  const cell: CellPlan = {
    cellId: 'c1',
    coordinates: {},
    fleet: { kind: 'local' },
    database: 'redis',
    nodes: ['a', 'b', 'c'],
    client: 'client',
    settings: {},
    phases,
  };
  const record = {
    runId: 'r',
    scenario: 's',
    experiment: 'quickstart',
    startedAt: 0,
    status: 'running',
    settings: {},
    nonDefaultSettings: {},
    versions: {},
    cellIds: ['c1'],
  } as unknown as RunRecord;
  return { plan: { scenario: 's', experiment: 'quickstart', timeScale: 1, cells: [cell] }, record };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sample(time: number): Sample {
  return { time, elapsedS: 1, ops: { READ: { ok: 10, failed: 0, latencyUs: { avg: 100, p95: 200, p99: 300 } } }, okPerS: 10, failedPerS: 0 };
}

interface Recorded {
  cells: Omit<CellRecord, 'summary'>[];
  /** Each consistency check asked for, and when (all the phase's clients must have ended before). */
  checks: { input: PhaseCheckInput; at: number }[];
  monitors: number;
  resets: number[];
  clients: { input: PhaseClientInput; attempt: number; startedAt: number; endedAt?: number; cancelled: boolean }[];
  /** acquire, prepare, release, in the order the workflow called them, with what release was told. */
  steps: string[];
}

/** What a check returns (its seconds stay in the stream the real one writes). */
const CHECKED: PhaseConsistency = {
  model: CHECK_MODEL,
  cannotSee: CANNOT_SEE,
  verdict: 'lost acknowledged writes',
  totals: { reads: 5, writes: 4, stale: 0, corrupt: 0, lost: 1, failed: { timeout: 2 }, unjudged: 0 },
  readBack: { keys: 3, failed: 0, registers: 3, unverified: 0 },
  history: { clients: 2, missing: [], records: 11, unparsable: 0 },
  examples: [],
  seconds: [],
};

const SUMMARY: CellSummary = { throughputOpsPerS: 10, okOps: 10, failedOps: 0, errorPercent: 0, avgLatencyUs: {}, zeroSeconds: 0, settleSeconds: {} };

/**
 * Activities as the workflows see them, doing nothing but record what they were asked and take
 * the time a real one would: a client runs until its stop time (or until cancelled), a resize
 * takes `resizeMs`.
 */
interface MockOptions {
  resizeMs?: number;
  failFirstClient?: boolean;
  /** acquireFleet refuses, as it does when another run holds the fleet (`busyTimes`: that many times, then takes it). */
  fleetBusy?: boolean;
  busyTimes?: number;
  /** prepareRun fails with bad input (found only against the running fleet). */
  badScenario?: boolean;
  /** The client's store is on a full disk: it throws the StorageError the results store would. */
  diskFull?: boolean;
}

function mockActivities(prepared: PreparedRun, options: MockOptions = {}) {
  const recorded: Recorded = { cells: [], checks: [], clients: [], monitors: 0, resets: [], steps: [] };
  const noop = async () => ({ appliedAt: Date.now() });
  const activities = {
    async acquireFleet() {
      recorded.steps.push('acquire');
      const busy =
        options.fleetBusy && (options.busyTimes === undefined || recorded.steps.filter((x) => x === 'acquire').length <= options.busyTimes);
      if (busy) throw ApplicationFailure.nonRetryable('fleet busy: run other on fhc-4 since 2026-11-24T00:00:00.000Z', 'FleetBusy');
      return { topology: 'fhc-4', broughtUp: true };
    },
    async releaseFleet({ tearDown }: { tearDown: boolean }) {
      recorded.steps.push(`release tearDown=${tearDown}`);
    },
    async prepareRun() {
      recorded.steps.push('prepare');
      if (options.badScenario) throw ApplicationFailure.nonRetryable('database.options.x: unknown option', 'InputError');
      return prepared;
    },
    recordRunStart: async () => ({ dir: '/nonexistent' }),
    resetNetwork: async () => {
      recorded.resets.push(Date.now());
      return { appliedAt: Date.now() };
    },
    applyLatencyEpoch: noop,
    applyBandwidthEpoch: noop,
    stopCluster: async () => undefined,
    startCluster: async () => ({ database: 'redis', version: '7', members: [], nonDefaultSettings: {}, formedInMs: 1 }),
    flushDatabase: async () => undefined,
    recordSamples: async () => undefined,
    readClock: async () => Date.now(),
    recordCell: async ({ cell }: { cell: Omit<CellRecord, 'summary'> }) => {
      recorded.cells.push(cell);
      return SUMMARY;
    },
    finishRun: async () => ({ reportPath: '/nonexistent/index.html' }),
    async ycsbRun(input: PhaseClientInput): Promise<PhaseClientResult> {
      const ctx = Context.current();
      const entry = { input, attempt: ctx.info.attempt, startedAt: Date.now(), cancelled: false } as Recorded['clients'][number];
      recorded.clients.push(entry);
      if (options.diskFull) {
        await sleep(200);
        throw new StorageError('/results/r/cells/c1.parts/0.samples.jsonl', 'ENOSPC', '/results');
      }
      if (options.failFirstClient && ctx.info.attempt === 1) {
        await sleep(500);
        throw ApplicationFailure.retryable('the client died', 'ClientDied');
      }
      const restarts =
        ctx.info.attempt > 1
          ? [
              {
                kind: 'client-restart' as const,
                label: `${input.label} client restarted`,
                scheduledOffsetS: 0,
                requestedAt: Date.now(),
                detail: { attempt: ctx.info.attempt },
              },
            ]
          : [];
      try {
        while (input.untilMs === undefined || Date.now() < input.untilMs) {
          ctx.heartbeat();
          await Promise.race([sleep(100), ctx.cancelled]);
        }
      } catch (err) {
        entry.cancelled = err instanceof CancelledFailure;
        entry.endedAt = Date.now();
        throw err;
      }
      entry.endedAt = Date.now();
      return { totals: { runtimeMs: 1000, throughputOpsPerS: 10, ops: {} }, seconds: 1, restarts, latest: [sample(Date.now())] };
    },
    checkConsistency(input: PhaseCheckInput): Promise<PhaseConsistency> {
      recorded.checks.push({ input, at: Date.now() });
      return Promise.resolve(CHECKED);
    },
    /** Runs until cancelled, as the real monitor does; cancellation arrives with a heartbeat's answer. */
    async monitorPhase(): Promise<void> {
      const ctx = Context.current();
      recorded.monitors++;
      for (;;) {
        ctx.heartbeat();
        await Promise.race([sleep(100), ctx.cancelled]);
      }
    },
    async injectEvent({ event }: InjectEventInput): Promise<InjectedEvent> {
      const requestedAt = Date.now();
      const base = { kind: event.action.kind, label: event.label, scheduledOffsetS: event.atS, requestedAt, detail: {} };
      if (event.action.kind === 'resize-remove' || event.action.kind === 'resize-add') {
        await sleep(options.resizeMs ?? 0);
        const resize = { node: event.action.node, requestedAt, acceptedAt: requestedAt + 10, completedAt: Date.now() };
        return { event: { ...base, acceptedAt: resize.acceptedAt, completedAt: resize.completedAt }, resize };
      }
      return { event: { ...base, completedAt: requestedAt } };
    },
  };
  return { activities, recorded };
}

/** The last run's recordings, for a test whose run ends in an error. */
let lastRun: { recorded: Recorded } | undefined;

type Handle = ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>;

async function run(prepared: PreparedRun, options: MockOptions, during?: (handle: Handle) => Promise<void>, input: object = {}) {
  const { activities, recorded } = mockActivities(prepared, options);
  lastRun = { recorded };
  const taskQueue = `wf-test-${randomUUID().slice(0, 8)}`;
  const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, activities });
  const summary = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('scenarioWorkflow', {
      taskQueue,
      workflowId: `wf-${randomUUID().slice(0, 8)}`,
      args: [{ scenario: {}, ...input }],
    });
    await during?.(handle);
    return (await handle.result()) as RunSummary;
  });
  return { summary, recorded };
}

const resizeAt = (atS: number): PlannedEvent => ({
  atS,
  label: 'remove c',
  path: 'phases[0].events[0]',
  action: { kind: 'resize-remove', node: 'c' },
});

test('one client per phase, bounded by the phase; a resize still moving when the workload ended is marked so', async () => {
  const { summary, recorded } = await run(plan([runPhase({ durationS: 3, events: [resizeAt(1)] })]), { resizeMs: 4000 });
  expect(summary.status).toBe('completed');
  expect(recorded.clients).toHaveLength(1);
  expect(recorded.monitors).toBe(1);
  const [client] = recorded.clients;
  expect(client.input.untilMs! - client.input.originMs).toBe(3000);
  expect(client.endedAt! - client.startedAt).toBeLessThan(3500);
  const phase = recorded.cells[0].phases[0];
  expect(phase.resizes).toHaveLength(1);
  expect(phase.resizes[0].stillMovingAtPhaseEndS).toBe(3);
  expect(phase.events[0].detail).toMatchObject({ stillMovingAtPhaseEndS: 3 });
});

test('a checked run phase is checked once every client of it (a ramped one too) has ended, and its record holds what the check found', async () => {
  const rampedStart: PlannedEvent = {
    atS: 1,
    label: 'client c2 starts',
    path: 'phases[1].events[0]',
    action: { kind: 'client-start', client: { name: 'c2', threads: 2 } },
  };
  const checked = runPhase({ durationS: 3, ycsb: { ...YCSB_DEFAULTS, check: true }, events: [rampedStart] });
  const { summary, recorded } = await run(plan([runPhase({ name: 'warm', durationS: 1 }), checked]), {});
  expect(summary.status).toBe('completed');
  // Only the checked phase is checked: the first phase is not.
  expect(recorded.checks).toHaveLength(1);
  const [{ input, at }] = recorded.checks;
  const phases = recorded.cells[0].phases.map((p) => p.name);
  expect(phases).toEqual(['warm', 'run', 'run:c2']);
  const runClients = recorded.clients.filter((c) => c.input.sink.phaseIndex >= 1);
  expect(runClients).toHaveLength(2);
  expect(input).toMatchObject({ runId: runClients[0].input.sink.runId, cellId: 'c1', phaseIndexes: [1, 2], settings: { check: true } });
  expect(input.originMs).toBe(runClients[0].input.originMs);
  expect(runClients.every((c) => c.endedAt !== undefined && c.endedAt <= at)).toBe(true);
  expect(recorded.cells[0].phases[1].consistency).toEqual(CHECKED);
  expect(recorded.cells[0].phases[0].consistency).toBeUndefined();
});

test('waitForResizes keeps the workload running until the resize completed, then stops the client', async () => {
  const { summary, recorded } = await run(plan([runPhase({ durationS: 2, waitForResizes: true, events: [resizeAt(1)] })]), { resizeMs: 3000 });
  expect(summary.status).toBe('completed');
  const [client] = recorded.clients;
  expect(client.cancelled).toBe(true);
  const resize = recorded.cells[0].phases[0].resizes[0];
  expect(client.endedAt!).toBeGreaterThanOrEqual(resize.completedAt);
  expect(client.endedAt! - resize.completedAt).toBeLessThan(2000);
  expect(resize.stillMovingAtPhaseEndS).toBeUndefined();
});

test('waitForResizes with the resize done before the phase ends stops the client at the phase end', async () => {
  const { summary, recorded } = await run(plan([runPhase({ durationS: 3, waitForResizes: true, events: [resizeAt(0.5)] })]), { resizeMs: 500 });
  expect(summary.status).toBe('completed');
  const [client] = recorded.clients;
  expect(client.cancelled).toBe(true);
  expect(client.endedAt! - client.input.originMs).toBeGreaterThanOrEqual(2900);
  expect(client.endedAt! - client.input.originMs).toBeLessThan(5000);
});

test("a client that failed is retried; its restart event is the client's to store, not recorded twice", async () => {
  const { summary, recorded } = await run(plan([runPhase({ durationS: 4 })]), { failFirstClient: true });
  expect(summary.status).toBe('completed');
  expect(recorded.clients.map((c) => c.attempt)).toEqual([1, 2]);
  // The retry got the same stop time: it resumes the phase, it does not start it again.
  expect(recorded.clients[1].input.untilMs).toBe(recorded.clients[0].input.untilMs);
  // The client stored it in the phase's faults stream, which recording the cell joins in.
  expect(recorded.cells[0].phases[0].events).toEqual([]);
});

test("a full disk stops the run: no retry, no further cell, the disk's message as the run's failure, cleanup done", async () => {
  const twoCells = plan([runPhase({ durationS: 30 })]);
  const first = twoCells.plan.cells[0];
  twoCells.plan.cells.push({ ...first, cellId: 'c2' });
  const started = Date.now();
  const outcome = await run(twoCells, { diskFull: true }).catch((err: unknown) => err);
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  const cause = (outcome as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause.type).toBe('StorageError');
  expect(cause.nonRetryable).toBe(true);
  expect(cause.message).toMatch(
    /^the disk holding \/results is full \(ENOSPC\): could not write \/results\/r\/cells\/c1\.parts\/0\.samples\.jsonl\. Nothing stored before this write was lost/,
  );
  expect(Date.now() - started).toBeLessThan(20_000);
  const { recorded } = lastRun!;
  expect(recorded.clients.map((c) => [c.input.sink.cellId, c.attempt])).toEqual([['c1', 1]]);
  // The failed cell is still recorded (what it stored is kept), and the fleet given back.
  expect(recorded.cells.map((c) => c.cellId)).toEqual(['c1']);
  expect(recorded.steps).toEqual(['acquire', 'prepare', 'release tearDown=true']);
});

test('abort stops the client at once and keeps what ran; warm-up phases are marked', async () => {
  const phases = [runPhase({ name: 'warm', durationS: 1, warmup: true }), runPhase({ name: 'run', durationS: 60 })];
  const { summary, recorded } = await run(plan(phases), {}, async (handle) => {
    for (;;) {
      const p = (await handle.query(progressQuery)) as RunProgress;
      if (p.cell?.step === 'run') break;
      await sleep(100);
    }
    await sleep(500);
    await handle.signal(abortSignal);
  });
  expect(summary.status).toBe('aborted');
  expect(recorded.clients).toHaveLength(2);
  const measured = recorded.clients[1];
  expect(measured.cancelled).toBe(true);
  expect(measured.endedAt! - measured.startedAt).toBeLessThan(5000);
  expect(recorded.cells[0].phases.map((p) => [p.name, p.warmup ?? false])).toEqual([
    ['warm', true],
    ['run', false],
  ]);
});

test('cancelling a run mid-phase stops its client and monitor and cleans up within seconds, keeping the cell', async () => {
  let cancelledAt = 0;
  const outcome = await run(plan([runPhase({ durationS: 60 })]), {}, async (handle) => {
    for (;;) {
      const p = (await handle.query(progressQuery)) as RunProgress;
      if (p.cell?.step === 'run') break;
      await sleep(100);
    }
    await sleep(1000);
    cancelledAt = Date.now();
    await handle.cancel();
  }).catch((err: unknown) => err);
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
  const { recorded } = lastRun!;
  expect(recorded.clients[0].cancelled).toBe(true);
  const cleanup = recorded.resets.filter((t) => t >= cancelledAt);
  expect(cleanup.length).toBeGreaterThan(0);
  expect(cleanup[0] - cancelledAt).toBeLessThan(5000);
  expect(recorded.cells).toHaveLength(1);
});

test('progress never goes back: the sequence grows, the last event never gets older, next lists only what has not fired', async () => {
  const events: PlannedEvent[] = [
    resizeAt(0.5),
    { atS: 1, label: 'cut x', path: 'e1', action: { kind: 'link-cut', link: 'x' } },
    { atS: 1.5, label: 'restore x', path: 'e2', action: { kind: 'link-restore', link: 'x' } },
    { atS: 2, label: 'LSF 0.4', path: 'e3', action: { kind: 'latency-epoch', scale: 0.4 } },
  ];
  const seen: CellProgress[] = [];
  await run(plan([runPhase({ durationS: 4, events })]), { resizeMs: 2500 }, async (handle) => {
    for (;;) {
      const p = (await handle.query(progressQuery)) as RunProgress;
      if (p.cell) seen.push(p.cell);
      if (p.status === 'finished' || p.status === 'cleaning up') break;
      await sleep(50);
    }
  });
  expect(seen.length).toBeGreaterThan(20);
  for (let i = 1; i < seen.length; i++) {
    expect(seen[i].seq).toBeGreaterThanOrEqual(seen[i - 1].seq);
    expect(seen[i].lastEvent?.requestedAt ?? 0).toBeGreaterThanOrEqual(seen[i - 1].lastEvent?.requestedAt ?? 0);
  }
  // The resize finished after the cut, restore and epoch: the last event shown stayed the epoch.
  expect(seen.at(-1)!.lastEvent?.label).toBe('LSF 0.4');
  // "next" never shows an event that already ran or is running.
  for (const p of seen) {
    if (p.nextEvent && p.running) expect(p.running).not.toContain(p.nextEvent.label);
  }
  const nexts = seen.map((p) => p.nextEvent?.atS).filter((x): x is number => x !== undefined);
  expect([...nexts].sort((a, b) => a - b)).toEqual(nexts);
});

describe('the run holds the fleet for its whole length', () => {
  const phases = () => plan([runPhase({ durationS: 1 })]);

  test('acquired before anything else, given back (and taken down) after the report', async () => {
    const { summary, recorded } = await run(phases(), {});
    expect(summary.status).toBe('completed');
    expect(recorded.steps).toEqual(['acquire', 'prepare', 'release tearDown=true']);
  });

  test('keepFleet leaves the fleet up', async () => {
    const { recorded } = await run(phases(), {}, undefined, { keepFleet: true });
    expect(recorded.steps).toEqual(['acquire', 'prepare', 'release tearDown=false']);
  });

  test('a cancelled run gives the fleet back after its cleanup', async () => {
    await run(plan([runPhase({ durationS: 60 })]), {}, async (handle) => {
      while (((await handle.query(progressQuery)) as RunProgress).cell?.step !== 'run') await sleep(100);
      await handle.cancel();
    }).catch(() => undefined);
    const { recorded } = lastRun!;
    expect(recorded.steps).toEqual(['acquire', 'prepare', 'release tearDown=true']);
    expect(recorded.resets.length).toBeGreaterThan(0);
  });

  test('a scenario that fails validation on the fleet gives it back, and fails without retrying', async () => {
    const outcome = await run(phases(), { badScenario: true }).catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    expect(lastRun!.recorded.steps).toEqual(['acquire', 'prepare', 'release tearDown=true']);
  });

  test('a run refused because the fleet is busy fails at once with the holder named, and starts nothing', async () => {
    const started = Date.now();
    const outcome = await run(phases(), { fleetBusy: true }).catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    const cause = (outcome as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.message).toMatch(/fleet busy: run other on fhc-4 since/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Release is still asked, and does nothing for a lease the run does not hold (operations/fleet/fleet-lease.ts).
    expect(lastRun!.recorded.steps).toEqual(['acquire', 'release tearDown=true']);
    expect(lastRun!.recorded.clients).toHaveLength(0);
  });

  test('waitForFleet: a busy fleet is waited for (progress says who holds it), then the run goes on', async () => {
    const seen: RunProgress[] = [];
    const { summary, recorded } = await run(
      phases(),
      { fleetBusy: true, busyTimes: 1 },
      async (handle) => {
        while (seen.length === 0 || seen.at(-1)!.status === 'bringing the fleet up') {
          seen.push((await handle.query(progressQuery)) as RunProgress);
          await sleep(200);
        }
      },
      { waitForFleet: true },
    );
    expect(summary.status).toBe('completed');
    expect(recorded.steps).toEqual(['acquire', 'acquire', 'prepare', 'release tearDown=true']);
    expect(seen.some((p) => p.status === 'waiting for the fleet' && /fleet busy: run other/.test(p.waitingFor ?? ''))).toBe(true);
  });
});
