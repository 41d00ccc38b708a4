/**
 * A load client's seconds sent to its own workflow as they come (core/live-samples.ts): a signal
 * through the worker's client to the workflow that scheduled the activity, at most every
 * LIVE_SAMPLES_INTERVAL_MS. Best effort by design: an update that cannot be sent (the workflow
 * has moved on or closed, the server is briefly away) is dropped, the next carries newer seconds,
 * and nothing here can fail or slow the client. Outside an activity (benchmarks) it does nothing.
 */
import { asyncLocalStorage } from '@temporalio/activity';
import { LATEST_SAMPLES, LIVE_SAMPLES_INTERVAL_MS, LIVE_SAMPLES_SIGNAL, type LiveSamples } from '../core/live-samples';
import type { Sample } from '../core/samples';

export interface LiveSamplesReporter {
  /** A second the client just reported. */
  add(sample: Sample): void;
  /** No further update (what was not sent arrives with the activity's result). */
  stop(): void;
}

const NOTHING: LiveSamplesReporter = { add() {}, stop() {} };

export function liveSamplesReporter(phaseIndex: number, intervalMs = LIVE_SAMPLES_INTERVAL_MS): LiveSamplesReporter {
  const activity = asyncLocalStorage.getStore();
  const workflow = activity?.info.workflowExecution;
  if (!activity || !workflow) return NOTHING;
  let unsent: Sample[] = [];
  let lastSentAt = 0;
  let inFlight = false;
  let stopped = false;

  const send = async (update: LiveSamples) => {
    inFlight = true;
    try {
      await activity.client.workflow.getHandle(workflow.workflowId, workflow.runId).signal(LIVE_SAMPLES_SIGNAL, update);
    } catch {
      // Dropped: see above. (Also where a test environment gives the activity no client.)
    } finally {
      inFlight = false;
    }
  };

  return {
    add(sample) {
      if (stopped) return;
      unsent = [...unsent, sample].slice(-LATEST_SAMPLES);
      // One update at a time: a slow server never piles signals up behind the client.
      if (inFlight || Date.now() - lastSentAt < intervalMs) return;
      lastSentAt = Date.now();
      const samples = unsent;
      unsent = [];
      void send({ phaseIndex, samples });
    },
    stop() {
      stopped = true;
    },
  };
}
