/** A phase's record as the workflow starts it; samples, telemetry and probes are joined in by recordCell. Pure. */
import type { PhaseRecord } from '../core/run-record';

export function emptyPhase(name: string, warmup = false): PhaseRecord {
  return { name, samples: [], events: [], rtt: [], traffic: [], resizes: [], ...(warmup ? { warmup } : {}) };
}
