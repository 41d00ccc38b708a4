import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { totalsFromSamples } from '../../core/samples';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../../core/errors';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { ResultsStore, checkPathSegment, writeFileAtomic } from '../../services/results/results-store';
import * as activities from '../../activities/results';
import * as recording from '../../services/results/recording';
import { cell, okSeries, phase, runRecord, T0 } from './builders';
import { CANNOT_SEE, CHECK_MODEL, type ConsistencyCounts } from '../../core/consistency/consistency';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-report-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function inputErrorField(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.field;
    throw err;
  }
  return undefined;
}

async function rejectedField(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof InputError)) throw new Error(`expected an InputError, got ${String(err)}`);
  return err.field;
}

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temporary file behind', async () => {
    const file = path.join(dir, 'run.json');
    await writeFileAtomic(file, 'first');
    await writeFileAtomic(file, 'second');
    expect(readFileSync(file, 'utf8')).toBe('second');
    expect(readdirSync(dir)).toEqual(['run.json']);
  });

  it('keeps the old content when a write fails', async () => {
    const file = path.join(dir, 'run.json');
    await writeFileAtomic(file, 'good');
    await expect(writeFileAtomic(file, 42 as unknown as string)).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('good');
    expect(readdirSync(dir)).toEqual(['run.json']);
  });

  it('never lets a reader see half a file while writers race', async () => {
    const file = path.join(dir, 'cell.json');
    const big = (n: number) => JSON.stringify({ n, samples: Array.from({ length: 20_000 }, (_, i) => ({ i, ok: n })) });
    await writeFileAtomic(file, big(0));
    let writing = true;
    const writers = Promise.all(Array.from({ length: 12 }, (_, n) => writeFileAtomic(file, big(n + 1)))).finally(() => (writing = false));
    let reads = 0;
    while (writing) {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as { samples: unknown[] };
      expect(parsed.samples).toHaveLength(20_000);
      reads++;
    }
    await writers;
    expect(reads).toBeGreaterThan(0);
  });
});

describe('run ids', () => {
  it.each(['../escape', 'a/b', '.hidden', '', 'x'.repeat(129), 'with space'])('refuses %j, naming the field', (bad) => {
    expect(inputErrorField(() => checkPathSegment(bad, 'runId'))).toBe('runId');
  });

  it.each(['run-2025.05.12_1', 'A1', 'c03-redis-a-lsf0.4'])('accepts %j', (good) => {
    expect(checkPathSegment(good, 'runId')).toBe(good);
  });

  it('refuses a bad run id in every store path', () => {
    const store = new ResultsStore(dir);
    expect(inputErrorField(() => store.runDir('..'))).toBe('runId');
    expect(inputErrorField(() => store.reportDir('../etc'))).toBe('runId');
  });

  it('says which run is missing and how to list them', async () => {
    await expect(new ResultsStore(dir).readRun('nope')).rejects.toThrow(/no run "nope".*fragbench runs/);
  });
});

describe('results activities', () => {
  // The activities read the results directory from the environment at each call, as in the worker.
  const saved = process.env.FRAGBENCH_RESULTS_DIR;
  beforeEach(() => {
    process.env.FRAGBENCH_RESULTS_DIR = dir;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.FRAGBENCH_RESULTS_DIR;
    else process.env.FRAGBENCH_RESULTS_DIR = saved;
  });
  const cells = (): CellRecord[] => [
    cell('c1-lsf1', { database: 'redis', latencyScale: 1 }, [phase('run', okSeries([10, 10, 10]))]),
    cell('c2-lsf0.2', { database: 'redis', latencyScale: 0.2 }, [phase('run', okSeries([30, 30, 30], T0 + 10_000))]),
  ];

  it('refuses bad ids before writing anything', async () => {
    const record = runRecord('bad/id', []);
    expect(await rejectedField(activities.recordRunStart({ record }))).toBe('record.runId');
    expect(await rejectedField(activities.recordRunStart({ record: runRecord('ok', [], { cellIds: ['..'] }) }))).toBe('record.cellIds[0]');
    expect(await rejectedField(activities.recordCell({ runId: '../x', cell: cells()[0] }))).toBe('runId');
    expect(await rejectedField(activities.recordCell({ runId: 'ok', cell: { ...cells()[0], cellId: 'a/b' } }))).toBe('cell.cellId');
    expect(await rejectedField(activities.finishRun({ runId: '', status: 'completed', finishedAt: T0 }))).toBe('runId');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes run.json as running, and a retried start rewrites it, but another run with the same id is refused', async () => {
    const record: RunRecord = { ...runRecord('r1', []), status: 'completed' };
    const { dir: runDir } = await activities.recordRunStart({ record });
    expect(runDir).toBe(path.join(dir, 'r1'));
    expect((JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as RunRecord).status).toBe('running');
    await activities.recordRunStart({ record });
    expect(await rejectedField(activities.recordRunStart({ record: { ...record, startedAt: record.startedAt + 1 } }))).toBe('record.runId');
  });

  it('records cells (adding their ids, even from concurrent calls) and refuses cells of an unknown run', async () => {
    await activities.recordRunStart({ record: runRecord('r2', []) });
    const many = Array.from({ length: 6 }, (_, i) => ({ ...cells()[0], cellId: `c${i}` }));
    await Promise.all(many.map((c) => activities.recordCell({ runId: 'r2', cell: c })));
    const run = await new ResultsStore(dir).readRun('r2');
    expect([...run.cellIds].sort()).toEqual(many.map((c) => c.cellId));
    expect(readdirSync(path.join(dir, 'r2', 'cells')).sort()).toEqual(many.map((c) => `${c.cellId}.json`));
    expect(await rejectedField(activities.recordCell({ runId: 'ghost', cell: cells()[0] }))).toBe('runId');
  });

  it('joins the samples streamed while the cell ran (a second stored again replaces it) and computes the summary', async () => {
    await activities.recordRunStart({ record: runRecord('r5', []) });
    const [whole] = cells();
    const samples = whole.phases[0].samples;
    await activities.recordSamples({ runId: 'r5', cellId: whole.cellId, phaseIndex: 0, samples: samples.slice(0, 2) });
    // A retried activity stores its seconds again.
    await activities.recordSamples({ runId: 'r5', cellId: whole.cellId, phaseIndex: 0, samples: samples.slice(1, 2) });
    const withoutStored = { ...whole, phases: [{ ...whole.phases[0], samples: samples.slice(2) }] };
    const summary = await activities.recordCell({ runId: 'r5', cell: withoutStored });
    const stored = await new ResultsStore(dir).readCell('r5', whole.cellId);
    // No client summary came back for this phase: its totals are made from the samples.
    expect(stored).toEqual({ ...whole, phases: [{ ...whole.phases[0], totals: totalsFromSamples(samples) }] });
    expect(summary).toEqual(whole.summary);

    await activities.finishRun({ runId: 'r5', status: 'completed', finishedAt: T0 });
    expect(readdirSync(path.join(dir, 'r5', 'cells'))).toEqual([`${whole.cellId}.json`]);
  }, 60_000);

  it('a checked phase: its consistency seconds joined from their stream, the cell summed and judged, its histories kept when the run finishes', async () => {
    await activities.recordRunStart({ record: runRecord('r7', []) });
    const [whole] = cells();
    const store = new ResultsStore(dir);
    const history = await store.historyFile('r7', whole.cellId, 0, 'abc123');
    writeFileSync(history, '{"t":"open","c":"abc123","at":1,"e":1}\n');
    writeFileSync(`${history}.gz`, '');
    // The plain copy beside a whole .gz (a check stopped after gzipping): the .gz is the one read.
    expect(await store.historyFiles('r7', whole.cellId, [0])).toEqual([{ phaseIndex: 0, client: 'abc123', path: `${history}.gz` }]);
    expect(await store.historyFiles('r7', whole.cellId, [1])).toEqual([]);
    const counts: ConsistencyCounts = { reads: 10, writes: 8, stale: 2, corrupt: 0, lost: 1, failed: { timeout: 3 }, unjudged: 0 };
    const second = (elapsedS: number, over: Partial<ConsistencyCounts>) => ({ elapsedS, time: T0 + elapsedS * 1000, ...counts, ...over });
    const seconds = [second(1, { stale: 0, lost: 1, failed: { timeout: 3 } }), second(2, { lost: 0, failed: {} })];
    await store.writeStream('r7', whole.cellId, 0, 'consistency', seconds);
    // A retried check writes the same result again: the stream is replaced, not doubled.
    await store.writeStream('r7', whole.cellId, 0, 'consistency', seconds);
    const consistency = {
      model: CHECK_MODEL,
      cannotSee: CANNOT_SEE,
      verdict: 'lost acknowledged writes' as const,
      totals: counts,
      readBack: { keys: 4, failed: 0, registers: 4, unverified: 0 },
      history: { clients: 1, missing: [], records: 21, unparsable: 0 },
      examples: [],
      seconds: [],
    };
    const summary = await activities.recordCell({ runId: 'r7', cell: { ...whole, phases: [{ ...whole.phases[0], consistency }] } });
    expect(summary.consistency).toMatchObject({ verdict: 'lost acknowledged writes', phases: ['run'], totals: counts });
    const stored = await store.readCell('r7', whole.cellId);
    expect(stored.phases[0].consistency?.seconds).toEqual(seconds);
    await activities.finishRun({ runId: 'r7', status: 'completed', finishedAt: T0 });
    expect(readdirSync(path.join(dir, 'r7', 'cells')).sort()).toEqual([`${whole.cellId}.history`, `${whole.cellId}.json`]);
  }, 60_000);

  it('skips a torn last line (a writer killed mid-line) and refuses a bad phase index', async () => {
    await activities.recordRunStart({ record: runRecord('r6', []) });
    const [whole] = cells();
    const samples = whole.phases[0].samples;
    await activities.recordSamples({ runId: 'r6', cellId: whole.cellId, phaseIndex: 0, samples: samples.slice(0, 2) });
    appendFileSync(path.join(dir, 'r6', 'cells', `${whole.cellId}.parts`, '0.samples.jsonl'), '{"time":1,"elaps');
    expect(await new ResultsStore(dir).readSampleStream('r6', whole.cellId, 0)).toEqual(samples.slice(0, 2));
    expect(await rejectedField(activities.recordSamples({ runId: 'r6', cellId: whole.cellId, phaseIndex: -1, samples: [] }))).toBe('phaseIndex');
  });

  it('finishes a run: status and time recorded, normalization completed, report written and its path returned', async () => {
    const [reference, fast] = cells();
    await activities.recordRunStart({ record: runRecord('r3', [fast, reference]) });
    // The engine records the 0.2 cell before its reference exists: no normalized value yet.
    await activities.recordCell({ runId: 'r3', cell: fast });
    await activities.recordCell({ runId: 'r3', cell: reference });
    expect((await new ResultsStore(dir).readCell('r3', fast.cellId)).summary.normalizedThroughput).toBeUndefined();

    const { reportPath } = await activities.finishRun({ runId: 'r3', status: 'completed', finishedAt: T0 + 60_000 });
    const store = new ResultsStore(dir);
    const run = await store.readRun('r3');
    expect(run.status).toBe('completed');
    expect(run.finishedAt).toBe(T0 + 60_000);
    expect((await store.readCell('r3', fast.cellId)).summary.normalizedThroughput).toBe(3);
    expect(reportPath).toBe(path.join(dir, 'r3', 'report', 'index.html'));
    expect(readFileSync(reportPath, 'utf8')).toContain('<svg');
  }, 60_000);

  it('leaves the report to the caller: the recording service finishes the records and renders nothing', async () => {
    const [reference, fast] = cells();
    const store = new ResultsStore(dir);
    await recording.recordRunStart(store, runRecord('r7', [fast, reference]));
    await recording.recordCell(store, 'r7', fast);
    await recording.recordCell(store, 'r7', reference);
    await recording.finishRun(store, 'r7', 'cancelled', T0 + 1_000);
    expect((await store.readRun('r7')).status).toBe('cancelled');
    expect((await store.readCell('r7', fast.cellId)).summary.normalizedThroughput).toBe(3);
    expect(existsSync(store.reportDir('r7'))).toBe(false);
  });

  it('finishes a failed run that recorded no cell with a report that says so', async () => {
    await activities.recordRunStart({ record: runRecord('r4', [], { cellIds: ['c1', 'c2'] }) });
    const { reportPath } = await activities.finishRun({ runId: 'r4', status: 'failed', finishedAt: T0 });
    const html = readFileSync(reportPath, 'utf8');
    expect(html).toContain('2 of 2 planned cells have no results (run failed)');
    expect(html).not.toContain('<svg');
  });

  it('lists runs newest first and skips directories that are not runs', async () => {
    const store = new ResultsStore(dir);
    await store.writeRun(runRecord('old', [], { startedAt: T0 }));
    await store.writeRun(runRecord('new', [], { startedAt: T0 + 1 }));
    mkdirSync(path.join(dir, 'junk'));
    writeFileSync(path.join(dir, 'notes.txt'), 'x');
    expect((await store.listRuns()).map((r) => r.runId)).toEqual(['new', 'old']);
    expect(await new ResultsStore(path.join(dir, 'missing')).listRuns()).toEqual([]);
    expect(existsSync(path.join(dir, 'missing'))).toBe(false);
  });
});
