/**
 * A scenario run: hold the host's fleet (validating the scenario first and bringing its topology
 * up when it is not), validate it against the fleet (nothing starts if that fails), then one child
 * workflow per matrix cell, in order; finally mark the run finished, render its report and give
 * the fleet back (taking down what the run brought up, unless kept). A cancelled or failed run
 * still cleans up; an aborted one stops after the running load window and keeps what ran.
 * Returns a small summary: the per-second samples live in the results store.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  sleep,
  setHandler,
  startChild,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ChildWorkflowHandle,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { runLabels, runVerdictLabel, type RunEnd } from '../core/run-labels';
import type { CellSummary } from '../core/run-record';
import type { CellPlan, RunPlan } from '../core/scenario';
import { cluster, fleetLease, network, results, scenario, visibility } from './activities';
import { cellWorkflow } from './cell';
import {
  abortSignal,
  cellProgressSignal,
  progressQuery,
  runIdFor,
  SEARCH_ATTRIBUTES,
  type CellResult,
  type RunProgress,
  type RunSummary,
  type ScenarioInput,
} from './definitions';

function errorMessage(err: unknown): string {
  const messages: string[] = [];
  for (let e = err as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.message && !messages.includes(e.message)) messages.push(e.message);
  }
  return messages.join(': ') || String(err);
}

/** After a cancel the cells may not have finished their own cleanup: do it for every fleet and database once more. */
async function cleanUpAfter(plan: RunPlan): Promise<void> {
  const seen = new Set<string>();
  for (const cell of plan.cells) {
    const fleetKey = JSON.stringify(cell.fleet);
    if (!seen.has(fleetKey)) await network.resetNetwork({ fleet: cell.fleet });
    seen.add(fleetKey);
  }
  for (const cell of plan.cells) {
    const key = JSON.stringify([cell.fleet, cell.database]);
    if (!seen.has(key)) await cluster.stopCluster({ fleet: cell.fleet, database: cell.database });
    seen.add(key);
  }
}

/** A run refused (fleet busy, bad input) fails with the refusal itself, not "activity task failed" around it. */
function refusalOf(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && (cause.type === 'FleetBusy' || cause.type === 'InputError')) {
    return ApplicationFailure.create({
      type: cause.type,
      message: cause.message,
      nonRetryable: true,
      details: cause.details as unknown[] | undefined,
    });
  }
  return err;
}

/** The StorageError (a disk that refused the run's records) behind a failure, if that is what it was. */
function storageFailureOf(err: unknown): ApplicationFailure | undefined {
  for (let e = err as { cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e instanceof ApplicationFailure && e.type === 'StorageError') return e;
  }
  return undefined;
}

/** The run's failure when the disk stopped it: the disk's own words (which file, what to do), not "activity failed". */
function storageStop(failure: ApplicationFailure, summary?: RunSummary): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'StorageError',
    message: failure.message,
    nonRetryable: true,
    details: summary ? [summary] : (failure.details as unknown[] | undefined),
  });
}

/**
 * Every update a cell passes on is a signal in the run's history, which Temporal caps (51,200
 * events; it warns from 10,240). Updates that bring only new live seconds stop being passed on
 * once the run's history reaches this; the cell's own progress query still has them.
 */
const LIVE_SAMPLES_HISTORY_BUDGET = 20_000;
/** A signal and the workflow task it wakes (scheduled, started, completed). */
const EVENTS_PER_UPDATE = 4;

/** How many live-seconds updates the next cell may pass on: what is left of the budget. */
function liveSampleForwards(): number {
  return Math.max(0, Math.floor((LIVE_SAMPLES_HISTORY_BUDGET - workflowInfo().historyLength) / EVENTS_PER_UPDATE));
}

/** How often a run that waits for the fleet asks again. */
export const FLEET_WAIT_INTERVAL = '5 seconds';

/**
 * Takes the host's fleet; a run started with `waitForFleet` that finds it busy waits (a durable
 * timer, visible in its history and its progress) and asks again, instead of failing.
 */
async function holdFleet(input: ScenarioInput, live: LiveRun): Promise<void> {
  for (;;) {
    live.progress.status = 'bringing the fleet up';
    try {
      await fleetLease.acquireFleet({
        runId: live.runId,
        scenario: input.scenario,
        scenarioFile: input.scenarioFile,
        mode: input.fleet,
        options: input.options,
      });
      live.progress.waitingFor = undefined;
      return;
    } catch (err) {
      const refusal = refusalOf(err);
      if (!(input.waitForFleet && refusal instanceof ApplicationFailure && refusal.type === 'FleetBusy')) throw refusal;
      Object.assign(live.progress, { status: 'waiting for the fleet', waitingFor: refusal.message });
      await sleep(FLEET_WAIT_INTERVAL);
    }
  }
}

/** What the run's handlers (queries, signals) and its body share. */
interface LiveRun {
  runId: string;
  progress: RunProgress;
  current?: ChildWorkflowHandle<typeof cellWorkflow>;
  currentCellId?: string;
  /** Sets those of the run's search attributes the namespace has (the others would fail the workflow task). */
  label(pairs: SearchAttributeUpdatePair[]): void;
}

/** The search attributes of SEARCH_ATTRIBUTES the namespace has; none when it cannot say. */
async function registeredLabels(): Promise<(pairs: SearchAttributeUpdatePair[]) => void> {
  const registered = await visibility.registeredSearchAttributes(Object.values(SEARCH_ATTRIBUTES)).catch(() => [] as string[]);
  return (pairs) => {
    const known = pairs.filter((p) => registered.includes(p.key.name));
    if (known.length > 0) upsertSearchAttributes(known);
  };
}

/** How a run that threw ended: cancelled, or failed (with or without the summary its failure carries). */
const endOf = (err: unknown): RunEnd => (isCancellation(err) ? 'cancelled' : 'failed');

export async function scenarioWorkflow(input: ScenarioInput): Promise<RunSummary> {
  const runId = runIdFor(workflowInfo().workflowId);
  const live: LiveRun = { runId, progress: { runId, status: 'bringing the fleet up', cellsDone: [], aborted: false }, label: () => undefined };
  setHandler(progressQuery, () => live.progress);
  setHandler(cellProgressSignal, (cell) => {
    // A late update from a finished cell must not overwrite the running one's, nor an older
    // update of the running cell a newer one (signals may arrive out of order).
    if (cell.cellId === live.currentCellId && cell.seq > (live.progress.cell?.seq ?? -1)) live.progress.cell = cell;
  });
  setHandler(abortSignal, () => {
    live.progress.aborted = true;
    live.current?.signal(abortSignal).catch(() => undefined);
  });

  live.label = await registeredLabels();
  let end: RunEnd = 'failed';
  try {
    await holdFleet(input, live);
    const summary = await runOnFleet(input, live);
    end = summary.status;
    return summary;
  } catch (err) {
    end = endOf(err);
    throw err;
  } finally {
    live.label([
      {
        key: SEARCH_ATTRIBUTES.verdict,
        value: runVerdictLabel(
          end,
          live.progress.cellsDone.map((c) => c.summary?.verdict),
        ),
      },
    ]);
    // Also after a cancel that came while the fleet was coming up: the lease says what this run brought up.
    await CancellationScope.nonCancellable(() => fleetLease.releaseFleet({ runId, tearDown: !input.keepFleet }));
  }
}

/** The run proper, on a fleet the run holds. */
async function runOnFleet(input: ScenarioInput, live: LiveRun): Promise<RunSummary> {
  const { runId, progress } = live;
  progress.status = 'preparing';
  const { plan, record } = await scenario.prepareRun({ runId, scenario: input.scenario, scenarioFile: input.scenarioFile, options: input.options });
  const labels = runLabels(plan, record);
  live.label([
    { key: SEARCH_ATTRIBUTES.scenario, value: labels.scenario },
    { key: SEARCH_ATTRIBUTES.database, value: labels.databases },
    { key: SEARCH_ATTRIBUTES.topology, value: labels.topologies },
  ]);
  if (labels.description) upsertMemo({ description: labels.description });
  await results.recordRunStart({ record: { ...record, workflowId: workflowInfo().workflowId } });
  Object.assign(progress, { scenario: plan.scenario, status: 'running', cellCount: plan.cells.length });

  const summaries = new Map<string, CellSummary>();
  // A disk that refused a write refuses the next cells' too: the run stops there.
  let diskFailure: ApplicationFailure | undefined;
  const runCell = async (cell: CellPlan): Promise<CellResult> => {
    const reference = cell.referenceCellId && cell.referenceCellId !== cell.cellId ? summaries.get(cell.referenceCellId) : undefined;
    try {
      live.current = await startChild(cellWorkflow, {
        workflowId: `${runId}.${cell.cellId}`,
        args: [{ runId, cell, reference, liveSampleForwards: liveSampleForwards() }],
        staticSummary: `cell ${cell.cellId}`,
      });
      if (progress.aborted) await live.current.signal(abortSignal);
      return await live.current.result();
    } catch (err) {
      if (isCancellation(err)) throw err;
      diskFailure ??= storageFailureOf(err);
      return { cellId: cell.cellId, coordinates: cell.coordinates, status: 'failed', error: errorMessage(err) };
    } finally {
      live.current = undefined;
    }
  };

  let cancelled: unknown;
  try {
    for (const [i, cell] of plan.cells.entries()) {
      if (progress.aborted) break;
      live.currentCellId = cell.cellId;
      Object.assign(progress, { cellIndex: i + 1, cellWorkflowId: `${runId}.${cell.cellId}`, cell: undefined });
      const result = await runCell(cell);
      progress.cellsDone.push(result);
      if (result.summary) summaries.set(cell.cellId, result.summary);
      if (diskFailure) break;
    }
  } catch (err) {
    cancelled = err;
  }

  const cells = progress.cellsDone;
  const failed = cells.filter((c) => c.status === 'failed');
  const status: RunSummary['status'] = failed.length > 0 ? 'failed' : progress.aborted ? 'aborted' : 'completed';
  progress.status = 'cleaning up';
  let reportPath: string;
  try {
    ({ reportPath } = await CancellationScope.nonCancellable(async () => {
      if (cancelled !== undefined) await cleanUpAfter(plan);
      const finish = cancelled !== undefined || status === 'aborted' ? 'cancelled' : status;
      return results.finishRun({ runId, status: finish, finishedAt: Date.now() });
    }));
  } catch (err) {
    // The disk that stopped the run may refuse its end too: the first refusal is the one to report.
    const disk = diskFailure ?? storageFailureOf(err);
    throw disk ? storageStop(disk) : err;
  }
  progress.status = 'finished';
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrown as it was caught (the check narrows unknown to {})
  if (cancelled !== undefined) throw cancelled;

  const summary: RunSummary = { runId, scenario: plan.scenario, status, cells, reportPath };
  if (diskFailure) throw storageStop(diskFailure, summary);
  if (failed.length > 0) {
    throw ApplicationFailure.create({
      type: 'CellsFailed',
      message: `${failed.length} of ${plan.cells.length} cells failed; first: ${failed[0].cellId}: ${failed[0].error}`,
      nonRetryable: true,
      details: [summary],
    });
  }
  return summary;
}
