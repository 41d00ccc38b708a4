/**
 * The scenario workflows' activities as the workflow tests replace them (Temporal's recommended
 * way to test workflow logic): each records what it was asked and takes the time a real one
 * would, with no fleet and no database. A client runs until its stop time (or until cancelled),
 * sending its seconds to its workflow through the real live-samples reporter; a resize takes
 * `resizeMs`. Which search attributes the server has is asked of the server itself (the real
 * activity). Also a one-cell run plan to feed them.
 */
/* eslint-disable @typescript-eslint/require-await -- activities are async functions by contract; these mocks answer at once */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { liveSamplesReporter } from '../../activities/live-samples';
import type { InjectEventInput, InjectedEvent } from '../../activities/scenario';
import { registeredSearchAttributes } from '../../activities/visibility';
import { StorageError } from '../../core/errors';
import { CANNOT_SEE, CHECK_MODEL, type PhaseCheckInput, type PhaseConsistency } from '../../core/consistency/consistency';
import type { CellRecord, CellSummary, RunRecord } from '../../core/run-record';
import type { RunSeries, Sample } from '../../core/samples';
import { YCSB_DEFAULTS, type CellPlan, type PlannedPhase } from '../../core/scenario';
import type { PreparedRun } from '../../operations/scenario/scenario-loader';
import type { PhaseClientInput, PhaseClientResult } from '../../services/ycsb/phase-client';
import type { Verdict } from '../../core/verdict';

type RunPhase = Extract<PlannedPhase, { kind: 'run' }>;

export function runPhasePlan(over: Partial<RunPhase>): RunPhase {
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

/** A one-cell run of `phases` on three Redis nodes, as prepareRun would return it. */
export function plannedRun(phases: PlannedPhase[], scenario = 's'): PreparedRun {
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
    scenario,
    experiment: 'quickstart',
    startedAt: 0,
    status: 'running',
    settings: { description: `the ${scenario} scenario of a workflow test` },
    nonDefaultSettings: {},
    versions: {},
    inventory: { name: 'fhc-4' },
    cellIds: ['c1'],
  } as unknown as RunRecord;
  return { plan: { scenario, experiment: 'quickstart', timeScale: 1, cells: [cell] }, record };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One second of READ operations ending at `time`, with `ok` of them. */
export function sampleAt(time: number, ok = 10, elapsedS = 1): Sample {
  return { time, elapsedS, ops: { READ: { ok, failed: 0, latencyUs: { avg: 100, p95: 200, p99: 300 } } }, okPerS: ok, failedPerS: 0 };
}

export interface Recorded {
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
export const CHECKED: PhaseConsistency = {
  model: CHECK_MODEL,
  cannotSee: CANNOT_SEE,
  verdict: 'lost acknowledged writes',
  totals: { reads: 5, writes: 4, stale: 0, corrupt: 0, lost: 1, failed: { timeout: 2 }, unjudged: 0 },
  readBack: { keys: 3, failed: 0, registers: 3, unverified: 0 },
  history: { clients: 2, missing: [], records: 11, unparsable: 0 },
  examples: [],
  seconds: [],
};

export const SUMMARY: CellSummary = {
  throughputOpsPerS: 10,
  okOps: 10,
  failedOps: 0,
  errorPercent: 0,
  avgLatencyUs: {},
  zeroSeconds: 0,
  settleSeconds: {},
};

export interface MockOptions {
  resizeMs?: number;
  failFirstClient?: boolean;
  /** acquireFleet refuses, as it does when another run holds the fleet (`busyTimes`: that many times, then takes it). */
  fleetBusy?: boolean;
  busyTimes?: number;
  /** prepareRun fails with bad input (found only against the running fleet). */
  badScenario?: boolean;
  /** The client's store is on a full disk: it throws the StorageError the results store would. */
  diskFull?: boolean;
  /** Each client second's ok count (the load phase returns 4 seconds of `loadOk`). */
  clientOk?: number;
  loadOk?: number;
  /** The verdict every recorded cell's summary carries (none: unjudged). */
  verdict?: Verdict;
}

export function mockActivities(prepared: PreparedRun, options: MockOptions = {}) {
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
    async ycsbLoad(): Promise<RunSeries> {
      const now = Date.now();
      const samples = [4, 3, 2, 1].map((ago, i) => sampleAt(now - ago * 1000, options.loadOk ?? 10, i + 1));
      return { samples, totals: { runtimeMs: 4000, throughputOpsPerS: options.loadOk ?? 10, ops: {} } };
    },
    recordSamples: async () => undefined,
    readClock: async () => Date.now(),
    recordCell: async ({ cell }: { cell: Omit<CellRecord, 'summary'> }): Promise<CellSummary> => {
      recorded.cells.push(cell);
      if (!options.verdict) return SUMMARY;
      return { ...SUMMARY, verdict: { verdict: options.verdict, reasons: [], unchecked: [], measuredPhases: 1 } };
    },
    registeredSearchAttributes,
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
      const live = liveSamplesReporter(input.sink.phaseIndex);
      let nextSecond = Date.now() + 1000;
      let elapsedS = 0;
      try {
        while (input.untilMs === undefined || Date.now() < input.untilMs) {
          ctx.heartbeat();
          if (Date.now() >= nextSecond) {
            live.add(sampleAt(nextSecond, options.clientOk ?? 10, ++elapsedS));
            nextSecond += 1000;
          }
          await Promise.race([sleep(100), ctx.cancelled]);
        }
      } catch (err) {
        entry.cancelled = err instanceof CancelledFailure;
        entry.endedAt = Date.now();
        throw err;
      } finally {
        live.stop();
      }
      entry.endedAt = Date.now();
      return {
        totals: { runtimeMs: 1000, throughputOpsPerS: 10, ops: {} },
        seconds: 1,
        restarts,
        latest: [sampleAt(Date.now(), options.clientOk ?? 10)],
      };
    },
    /** Runs until cancelled, as the real monitor does; cancellation arrives with a heartbeat's answer. */
    checkConsistency(input: PhaseCheckInput): Promise<PhaseConsistency> {
      recorded.checks.push({ input, at: Date.now() });
      return Promise.resolve(CHECKED);
    },
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
