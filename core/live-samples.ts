/**
 * A running load client's latest seconds, sent to its cell workflow every few seconds so that the
 * `progress` query shows the phase that runs now (samples otherwise reach a workflow only when
 * the client's activity returns). Small on purpose: the newest seconds, never the series, which
 * the results store holds.
 */
import type { Sample } from './samples';

/** The signal's name (workflows/definitions.ts defines it; the activity sends it by name). */
export const LIVE_SAMPLES_SIGNAL = 'liveSamples';

/** Samples kept in progress, and the most one update carries: enough for a live line and a glance. */
export const LATEST_SAMPLES = 5;

/** How often a client sends: the progress is this close to the disk, give or take a second. */
export const LIVE_SAMPLES_INTERVAL_MS = 3_000;

export interface LiveSamples {
  /** The phase record the client stores into (its place in the cell): a late update of an earlier phase is told apart by it. */
  phaseIndex: number;
  /** The seconds since the last update, newest last, at most LATEST_SAMPLES. */
  samples: Sample[];
}
