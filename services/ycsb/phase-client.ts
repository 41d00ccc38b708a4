/**
 * One YCSB client for a whole run phase: a single process from the phase's start to its end,
 * each second stored as it arrives. When that process dies by itself (a crash, a SIGKILL, the
 * OOM killer) the death is seen at once (it is our child) and a new process is started for
 * what is left of the phase; when the worker dies, Temporal's retry starts a new attempt that
 * does the same from the store. Either way the new process starts where the store ends: it
 * counts what was done from the stored seconds, runs for the time or operations left, and the
 * restart is recorded as a `client-restart` event (in the phase's faults stream at once, so it
 * outlives a later crash), so a report shows the gap instead of hiding it.
 */
import type { RecordedEvent } from '../../core/events';
import { latestPerSecond, totalsFromSamples, ycsbOperations, type RunTotals, type Sample } from '../../core/samples';
import type { PhaseClientInput, PhaseClientResult, YcsbSettings } from '../../core/ycsb';

export type { PhaseClientInput, PhaseClientResult, SampleSink } from '../../core/ycsb';
import type { ResultsStore } from '../results/results-store';
import { YcsbError, type ClientExit, type YcsbRunOptions } from './runner';

/** A client with less than this left would spend it starting up. */
export const MIN_CLIENT_SECONDS = 3;
/**
 * A process that dies this soon after it started, QUICK_DEATHS times in a row, fails the phase
 * with its last error: a binding that cannot connect is not restarted for ever. One that ran
 * longer did work, and its death starts the count again.
 */
export const QUICK_DEATH_MS = 10_000;
export const QUICK_DEATHS = 3;

export interface PhaseClientDeps {
  store: ResultsStore;
  /**
   * Runs one YCSB process (runYcsb, or its heartbeating wrapper) with the given settings; it
   * rejects with a YcsbError carrying `exit` when the process died by itself, and stops the
   * process when `signal` aborts.
   */
  run(options: Pick<YcsbRunOptions, 'settings' | 'onSample' | 'signal'>): Promise<{ samples: Sample[]; totals: RunTotals }>;
  /** Which attempt of the activity this is (1 the first time). */
  attempt: number;
  now?: () => number;
}

const LATEST = 5;

function onPhaseAxis(sample: Sample, originMs: number): Sample {
  return { ...sample, elapsedS: Math.max(1, Math.round((sample.time - originMs) / 1000)) };
}

/** Why the phase lost its client: its process's exit, or (a new attempt) whatever ended the last attempt. */
interface Loss {
  attempt: number;
  exit?: ClientExit;
}

/**
 * The event of a lost client: when it was noticed and why, and when a new process was started
 * (`restartedAt`: none when too little of the phase was left to start one).
 */
function restartEvent(input: PhaseClientInput, loss: Loss, stored: Sample[], at: number, restarted: boolean): RecordedEvent {
  const lastStoredElapsedS = stored.at(-1)?.elapsedS ?? 0;
  const { exit } = loss;
  // A lost attempt is noticed only when the next one starts; a dead process, when it exits.
  const detectedAt = exit?.at ?? at;
  const lostAttempt = loss.attempt > 1 ? `attempt ${loss.attempt - 1} of the activity ended` : 'an earlier client stored seconds of this phase';
  const cause = exit?.cause ?? `${lostAttempt} (the worker was lost, or the activity failed)`;
  const short = exit ? `${exit.cause.split('; ')[0]}${exit.oomKills ? ', likely OOM-killed' : ''}` : 'new attempt';
  return {
    kind: 'client-restart',
    label: `${input.label} client ${restarted ? 'restarted' : 'lost'} (${short})`,
    scheduledOffsetS: Math.max(0, (detectedAt - input.originMs) / 1000),
    requestedAt: detectedAt,
    completedAt: restarted ? at : undefined,
    detail: {
      client: input.label,
      attempt: loss.attempt,
      cause,
      ...(exit && { exitCode: exit.code, signal: exit.signal, ranS: exit.ranMs / 1000, oomKills: exit.oomKills }),
      detectedAt,
      restartedAt: restarted ? at : undefined,
      lastStoredElapsedS,
      withoutClientS: restarted ? Math.max(0, (at - (input.originMs + lastStoredElapsedS * 1000)) / 1000) : undefined,
    },
  };
}

/** The process's exit when it died by itself; undefined for anything else (stopped, a failed write, bad input). */
function deathOf(err: unknown): ClientExit | undefined {
  return err instanceof YcsbError ? err.exit : undefined;
}

export async function runPhaseClient(input: PhaseClientInput, deps: PhaseClientDeps): Promise<PhaseClientResult> {
  const { store, attempt } = deps;
  const now = deps.now ?? Date.now;
  const { runId, cellId, phaseIndex } = input.sink;
  const restarts: RecordedEvent[] = [];
  const finished = (totals: RunTotals, samples: Sample[]): PhaseClientResult => ({
    totals,
    seconds: samples.length,
    firstElapsedS: samples[0]?.elapsedS,
    lastElapsedS: samples.at(-1)?.elapsedS,
    restarts,
    latest: samples.slice(-LATEST),
  });

  let stored = await store.readSampleStream(runId, cellId, phaseIndex);
  let loss: Loss | undefined = attempt > 1 || stored.length > 0 ? { attempt } : undefined;
  let quickDeaths = 0;
  for (;;) {
    const startedAt = now();
    const done = totalsFromSamples(stored);
    const operationsLeft = input.settings.operationCount - ycsbOperations(done.ops);
    const secondsLeft = input.untilMs === undefined ? undefined : Math.floor((input.untilMs - startedAt) / 1000);
    const over = operationsLeft <= 0 || (secondsLeft !== undefined && secondsLeft < MIN_CLIENT_SECONDS);
    if (loss) {
      const event = restartEvent(input, loss, stored, startedAt, !over);
      restarts.push(event);
      await store.appendStream(runId, cellId, phaseIndex, 'faults', [event]);
    }
    if (over) return finished(done, stored);

    // Inserts already done extend the key space: the new process neither repeats nor misses them.
    const settings: YcsbSettings = {
      ...input.settings,
      recordCount: input.settings.recordCount + (done.ops.INSERT?.ok ?? 0),
      operationCount: operationsLeft,
      maxSeconds: secondsLeft ?? input.settings.maxSeconds,
    };
    try {
      const fresh = await runOneClient(input, deps, settings, stored.at(-1)?.elapsedS ?? 0);
      const all = latestPerSecond([...stored, ...fresh.samples]);
      // After a restart YCSB's own totals cover only the last process: the phase's come from its stored seconds.
      return finished(loss ? totalsFromSamples(all) : fresh.totals, all);
    } catch (err) {
      const exit = deathOf(err);
      if (!exit) throw err;
      quickDeaths = exit.ranMs < QUICK_DEATH_MS ? quickDeaths + 1 : 0;
      if (quickDeaths >= QUICK_DEATHS) throw err;
      loss = { attempt, exit };
    }
    stored = await store.readSampleStream(runId, cellId, phaseIndex);
  }
}

/**
 * Runs one process, storing each second as it arrives (on the phase's axis, never a second
 * stored before it); returns its seconds (the final, exact series) once every write is done.
 * A write that fails stops the process and fails with the write's error: the phase must not
 * go on with a hole in its record.
 */
async function runOneClient(
  input: PhaseClientInput,
  deps: PhaseClientDeps,
  settings: YcsbSettings,
  lastBefore: number,
): Promise<{ samples: Sample[]; totals: RunTotals }> {
  const { store } = deps;
  const { runId, cellId, phaseIndex } = input.sink;
  const stopOnFailedWrite = new AbortController();
  let writing = Promise.resolve();
  let lastWritten = lastBefore;
  const write = (samples: Sample[]) => {
    const fresh = samples.map((s) => onPhaseAxis(s, input.originMs)).filter((s) => s.elapsedS > lastBefore);
    writing = writing.then(() => store.appendStream(runId, cellId, phaseIndex, 'samples', fresh));
    writing.catch((err: unknown) => stopOnFailedWrite.abort(err));
    return writing;
  };
  let series: { samples: Sample[]; totals: RunTotals };
  try {
    series = await deps.run({
      settings,
      signal: stopOnFailedWrite.signal,
      onSample: (sample) => {
        const placed = onPhaseAxis(sample, input.originMs);
        if (placed.elapsedS <= lastWritten) return;
        lastWritten = placed.elapsedS;
        void write([sample]);
      },
    });
  } catch (err) {
    // The seconds it stored before dying are where the next process starts: all of them, or the write's error.
    await writing;
    throw err;
  }
  // The final series is exact where the streamed seconds were provisional (the last, partial one).
  await write(series.samples);
  return { samples: series.samples.map((s) => onPhaseAxis(s, input.originMs)).filter((s) => s.elapsedS > lastBefore), totals: series.totals };
}
