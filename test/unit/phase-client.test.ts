/**
 * A phase's client resuming from what the store holds (services/ycsb/phase-client.ts), with a
 * real results store on disk and a stand-in for the YCSB process (the real one runs in the db
 * tests): every second stored as it arrives, a retried attempt continues where the store ends
 * with the time, operations and key space left, and says so with a restart event.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { runPhaseClient, type PhaseClientInput } from '../../services/ycsb/phase-client';
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
  return async ({ settings, onSample }: { settings: YcsbSettings; onSample?: (s: Sample) => void }) => {
    asked.push(settings);
    for (const s of seconds) onSample?.(s);
    return { samples: seconds, totals: totalsFromSamples(seconds) };
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
  await store.appendStream('r', 'c', 2, 'samples', [1, 2, 3, 4, 5].map((s) => ({ ...second(s, 10, s === 3 ? 20 : 0), elapsedS: s })));
  const asked: YcsbSettings[] = [];
  // The new process starts 8 s into the phase; its first reported second overlaps the stored ones.
  const fresh = [5, 9, 10].map((s) => second(s, 7));
  const result = await runPhaseClient(input, { store, attempt: 2, run: client(fresh, asked), now: () => ORIGIN + 8_000 });

  expect(asked[0]).toMatchObject({ maxSeconds: 12, operationCount: 1000 - 70, recordCount: 520 });
  expect((await store.readSampleStream('r', 'c', 2)).map((s) => [s.elapsedS, s.okPerS])).toEqual([
    [1, 10], [2, 10], [3, 30], [4, 10], [5, 10], [9, 7], [10, 7],
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
});

test('a store that cannot be written fails the client instead of leaving a hole', async () => {
  const broken = new ResultsStore(path.join(dir, 'missing'));
  broken.appendStream = async () => {
    throw new Error('ENOSPC: no space left on device');
  };
  await expect(runPhaseClient(input, { store: broken, attempt: 1, run: client([second(1)]), now: () => ORIGIN })).rejects.toThrow(/ENOSPC/);
});
