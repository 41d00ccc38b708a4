/**
 * The load activities (activities/contracts.ts LoadActivities): YCSB's flush, load and run
 * phases (services/ycsb/fleet-client.ts), heartbeating with the latest sample and stopping the
 * client on cancellation (./ycsb-reporting.ts); the phase monitor beside them (./monitor.ts).
 */
import type { FleetRef } from '../core/fleet-ref';
import type { RunSeries } from '../core/samples';
import type { DatabaseName, LoadActivities, YcsbSettings } from './contracts';
import { flushDatabase } from '../services/databases/cluster-operations';
import { runYcsbOnce, ycsbClientFor } from '../services/ycsb/fleet-client';
import { runPhaseClient, type PhaseClientInput, type PhaseClientResult } from '../services/ycsb/phase-client';
import { ResultsStore } from '../services/results/results-store';
import { checkPhaseConsistency } from '../services/consistency/check-phase';
import { newHistoryTarget } from '../services/consistency/client-history';
import type { PhaseCheckInput, PhaseConsistency } from '../core/consistency/consistency';
import { activityAttempt, runYcsbReporting } from './ycsb-reporting';
import { heartbeating } from './heartbeat';
import { monitorPhase } from './monitor';
import { asyncLocalStorage } from '@temporalio/activity';

export { flushDatabase, monitorPhase };
export type { LoadProgress } from './ycsb-reporting';

/** `phaseIndex`: the load's phase record, which its live seconds are sent for (absent from older workflows). */
export function ycsbLoad(input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings; phaseIndex?: number }): Promise<RunSeries> {
  return runYcsbOnce('load', input, (options) => runYcsbReporting(options, undefined, input.phaseIndex));
}

/**
 * One client for a whole run phase (see services/ycsb/phase-client.ts): heartbeats every second
 * with the latest sample, sends the latest seconds to its workflow every few seconds, stores
 * every second as it arrives, starts a client that died again for
 * what is left of the phase, and resumes from the store when retried.
 */
export async function ycsbRun(input: { fleet: FleetRef; database: DatabaseName } & PhaseClientInput): Promise<PhaseClientResult> {
  const { target, binding } = await ycsbClientFor(input);
  const store = new ResultsStore();
  return runPhaseClient(input, {
    store,
    attempt: activityAttempt(),
    // A checked phase: each client process writes a history of its own.
    run: async ({ settings, onSample, signal }) => {
      const history = settings.check ? await newHistoryTarget(store, input.sink) : undefined;
      return runYcsbReporting({ target, phase: 'run', settings, binding, onSample, signal, history }, input.label, input.sink.phaseIndex);
    },
  });
}

/** A checked run phase's consistency, heartbeating while its histories are read and its keys read back. */
export async function checkConsistency(input: { fleet: FleetRef; database: DatabaseName } & PhaseCheckInput): Promise<PhaseConsistency> {
  const { target, binding } = await ycsbClientFor(input);
  const signal = asyncLocalStorage.getStore()?.cancellationSignal;
  return heartbeating(() => checkPhaseConsistency(input, { store: new ResultsStore(), target, binding, signal }));
}

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ flushDatabase, ycsbLoad, ycsbRun, monitorPhase, checkConsistency }) satisfies LoadActivities;
