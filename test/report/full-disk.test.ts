/**
 * The results store on a disk that fills up: a real 256 KiB tmpfs mounted for this file (needs
 * root), filled by a file of its own. A write that does not fit fails as a StorageError that
 * names the file, says the disk is full and that nothing stored was lost, and it is true: what
 * was stored before reads back whole (no torn line, no temporary file, run.json as it was), a
 * phase's client is stopped at once, and `results verify` finds the run intact.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { waitFor } from '../../platform/wait';
import { StorageError } from '../../core/errors';
import type { Sample } from '../../core/samples';
import { YCSB_DEFAULTS } from '../../core/scenario';
import { ResultsStore } from '../../services/results/results-store';
import { runPhaseClient } from '../../services/ycsb/phase-client';
import { verifyStoredRun } from '../../report/verify';
import { cell, okSeries, runRecord } from './builders';

let mountPoint: string;
let store: ResultsStore;
const filler = () => path.join(mountPoint, 'filler');

beforeAll(async () => {
  mountPoint = mkdtempSync(path.join(tmpdir(), 'fb-full-disk-'));
  await runHost(['mount', '-t', 'tmpfs', '-o', 'size=256k', 'fb-test-full', mountPoint]);
});

afterAll(async () => {
  await runHost(['umount', mountPoint], { allowFailure: true });
  rmdirSync(mountPoint);
});

beforeEach(() => {
  store = new ResultsStore(path.join(mountPoint, 'results'));
});

afterEach(() => {
  rmSync(filler(), { force: true });
  rmSync(store.root, { recursive: true, force: true });
});

/** Takes every free byte of the tmpfs, as a run's neighbour on a shared disk might. */
function fillTheDisk(): void {
  const fd = openSync(filler(), 'a');
  const block = Buffer.alloc(4096, 'x');
  try {
    for (;;) writeSync(fd, block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

const samplesFile = (runId: string) => path.join(store.runDir(runId), 'cells', 'c1.parts', '0.samples.jsonl');

async function startRun(runId: string): Promise<void> {
  await store.writeRun(runRecord(runId, [cell('c1', {}, [])], { status: 'running' }));
}

test('an append that does not fit: a StorageError naming the file, the stream cut back to whole lines, the run verified intact', async () => {
  await startRun('r1');
  const series = okSeries(Array.from({ length: 40 }, () => 100));
  await store.appendStream('r1', 'c1', 0, 'samples', series.slice(0, 20));
  const before = statSync(samplesFile('r1')).size;
  fillTheDisk();

  // More than the slack left in the file's last page: part of it is written before the disk says no.
  const thrown = await store.appendStream('r1', 'c1', 0, 'samples', series.slice(20)).catch((err: unknown) => err);
  expect(thrown).toBeInstanceOf(StorageError);
  expect(thrown).toMatchObject({ code: 'ENOSPC', file: samplesFile('r1') });
  expect((thrown as Error).message).toBe(
    `the disk holding ${store.root} is full (ENOSPC): could not write ${samplesFile('r1')}. Nothing stored before this write was lost ` +
      '(`fragbench results verify <run>` checks it); free space on it, then run the scenario again ' +
      '(`fragbench reproduce <experiment> --resume <dir>` skips what a campaign finished).',
  );

  expect(statSync(samplesFile('r1')).size).toBe(before);
  expect(await store.readStreamLines('r1', 'c1', 0, 'samples')).toEqual({ records: series.slice(0, 20), unparsable: [] });
  const verified = await verifyStoredRun(store, 'r1');
  expect(verified.problems).toEqual([]);
  expect(verified.checks.map((c) => [c.phase, c.seconds, c.gaps.length])).toEqual([['phase 0 (streamed, not recorded)', 20, 0]]);

  // Space freed, the next append lands on a whole line: the stream goes on as if nothing happened.
  rmSync(filler());
  await store.appendStream('r1', 'c1', 0, 'samples', series.slice(20));
  expect(await store.readStreamLines('r1', 'c1', 0, 'samples')).toEqual({ records: series, unparsable: [] });
});

test('a record replaced on a full disk keeps its old content, and no temporary file holds the space', async () => {
  await startRun('r2');
  const old = await store.readRun('r2');
  fillTheDisk();
  const bigger = { ...old, settings: { note: 'x'.repeat(64 * 1024) } };
  const thrown = await store.writeRun(bigger).catch((err: unknown) => err);
  expect(thrown).toBeInstanceOf(StorageError);
  expect((thrown as Error).message).toMatch(/is full \(ENOSPC\): could not write .*\/r2\/run\.json\. Nothing stored before this write was lost/);
  expect(await store.readRun('r2')).toEqual(old);
  expect(readdirSync(store.runDir('r2')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});

test("a phase's client stops at once when its samples no longer fit, and what it stored is whole", async () => {
  await startRun('r3');
  const originMs = 1_800_000_000_000;
  const sample = (s: number): Sample => ({ ...okSeries([100], originMs)[0], time: originMs + s * 1000 });
  let stopped: unknown;
  let reported = 0;
  const run = async ({ onSample, signal }: { onSample?: (s: Sample) => void; signal?: AbortSignal }) => {
    // A client reporting one second per tick until it is stopped; the disk fills once its first five
    // seconds are on it (the store writes behind the client: on a loaded CI host none had reached the
    // disk 5 ms after the fifth, so the fill waits for them rather than for a time).
    for (let s = 1; !signal!.aborted; s++) {
      onSample?.(sample(s));
      reported = s;
      if (s === 5) {
        await waitFor(async () => (await store.readStreamLines<Sample>('r3', 'c1', 0, 'samples')).records.length >= 5, {
          what: 'the first five seconds to be stored',
          timeoutMs: 10_000,
          intervalMs: 5,
        });
        fillTheDisk();
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    stopped = signal!.reason;
    throw signal!.reason;
  };
  const input = {
    settings: { ...YCSB_DEFAULTS, operationCount: 1_000_000 },
    label: 'run',
    sink: { runId: 'r3', cellId: 'c1', phaseIndex: 0 },
    originMs,
  };
  const thrown = await runPhaseClient(input, { store, attempt: 1, run, now: () => originMs }).catch((err: unknown) => err);

  expect(thrown).toBeInstanceOf(StorageError);
  expect(stopped).toBe(thrown);
  const { records, unparsable } = await store.readStreamLines<Sample>('r3', 'c1', 0, 'samples');
  expect(unparsable).toEqual([]);
  const seconds = records.map((s) => s.elapsedS);
  expect(seconds).toEqual(Array.from({ length: seconds.length }, (_, i) => i + 1));
  expect(seconds.length).toBeGreaterThanOrEqual(5);
  expect(reported - seconds.length).toBeLessThan(50);
  expect((await verifyStoredRun(store, 'r3')).problems).toEqual([]);
});
