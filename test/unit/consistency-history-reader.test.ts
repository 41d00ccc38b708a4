/**
 * The history reader: files merged in end-time order, gzipped ones read alike, a torn last line
 * counted and skipped; and a large synthetic history (two clients, 300,000 operations,
 * tens of MB on disk) streamed through the register check with the heap staying flat.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { RegisterChecker } from '../../core/consistency/register-check';
import type { HistoryRecord } from '../../core/consistency/history';
import { gzipHistory, mergeHistories, readHistory, type ReadCounts } from '../../services/consistency/history-reader';
import { T0_MS, close, marker, open, read, write } from '../support/history-builder';

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'fb-history-reader-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (records: HistoryRecord[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');

async function all(stream: AsyncIterable<HistoryRecord>): Promise<HistoryRecord[]> {
  const out: HistoryRecord[] = [];
  for await (const r of stream) out.push(r);
  return out;
}

test('merges clients in end-time order, reads gzipped files, and skips a torn last line', async () => {
  const a = path.join(dir, '3.a.jsonl');
  const b = path.join(dir, '3.b.jsonl');
  writeFileSync(a, lines([open('a', 0), write('a', 1, 'k1', 1, 5), read('k1', 6, 20, {}), close('a', 1, 30)]) + '{"t":"w","c":"a","n":2,"k');
  writeFileSync(b, lines([open('b', 0), write('b', 1, 'k1', 2, 10), write('b', 2, 'k2', 11, 20)]));
  const gz = await gzipHistory(b);
  expect(gz).toBe(`${b}.gz`);
  expect(() => statSync(b)).toThrow();
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  const merged = await all(mergeHistories([a, gz], counts));
  expect(merged.map((r) => `${r.t}${'c' in r ? r.c : ''}@${(r.e / 1000 - T0_MS).toFixed(0)}`)).toEqual([
    'opena@0',
    'openb@0',
    'wa@5',
    'wb@10',
    // At one end time, a write comes before a read: the read may have seen it.
    'wb@20',
    'r@20',
    'closea@30',
  ]);
  expect(counts).toEqual({ records: 7, unparsable: 1 });
});

/** Writes `n` operations of one client to `file` as a stream, as the Java client would: never all in memory. */
async function synthesize(file: string, client: string, n: number, offsetMs: number): Promise<void> {
  const out = createWriteStream(file);
  const put = async (record: HistoryRecord) => {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  };
  await put(open(client, 0));
  for (let i = 1; i <= n; i++) {
    const at = offsetMs + i * 2;
    // Even: a write; odd: a read of the key the write before it wrote, seeing that write.
    if (i % 2 === 0) await put(write(client, i, `user${i % 1000}`, at, at + 1));
    else {
      const key = `user${(i - 1) % 1000}`;
      await put(read(key, at, at + 1, i === 1 ? {} : { field0: marker(client, i - 1, key), field1: '' }));
    }
  }
  await put(close(client, n, offsetMs + n * 2 + 10));
  out.end();
  await once(out, 'finish');
}

test('a long history streams through the check with the heap flat', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const files = [path.join(dir, '5.one.jsonl'), path.join(dir, '5.two.jsonl')];
  const perClient = 150_000;
  await synthesize(files[0], 'one', perClient, 0);
  await synthesize(files[1], 'two', perClient, 1);
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  expect(bytes).toBeGreaterThan(25e6);

  const checker = new RegisterChecker({ originMs: T0_MS, clients: ['one', 'two'], maxOperationUs: 2_000_000 });
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  const heap: number[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for await (const record of mergeHistories(files, counts)) {
    checker.add(record);
    if (counts.records % 100_000 === 0) {
      gc();
      heap.push(process.memoryUsage().heapUsed);
    }
  }
  const result = checker.result();
  expect(counts).toEqual({ records: 2 * perClient + 4, unparsable: 0 });
  expect(result.totals.writes).toBe(perClient);
  expect(result.totals.reads).toBe(perClient);
  expect(result.totals).toMatchObject({ stale: 0, corrupt: 0 });
  // The run's 300,000 operations (tens of MB) against a thousand keys: what is held is the
  // registers and the writes still in flight, not the history read so far.
  const grewMb = (Math.max(...heap) - before) / 1e6;
  const fromFirstSampleMb = (heap.at(-1)! - heap[0]) / 1e6;
  expect({ grewMb, fromFirstSampleMb, within: grewMb < 15 && fromFirstSampleMb < 5 }).toMatchObject({ within: true });
  expect(checker.retainedWrites()).toBeLessThan(5_000);
}, 120_000);

test('one file alone reads in its order', async () => {
  const file = path.join(dir, '7.c.jsonl');
  writeFileSync(file, lines([open('c'), write('c', 1, 'k', 0, 3), write('c', 2, 'k', 1, 2)]));
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  expect((await all(readHistory(file, counts))).map((r) => r.t)).toEqual(['open', 'w', 'w']);
});
