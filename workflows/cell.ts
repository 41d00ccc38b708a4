/**
 * One matrix cell, as a child workflow: set the network to the cell's epoch, form the cluster,
 * run the phases, and always clean up (links restored, shaping cleared, the cluster this cell
 * formed stopped) in a scope that cancellation cannot interrupt; then record the cell. Its
 * progress (passed on to the run) holds the running phase's latest seconds, which its clients
 * send as they go.
 */
import { CancellationScope, getExternalWorkflowHandle, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import type { CellRecord, CellSummary, PhaseRecord } from '../core/run-record';
import type { Sample } from '../core/samples';
import { cluster, load, loadOptions, network, results } from './activities';
import { LATEST_SAMPLES } from '../core/live-samples';
import {
  abortSignal,
  cellProgressSignal,
  liveSamplesSignal,
  progressQuery,
  type CellInput,
  type CellProgress,
  type CellResult,
  type CellStatus,
} from './definitions';
import { emptyPhase } from './phase-record';
import { runPhase, type CellContext } from './run-phase';

export async function cellWorkflow(input: CellInput): Promise<CellResult> {
  const { runId, cell } = input;
  const { fleet, database } = cell;
  const progress: CellProgress = { cellId: cell.cellId, seq: 0, step: 'starting', latestSamples: [] };
  const parent = workflowInfo().parent;
  const phases: PhaseRecord[] = [];
  // Updates that bring only new seconds, passed on to the run so far (input.liveSampleForwards caps them).
  let samplesForwarded = 0;
  const update = (change: Partial<CellProgress>, onlySamples: boolean) => {
    Object.assign(progress, change, { seq: progress.seq + 1 });
    if (!parent) return;
    if (onlySamples && samplesForwarded >= (input.liveSampleForwards ?? Infinity)) return;
    if (onlySamples) samplesForwarded++;
    // Best effort: the run's progress query shows the cell's; losing one update is harmless,
    // and the run keeps only updates newer than the one it has (signals may overtake).
    getExternalWorkflowHandle(parent.workflowId, parent.runId)
      .signal(cellProgressSignal, { ...progress })
      .catch(() => undefined);
  };
  const ctx: CellContext = {
    runId,
    cell,
    progress,
    phases,
    aborted: () => aborted,
    report: (change) => update(change, false),
    showSamples(samples: Sample[]) {
      update({ latestSamples: newestSeconds(progress.latestSamples, samples) }, true);
    },
  };
  setHandler(progressQuery, () => progress);

  // The phase whose seconds the progress shows: its record's index (a ramped client's own record
  // comes after it). A client of an earlier phase may still have an update on its way.
  let livePhase = 0;
  const startPhase = (step: string) => {
    livePhase = ctx.phases.length;
    ctx.report({ step, latestSamples: [], phaseStartedAt: undefined, phaseDurationS: undefined });
  };
  setHandler(liveSamplesSignal, ({ phaseIndex, samples }) => {
    if (phaseIndex >= livePhase) ctx.showSamples(samples);
  });

  let aborted = false;
  setHandler(abortSignal, () => {
    aborted = true;
  });

  let status: CellStatus = 'completed';
  let failure: unknown;
  let clusterStarted = false;
  let clusterFacts: CellRecord['cluster'];
  try {
    ctx.report({ step: 'reset network' });
    await network.resetNetwork({ fleet, ...(cell.lossSeed === undefined ? {} : { lossSeed: cell.lossSeed }) });
    if (cell.latencyScale !== undefined) await network.applyLatencyEpoch({ fleet, scale: cell.latencyScale });
    if (cell.bandwidthScale !== undefined) await network.applyBandwidthEpoch({ fleet, scale: cell.bandwidthScale });
    // A cell forms its own cluster: one left on this fleet by a run that died first would clash.
    ctx.report({ step: `stop any leftover ${database}` });
    await cluster.stopCluster({ fleet, database });
    ctx.report({ step: `start ${database} on ${cell.nodes.length} nodes` });
    // Set before the call: a start that fails half-way still leaves processes to stop.
    clusterStarted = true;
    const info = await cluster.startCluster({ fleet, database, nodes: cell.nodes, settings: cell.settings });
    clusterFacts = {
      database,
      version: info.version,
      nonDefaultSettings: info.nonDefaultSettings,
      ...(info.consistency ? { consistency: info.consistency } : {}),
    };
    for (const phase of cell.phases) {
      if (aborted) break;
      startPhase(phase.name);
      if (phase.kind === 'flush') {
        ctx.phases.push(emptyPhase(phase.name));
        await load.flushDatabase({ fleet, database, fieldCount: phase.fieldCount });
      } else if (phase.kind === 'load') {
        const record = emptyPhase(phase.name);
        ctx.phases.push(record);
        const phaseIndex = ctx.phases.indexOf(record);
        const series = await load.ycsbLoad.executeWithOptions(loadOptions, [{ fleet, database, settings: phase.ycsb, phaseIndex }]);
        record.totals = series.totals;
        // Stored, not kept: the workflow's history and recordCell's input stay small.
        await results.recordSamples({ runId, cellId: cell.cellId, phaseIndex, samples: series.samples });
        ctx.showSamples(series.samples);
      } else {
        await runPhase(ctx, phase);
      }
    }
  } catch (err) {
    failure = err;
    status = isCancellation(err) ? 'cancelled' : 'failed';
  }
  if (aborted && status === 'completed') status = 'aborted';

  const summary = await CancellationScope.nonCancellable(async () => {
    ctx.report({ step: 'cleanup', nextEvent: undefined });
    // Every step is tried even when an earlier one fails: a cluster left running costs more than a late error.
    const attempt = async (step: () => Promise<unknown>) => {
      try {
        await step();
      } catch (err) {
        failure ??= err;
        status = status === 'completed' || status === 'aborted' ? 'failed' : status;
      }
    };
    await attempt(() => network.resetNetwork({ fleet }));
    if (clusterStarted) await attempt(() => cluster.stopCluster({ fleet, database }));
    let cellSummary: CellSummary | undefined;
    await attempt(async () => {
      const record: Omit<CellRecord, 'summary'> = { cellId: cell.cellId, coordinates: cell.coordinates, cluster: clusterFacts, phases: ctx.phases };
      cellSummary = await results.recordCell({ runId, cell: record, reference: input.reference });
    });
    ctx.report({ step: status });
    return cellSummary;
  });
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrown as it was caught (the check narrows unknown to {})
  if (failure !== undefined) throw failure;
  return { cellId: cell.cellId, coordinates: cell.coordinates, status, summary };
}

/** The newest seconds of both lists, once each (an update may repeat a second the result brings again), newest last. */
function newestSeconds(shown: Sample[], arrived: Sample[]): Sample[] {
  const byTime = new Map([...shown, ...arrived].map((s) => [s.time, s]));
  return [...byTime.values()].sort((a, b) => a.time - b.time).slice(-LATEST_SAMPLES);
}
