/**
 * A phase's client resuming from what the store holds (services/ycsb/phase-client.ts), with a
 * real results store on disk and a stand-in for the YCSB process (the real one runs in the db
 * tests): every second stored as it arrives; a process that dies, and a retried attempt, continue
 * where the store ends with the time, operations and key space left, and say so (and why) with a
 * restart event; deaths in quick succession and failed writes end the phase instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { QUICK_DEATHS, runPhaseClient, type PhaseClientDeps, type PhaseClientInput } from '../../services/ycsb/phase-client';
import { YcsbError, type ClientExit } from '../../services/ycsb/runner';
import { YCSB_DEFAULTS } from '../../core/scenario';
import { totalsFromSamples, type Sample } from '../../core/samples';
import type { YcsbSettings } from '../../activities/contracts';

const ORIGIN = 1_800_000_000_000;
let dir: string;
let store: ResultsStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-phase-client-'));
  store = new ResultsStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A sample for the second ending at ORIGIN + s seconds, with `ok` reads and `inserts` inserts. */
function second(s: number, ok = 10, inserts = 0): Sample {
  const ops: Sample['ops'] = { READ: { ok, failed: 0, latencyUs: { avg: 100, p95: 200, p99: 300 } } };
  if (inserts) ops.INSERT = { ok: inserts, failed: 0, latencyUs: { avg: 50, p95: 60, p99: 70 } };
  // The client counts elapsed seconds from its own start: the phase's axis is the store's business.
  return { time: ORIGIN + s * 1000, elapsedS: 99, ops, okPerS: ok + inserts, failedPerS: 0 };
}

const input: PhaseClientInput = {
  settings: { ...YCSB_DEFAULTS, operationCount: 1000, recordCount: 500 },
  label: 'run',
  sink: { runId: 'r', cellId: 'c', phaseIndex: 2 },
  originMs: ORIGIN,
  untilMs: ORIGIN + 20_000,
};

/** A client that reports `seconds` one by one, then returns them as its series. */
function client(seconds: Sample[], asked: YcsbSettings[] = []) {
  return ({ settings, onSample }: { settings: YcsbSettings; onSample?: (s: Sample) => void }) => {
    asked.push(settings);
    for (const s of seconds) onSample?.(s);
    return Promise.resolve({ samples: seconds, totals: totalsFromSamples(seconds) });
  };
}

test('the first attempt stores every second on the phase axis and returns the client totals', async () => {
  const seconds = [1, 2, 3].map((s) => second(s));
  const result = await runPhaseClient(input, { store, attempt: 1, run: client(seconds), now: () => ORIGIN });
  const stored = await store.readSampleStream('r', 'c', 2);
  expect(stored.map((s) => s.elapsedS)).toEqual([1, 2, 3]);
  expect(result).toMatchObject({ seconds: 3, firstElapsedS: 1, lastElapsedS: 3, restarts: [] });
  expect(result.totals.ops.READ!.ok).toBe(30);
});

test('a retried attempt resumes where the store ends: time, operations and key space left, a restart event, no second stored twice', async () => {
  // The lost attempt stored seconds 1-5 (20 inserts among them) before the worker died.
  await store.appendStream(
    'r',
    'c',
    2,
    'samples',
    [1, 2, 3, 4, 5].map((s) => ({ ...second(s, 10, s === 3 ? 20 : 0), elapsedS: s })),
  );
  const asked: YcsbSettings[] = [];
  // The new process starts 8 s into the phase; its first reported second overlaps the stored ones.
  const fresh = [5, 9, 10].map((s) => second(s, 7));
  const result = await runPhaseClient(input, { store, attempt: 2, run: client(fresh, asked), now: () => ORIGIN + 8_000 });

  expect(asked[0]).toMatchObject({ maxSeconds: 12, operationCount: 1000 - 70, recordCount: 520 });
  expect((await store.readSampleStream('r', 'c', 2)).map((s) => [s.elapsedS, s.okPerS])).toEqual([
    [1, 10],
    [2, 10],
    [3, 30],
    [4, 10],
    [5, 10],
    [9, 7],
    [10, 7],
  ]);
  expect(result.restarts).toHaveLength(1);
  expect(result.restarts[0]).toMatchObject({ kind: 'client-restart', detail: { attempt: 2, lastStoredElapsedS: 5, withoutClientS: 3 } });
  expect(result.totals.ops.READ!.ok).toBe(50 + 14);
  expect(result.totals.ops.INSERT!.ok).toBe(20);
  expect(result).toMatchObject({ seconds: 7, firstElapsedS: 1, lastElapsedS: 10 });
});

test('an attempt with too little time left runs no client and returns what the store holds', async () => {
  await store.appendStream('r', 'c', 2, 'samples', [{ ...second(1), elapsedS: 1 }]);
  const asked: YcsbSettings[] = [];
  const result = await runPhaseClient(input, { store, attempt: 3, run: client([], asked), now: () => ORIGIN + 18_500 });
  expect(asked).toEqual([]);
  expect(result.totals.ops.READ!.ok).toBe(10);
  expect(result.restarts).toHaveLength(1);
  expect(result.restarts[0]).toMatchObject({ label: 'run client lost (new attempt)', completedAt: undefined });
});

test("restart events are in the phase's faults stream as they happen, so a later crash keeps them", async () => {
  await store.appendStream('r', 'c', 2, 'samples', [{ ...second(1), elapsedS: 1 }]);
  const result = await runPhaseClient(input, { store, attempt: 2, run: client([second(5)]), now: () => ORIGIN + 4_000 });
  expect(await store.readStream('r', 'c', 2, 'faults')).toEqual(result.restarts);
});

test('a store that cannot be written fails the client instead of leaving a hole', async () => {
  const broken = new ResultsStore(path.join(dir, 'missing'));
  broken.appendStream = () => Promise.reject(new Error('ENOSPC: no space left on device'));
  await expect(runPhaseClient(input, { store: broken, attempt: 1, run: client([second(1)]), now: () => ORIGIN })).rejects.toThrow(/ENOSPC/);
});

type Run = PhaseClientDeps['run'];

/** The processes a phase starts, one after another, and the settings each was given. */
function processes(...runs: Run[]) {
  const asked: YcsbSettings[] = [];
  let next = 0;
  const run: Run = (options) => {
    asked.push(options.settings);
    const process = runs[next++];
    if (!process) throw new Error(`process ${next} was not expected`);
    return process(options);
  };
  return { asked, run, started: () => next };
}

/** A process that reports `seconds`, then dies as `exit` says. */
function dying(seconds: Sample[], exit: Partial<ClientExit> = {}): Run {
  return ({ onSample }) => {
    for (const s of seconds) onSample?.(s);
    const ended: ClientExit = { code: 137, signal: 'SIGKILL', at: ORIGIN, ranMs: 8_000, cause: 'signal SIGKILL', ...exit };
    return Promise.reject(new YcsbError(`YCSB run: ended by ${ended.cause}`, '', ended));
  };
}

describe('a process that dies mid-phase', () => {
  let clock: number;
  const now = () => clock;
  beforeEach(() => (clock = ORIGIN));

  test('is replaced at once for what is left, and the restart says why, when and for how long', async () => {
    const first = dying(
      [1, 2, 3, 4, 5, 6].map((s) => second(s, 10, s === 3 ? 20 : 0)),
      { at: ORIGIN + 6_400, ranMs: 6_400 },
    );
    // Its first second overlaps the stored ones: the first process's stays.
    const replacement = client([6, 8, 9, 10].map((s) => second(s, 7)));
    const phase = processes((options) => first(options).finally(() => (clock = ORIGIN + 6_500)), replacement);
    const result = await runPhaseClient(input, { store, attempt: 1, run: phase.run, now });

    expect(phase.asked[1]).toMatchObject({ operationCount: 1000 - 80, recordCount: 520, maxSeconds: 13 });
    const stored = await store.readSampleStream('r', 'c', 2);
    expect(stored.map((s) => [s.elapsedS, s.okPerS])).toEqual([
      [1, 10],
      [2, 10],
      [3, 30],
      [4, 10],
      [5, 10],
      [6, 10],
      [8, 7],
      [9, 7],
      [10, 7],
    ]);
    expect(result.restarts).toHaveLength(1);
    expect(result.restarts[0]).toMatchObject({
      kind: 'client-restart',
      label: 'run client restarted (signal SIGKILL)',
      scheduledOffsetS: 6.4,
      requestedAt: ORIGIN + 6_400,
      completedAt: ORIGIN + 6_500,
      detail: {
        attempt: 1,
        cause: 'signal SIGKILL',
        exitCode: 137,
        signal: 'SIGKILL',
        detectedAt: ORIGIN + 6_400,
        restartedAt: ORIGIN + 6_500,
        lastStoredElapsedS: 6,
        withoutClientS: 0.5,
      },
    });
    expect(await store.readStream('r', 'c', 2, 'faults')).toEqual(result.restarts);
    // The phase's totals are its stored seconds: YCSB's own would cover the last process only.
    expect(result.totals.ops.READ!.ok).toBe(60 + 21);
    expect(result).toMatchObject({ seconds: 9, lastElapsedS: 10 });
  });

  test('an OOM kill is named in the label and the cause', async () => {
    const cause = "signal SIGKILL; likely OOM-killed (the kernel's oom_kill count rose by 1)";
    const phase = processes(dying([second(1)], { cause, oomKills: 1 }), client([second(5)]));
    const result = await runPhaseClient(input, { store, attempt: 1, run: phase.run, now: () => ORIGIN + 2_000 });
    expect(result.restarts[0]).toMatchObject({ label: 'run client restarted (signal SIGKILL, likely OOM-killed)', detail: { cause, oomKills: 1 } });
  });

  test(`dying within seconds of its start ${QUICK_DEATHS} times in a row fails the phase with the last error`, async () => {
    const unbounded = { ...input, untilMs: undefined };
    const quick = (n: number) =>
      dying([], { code: 0, signal: undefined, ranMs: 1_500, cause: `the binding failed to start: connection refused (${n})` });
    const phase = processes(...Array.from({ length: QUICK_DEATHS }, (_, i) => quick(i + 1)));
    await expect(runPhaseClient(unbounded, { store, attempt: 1, run: phase.run, now })).rejects.toThrow(`connection refused (${QUICK_DEATHS})`);
    expect(phase.started()).toBe(QUICK_DEATHS);
    expect(await store.readStream('r', 'c', 2, 'faults')).toHaveLength(QUICK_DEATHS - 1);
  });

  test('a process that ran a while before dying starts the count of quick deaths again', async () => {
    const unbounded = { ...input, untilMs: undefined };
    const quick = dying([], { ranMs: 1_000 });
    const long = dying([second(3)], { ranMs: 60_000 });
    const runs = [...Array<Run>(QUICK_DEATHS - 1).fill(quick), long, ...Array<Run>(QUICK_DEATHS - 1).fill(quick), client([second(9)])];
    const phase = processes(...runs);
    const result = await runPhaseClient(unbounded, { store, attempt: 1, run: phase.run, now });
    expect(phase.started()).toBe(runs.length);
    expect(result.restarts).toHaveLength(runs.length - 1);
  });

  test('other failures (a client that could not start, bad input) are not restarted', async () => {
    const phase = processes(() => Promise.reject(new Error('spawn ip ENOENT')));
    await expect(runPhaseClient(input, { store, attempt: 1, run: phase.run, now })).rejects.toThrow('spawn ip ENOENT');
    expect(phase.started()).toBe(1);
  });
});

test("a failed write stops the running process at once and fails the phase with the write's error", async () => {
  const append = store.appendStream.bind(store);
  store.appendStream = async (...args) => {
    if (args[3] === 'samples' && (args[4][0] as Sample).elapsedS >= 3) throw new Error('ENOSPC: no space left on device');
    return append(...args);
  };
  let stoppedWith: unknown;
  const phase = processes(({ onSample, signal }) => {
    [1, 2, 3].forEach((s) => onSample?.(second(s)));
    // Runs until stopped, as YCSB would for the rest of the phase.
    return new Promise((_, reject) => signal!.addEventListener('abort', () => reject((stoppedWith = signal!.reason as Error))));
  });
  await expect(runPhaseClient(input, { store, attempt: 1, run: phase.run, now: () => ORIGIN })).rejects.toThrow(/ENOSPC/);
  expect(String(stoppedWith)).toMatch(/ENOSPC/);
  expect(phase.started()).toBe(1);
  expect((await store.readSampleStream('r', 'c', 2)).map((s) => s.elapsedS)).toEqual([1, 2]);
});
