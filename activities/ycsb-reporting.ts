/** The attempt of the running activity (1 outside one). */
export function activityAttempt(): number {
  return asyncLocalStorage.getStore()?.info.attempt ?? 1;
}

/**
 * runYcsb as a Temporal activity step: heartbeats every second (the latest per-second sample, or
 * none yet while the client connects), sends the latest seconds to its workflow every few
 * seconds when told which phase record they belong to (./live-samples.ts), and stops the client
 * when the activity is cancelled. Outside an activity (benchmarks, the CLI) it simply runs.
 */
import { asyncLocalStorage } from '@temporalio/activity';
import type { RunSeries, Sample } from '../core/samples';
import type { YcsbPhase } from '../services/ycsb/command';
import { runYcsb, type YcsbRunOptions } from '../services/ycsb/runner';
import { liveSamplesReporter } from './live-samples';

const HEARTBEAT_MS = 1_000;

/** What a heartbeat carries: enough for a progress query, small enough for every second. */
export interface LoadProgress {
  phase: YcsbPhase;
  label?: string;
  latest: Sample | null;
}

/** `options.signal` stops the client too (a failed write), beside the activity's cancellation. */
export async function runYcsbReporting(options: YcsbRunOptions, label?: string, phaseIndex?: number): Promise<RunSeries> {
  const activity = asyncLocalStorage.getStore();
  if (!activity) return runYcsb(options);
  const progress: LoadProgress = { phase: options.phase, label, latest: null };
  const live = phaseIndex === undefined ? undefined : liveSamplesReporter(phaseIndex);
  const timer = setInterval(() => activity.heartbeat(progress), HEARTBEAT_MS);
  try {
    return await runYcsb({
      ...options,
      signal: options.signal ? AbortSignal.any([activity.cancellationSignal, options.signal]) : activity.cancellationSignal,
      onSample: (sample) => {
        options.onSample?.(sample);
        progress.latest = sample;
        activity.heartbeat(progress);
        live?.add(sample);
      },
    });
  } finally {
    clearInterval(timer);
    live?.stop();
  }
}
