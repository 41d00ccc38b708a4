/**
 * A cell's samples leave the workflow window by window (recordSamples), so that recordCell's
 * input stays small however long a phase runs: Temporal refuses payloads over 2 MB, and a 6000 s
 * phase carries about 1.5 MB of samples. The workflow keeps every sample in memory for the
 * cell's summary; this tracks which of them the store already has.
 */
import type { PhaseRecord } from '../core/run-record';
import type { Sample } from '../core/samples';
import { results } from './activities';

export class SampleParts {
  private readonly stored = new Map<PhaseRecord, { parts: number; samples: number }>();

  constructor(
    private readonly runId: string,
    private readonly cellId: string,
    private readonly phases: PhaseRecord[],
  ) {}

  /** Stores `samples`, the newest ones appended to `record`, as its next part. */
  async store(record: PhaseRecord, samples: Sample[]): Promise<void> {
    if (samples.length === 0) return;
    const done = this.stored.get(record) ?? { parts: 0, samples: 0 };
    await results.recordSamples({ runId: this.runId, cellId: this.cellId, phaseIndex: this.phases.indexOf(record), part: done.parts, samples });
    this.stored.set(record, { parts: done.parts + 1, samples: done.samples + samples.length });
  }

  /** The phases as recordCell takes them: stored samples are counted in parts, not repeated. */
  forRecordCell(): PhaseRecord[] {
    return this.phases.map((phase) => {
      const done = this.stored.get(phase);
      return done ? { ...phase, samples: phase.samples.slice(done.samples), sampleParts: done.parts } : phase;
    });
  }
}
