/** The YCSB workload as scenarios and activities speak of it, and what a phase's client takes and returns. */
import type { RecordedEvent } from './events';
import type { RunTotals, Sample } from './samples';

export type Workload = 'a' | 'b' | 'c' | 'd' | 'e' | 'f';

export interface YcsbSettings {
  workload: Workload;
  recordCount: number;
  /** Operations for the run phase; the run ends at this count or at maxSeconds, whichever first. */
  operationCount: number;
  maxSeconds?: number;
  threads: number;
  /** Target ops/s over all threads; omitted = as fast as possible. */
  target?: number;
  fieldCount: number;
  fieldLength: number;
  /** Client operation timeout, ms (recorded with the results). */
  timeoutMs: number;
  /** Client retries per operation (recorded with the results). */
  retries: number;
  /**
   * Check consistency in run phases: every write's values unique to it, every operation recorded
   * in a history, every key written read back after the phase (core/consistency/).
   */
  check?: boolean;
}

/** Where a phase's samples go: the store's stream for phase `phaseIndex` of cell `cellId`. */
export interface SampleSink {
  runId: string;
  cellId: string;
  phaseIndex: number;
}

export interface PhaseClientInput {
  settings: YcsbSettings;
  /** The phase's (or ramped client's) name, for labels and messages. */
  label: string;
  sink: SampleSink;
  /** Host-clock origin of the phase: a sample's elapsedS counts from here. */
  originMs: number;
  /** Host-clock time the client stops; none = when settings.operationCount operations are done. */
  untilMs?: number;
}

export interface PhaseClientResult {
  /** YCSB's totals for the phase (from the samples for the part a lost process ran). */
  totals: RunTotals;
  /** Seconds stored for the phase, first and last elapsedS. */
  seconds: number;
  firstElapsedS?: number;
  lastElapsedS?: number;
  /**
   * One event per client lost (its process died, or a new attempt resumed the phase): the cause,
   * when it was noticed and restarted, how long the phase ran without a client. Stored in the
   * phase's faults stream as they happened; here for the caller to read, not to store again.
   */
  restarts: RecordedEvent[];
  latest: Sample[];
}
