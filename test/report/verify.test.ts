/** `fragbench results verify`: a stored run is checked for gaps, mixed duplicates, bad values and corrupt lines. */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { formatVerification, verifyStoredRun } from '../../report/verify';
import { cell, okSeries, phase, recorded, runRecord } from './builders';

let dir: string;
let store: ResultsStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-verify-'));
  store = new ResultsStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const thirtySeconds = () => okSeries(Array.from({ length: 30 }, () => 100));

async function storeRun(samples = thirtySeconds(), extra: Parameters<typeof phase>[2] = {}) {
  const c = cell('c1', {}, [phase('load', okSeries([50, 50])), phase('run', samples, extra)]);
  await store.writeRun(runRecord('r1', [c], { status: 'completed' }));
  await store.writeCell('r1', c);
}

test('an intact run verifies clean', async () => {
  await storeRun();
  const v = await verifyStoredRun(store, 'r1');
  expect(v.problems).toEqual([]);
  expect(v.checks.map((c) => [c.phase, c.seconds])).toEqual([
    ['load', 2],
    ['run', 30],
  ]);
  expect(formatVerification(v)).toMatch(/verified: no gap/);
});

test('a gap injected into a stored run is found, with its seconds', async () => {
  await storeRun(thirtySeconds().filter((s) => s.elapsedS < 10 || s.elapsedS > 14));
  const v = await verifyStoredRun(store, 'r1');
  expect(v.problems).toEqual(['c1 run: no sample from 10 s to 14 s']);
});

test('a gap the run explained (its client restarted, saying when its samples ended) is shown but not a problem', async () => {
  const restart = recorded('client-restart', 'run client restarted', 16, undefined, { detail: { lastStoredElapsedS: 9, withoutClientS: 7 } });
  await storeRun(
    thirtySeconds().filter((s) => s.elapsedS < 10 || s.elapsedS > 14),
    { events: [restart] },
  );
  const v = await verifyStoredRun(store, 'r1');
  expect(v.problems).toEqual([]);
  expect(v.checks[1].gaps).toEqual([{ afterS: 9, beforeS: 15, explainedBy: 'run client restarted at 16 s' }]);
});

test('a second stored twice with different values, and a value that is not a count, are problems', async () => {
  const samples = thirtySeconds();
  samples.push({ ...samples[4], okPerS: 999 });
  samples[7] = { ...samples[7], okPerS: Number.NaN };
  await storeRun(samples);
  const v = await verifyStoredRun(store, 'r1');
  expect(v.problems).toEqual(['c1 run: second 5 stored twice with different values', 'c1 run: second 8 holds a value that is not a count']);
});

test('streams of a cell never recorded: a corrupt middle line is a problem, a torn last line is not', async () => {
  await store.writeRun(runRecord('r2', [cell('c1', {}, [])], { status: 'running' }));
  await store.appendStream('r2', 'c1', 2, 'samples', okSeries([10, 10, 10]));
  const file = path.join(store.runDir('r2'), 'cells', 'c1.parts', '2.samples.jsonl');
  appendFileSync(file, '{"time": 1, "elaps\n');
  await store.appendStream('r2', 'c1', 2, 'samples', okSeries([10, 10, 10, 10]).slice(3));
  appendFileSync(file, '{"time": 2, "elapsedS": 5');
  const v = await verifyStoredRun(store, 'r2');
  expect(v.checks.map((c) => c.phase)).toEqual(['phase 2 (streamed, not recorded)']);
  expect(v.checks[0].unparsableLines).toEqual([
    { stream: 'samples', line: 4, last: false },
    { stream: 'samples', line: 6, last: true },
  ]);
  expect(v.problems).toEqual(['c1 phase 2 (streamed, not recorded): samples line 4 does not parse']);
});

test('a completed run missing a cell record is a problem', async () => {
  await store.writeRun(runRecord('r3', [cell('c1', {}, []), cell('c2', {}, [])], { status: 'completed' }));
  await store.writeCell('r3', cell('c1', {}, [phase('run', thirtySeconds())]));
  const v = await verifyStoredRun(store, 'r3');
  expect(v.problems).toEqual(["c2: the run completed but this cell's record is missing"]);
});
