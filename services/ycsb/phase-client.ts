/**
 * One YCSB client for a whole run phase: a single process from the phase's start to its end,
 * each second stored as it arrives. A retried attempt (the worker died, the client crashed)
 * starts where the store ends: it counts what was done from the stored seconds, runs one new
 * process for the time or operations left, and records the restart as an event, so a report
 * shows the gap instead of hiding it.
 */
import type { RecordedEvent } from '../../core/events';
import { latestPerSecond, totalsFromSamples, ycsbOperations, type RunTotals, type Sample } from '../../core/samples';
import type { PhaseClientInput, PhaseClientResult, YcsbSettings } from '../../core/ycsb';

export type { PhaseClientInput, PhaseClientResult, SampleSink } from '../../core/ycsb';
import type { ResultsStore } from '../results/results-store';
import type { YcsbRunOptions } from './runner';




/** A client with less than this left would spend it starting up. */
export const MIN_CLIENT_SECONDS = 3;

export interface PhaseClientDeps {
  store: ResultsStore;
  /** Runs one YCSB process (runYcsb, or its heartbeating wrapper) with the given settings. */
  run(options: Pick<YcsbRunOptions, 'settings' | 'onSample'>): Promise<{ samples: Sample[]; totals: RunTotals }>;
  /** Which attempt of the activity this is (1 the first time). */
  attempt: number;
  now?: () => number;
}

const LATEST = 5;

function onPhaseAxis(sample: Sample, originMs: number): Sample {
  return { ...sample, elapsedS: Math.max(1, Math.round((sample.time - originMs) / 1000)) };
}

export async function runPhaseClient(input: PhaseClientInput, deps: PhaseClientDeps): Promise<PhaseClientResult> {
  const { store, attempt } = deps;
  const now = deps.now ?? Date.now;
  const { runId, cellId, phaseIndex } = input.sink;
  const before = await store.readSampleStream(runId, cellId, phaseIndex);
  const lastBefore = before.at(-1)?.elapsedS ?? 0;
  const doneBefore = totalsFromSamples(before);
  const restarts: RecordedEvent[] = [];

  const resumed = attempt > 1 || before.length > 0;
  const startedAt = now();
  if (resumed) {
    const lastStoredAt = before.length > 0 ? input.originMs + lastBefore * 1000 : input.originMs;
    restarts.push({
      kind: 'client-restart',
      label: `${input.label} client restarted`,
      scheduledOffsetS: Math.max(0, (startedAt - input.originMs) / 1000),
      requestedAt: startedAt,
      detail: { client: input.label, attempt, lastStoredElapsedS: lastBefore, withoutClientS: Math.max(0, (startedAt - lastStoredAt) / 1000) },
    });
  }

  const operationsLeft = input.settings.operationCount - ycsbOperations(doneBefore.ops);
  const secondsLeft = input.untilMs === undefined ? undefined : Math.floor((input.untilMs - startedAt) / 1000);
  const finished = (totals: RunTotals, samples: Sample[]): PhaseClientResult => ({
    totals,
    seconds: samples.length,
    firstElapsedS: samples[0]?.elapsedS,
    lastElapsedS: samples.at(-1)?.elapsedS,
    restarts,
    latest: samples.slice(-LATEST),
  });
  if (operationsLeft <= 0 || (secondsLeft !== undefined && secondsLeft < MIN_CLIENT_SECONDS)) return finished(doneBefore, before);

  // Inserts already done extend the key space: the new process neither repeats nor misses them.
  const settings: YcsbSettings = {
    ...input.settings,
    recordCount: input.settings.recordCount + (doneBefore.ops.INSERT?.ok ?? 0),
    operationCount: operationsLeft,
    maxSeconds: secondsLeft ?? input.settings.maxSeconds,
  };
  // Writes go out in order, one at a time; a second already stored by a lost attempt is not stored again.
  let writing = Promise.resolve();
  let lastWritten = lastBefore;
  const store1 = (samples: Sample[]) => {
    const fresh = samples.map((s) => onPhaseAxis(s, input.originMs)).filter((s) => s.elapsedS > lastBefore);
    writing = writing.then(() => store.appendStream(runId, cellId, phaseIndex, 'samples', fresh));
    // A failed write is reported once the client is done (below), not as an unhandled rejection now.
    writing.catch(() => undefined);
    return writing;
  };
  const series = await deps.run({
    settings,
    onSample: (sample) => {
      const placed = onPhaseAxis(sample, input.originMs);
      if (placed.elapsedS <= lastWritten) return;
      lastWritten = placed.elapsedS;
      void store1([sample]);
    },
  });
  // The final series is exact where the streamed seconds were provisional (the last, partial one).
  // A write that failed earlier fails here: the run stops rather than go on with a hole.
  await store1(series.samples);
  const all = latestPerSecond([...before, ...series.samples.map((s) => onPhaseAxis(s, input.originMs)).filter((s) => s.elapsedS > lastBefore)]);
  // Resumed: YCSB's own totals cover only the last process, so the phase's come from its stored seconds.
  return finished(resumed ? totalsFromSamples(all) : series.totals, all);
}
