/**
 * Every activity the scenario workflows call, each group with its own timeouts and retry policy.
 * Bad input and a disk that refuses the run's records are never retried: activities throw
 * InputError or StorageError, which the worker turns into non-retryable ApplicationFailures of
 * that type (and the policies name them too).
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { ActivityCancellationType, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { DatabaseActivities, LoadActivities, NetworkActivities, ResultsActivities } from '../activities/contracts';
import type { ScenarioActivities } from '../activities/scenario';
import type { VisibilityActivities } from '../activities/visibility';
import type { FleetLeaseActivities } from '../core/fleet-lease';
import type { EventDuration } from '../core/event-kinds/event-kind';
import { eventKindOf } from '../core/event-kinds/registry';
import type { EventAction } from '../core/scenario';

const NON_RETRYABLE = ['InputError', 'StorageError'];

function retrying(maximumAttempts: number, maximumInterval: Duration = '30s'): ActivityOptions['retry'] {
  return { initialInterval: '1s', backoffCoefficient: 2, maximumInterval, maximumAttempts, nonRetryableErrorTypes: NON_RETRYABLE };
}

/**
 * Activities that a cancelled or aborted run abandons at once rather than waits for, so cleanup
 * (links restored, clusters stopped) starts within seconds.
 */
const abandonOnCancel = { cancellationType: ActivityCancellationType.TRY_CANCEL };

export const network = proxyActivities<NetworkActivities>({
  startToCloseTimeout: '2 min',
  retry: retrying(5),
});

/** Cluster activities heartbeat every second: a crashed worker is noticed in seconds, not at the timeout. */
const CLUSTER_HEARTBEAT = '30s';

export const cluster = proxyActivities<DatabaseActivities>({
  // Forming a cluster or moving its data under high latency takes minutes.
  startToCloseTimeout: '30 min',
  heartbeatTimeout: CLUSTER_HEARTBEAT,
  retry: retrying(2, '1 min'),
  ...abandonOnCancel,
});

export const load = proxyActivities<LoadActivities>({
  startToCloseTimeout: '2 h',
  retry: retrying(2, '1 min'),
  ...abandonOnCancel,
});

/** YCSB's load phase heartbeats every second like its run phase; the flush does not. */
export const loadOptions: ActivityOptions = { startToCloseTimeout: '2 h', heartbeatTimeout: '30s', retry: retrying(2, '1 min'), ...abandonOnCancel };

/**
 * One client for a whole phase. A crashed worker is noticed within the heartbeat timeout, and the
 * retry resumes from the seconds already stored. A stopped client is waited for, so that its last
 * seconds are stored before the cell records itself.
 */
export function clientOptions(label: string, originMs: number, untilMs?: number): ActivityOptions {
  const timeout = untilMs === undefined ? '2 h' : untilMs - originMs + 300_000;
  return {
    startToCloseTimeout: timeout,
    heartbeatTimeout: '10s',
    retry: retrying(4, '5s'),
    summary: `client ${label}`,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
}

/**
 * A checked phase's consistency check: reads its histories and reads every key written back, for
 * minutes on a large key space; it heartbeats, and a retry checks the same histories again.
 */
export const checkOptions: ActivityOptions = {
  startToCloseTimeout: '2 h',
  heartbeatTimeout: '30s',
  retry: retrying(3, '30s'),
  summary: 'consistency check',
  ...abandonOnCancel,
};

/** The phase's monitor: noticed within its heartbeat timeout if the worker dies, and then started again. */
export const monitor = proxyActivities<Pick<LoadActivities, 'monitorPhase'>>({
  startToCloseTimeout: '24 h',
  heartbeatTimeout: '10s',
  retry: retrying(10, '5s'),
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

export const results = proxyActivities<ResultsActivities>({
  startToCloseTimeout: '5 min',
  retry: retrying(10, '1 min'),
});

/**
 * Bringing a fleet up takes seconds to a minute; it heartbeats each step. A cancel waits for it
 * to finish, so that giving the fleet back never races a fleet still coming up.
 */
export const fleetLease = proxyActivities<FleetLeaseActivities>({
  startToCloseTimeout: '20 min',
  heartbeatTimeout: '2 min',
  retry: { ...retrying(3), nonRetryableErrorTypes: [...NON_RETRYABLE, 'FleetBusy'] },
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

export const scenario = proxyActivities<ScenarioActivities>({
  startToCloseTimeout: '2 min',
  retry: retrying(3),
});

/** Per how long an event takes to apply: a resize may take many minutes, a shaping change seconds. */
const EVENT_TIMING: Record<EventDuration, ActivityOptions> = {
  resize: { startToCloseTimeout: '30 min', heartbeatTimeout: CLUSTER_HEARTBEAT, retry: retrying(2, '1 min') },
  measurement: { startToCloseTimeout: '5 min', retry: retrying(3) },
  quick: { startToCloseTimeout: '1 min', retry: retrying(5, '5s') },
};

/** Past a span's own length, what its activity may take to finish (a last shaping change, a slow host). */
const SPAN_MARGIN_MS = 5 * 60_000;

export function eventOptions(action: EventAction, summary: string): ActivityOptions {
  const kind = eventKindOf(action);
  const timing = EVENT_TIMING[kind.duration];
  // A 40-minute replay must not meet the 30-minute resize timeout: a retry would play it again from the start.
  const spanMs = kind.lastsS ? kind.lastsS(action) * 1000 + SPAN_MARGIN_MS : 0;
  const startToCloseTimeout = Math.max(spanMs, msToNumber(timing.startToCloseTimeout!));
  return { summary, ...abandonOnCancel, ...timing, startToCloseTimeout };
}

/** Asked once a run: a server that cannot say (or will not) leaves the run unlabelled, never failed. */
export const visibility = proxyActivities<VisibilityActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});
