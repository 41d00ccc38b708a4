/**
 * Reads checked histories as streams: one record at a time from a file (plain or gzipped), and
 * several clients' files merged into one stream in end-time order, which is what the register
 * check takes. Nothing is held but a line per file: a 30-minute history is never in memory.
 */
import { createReadStream, promises as fs } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import type { HistoryRecord } from '../../core/consistency/history';

/** What reading found besides records. */
export interface ReadCounts {
  records: number;
  /** Lines that are not records: a client killed mid-line leaves its last one torn. */
  unparsable: number;
}

const TYPES = new Set(['open', 'close', 'w', 'r', 'f']);

/** A line as a record, or undefined when it is not one. */
export function parseHistoryLine(line: string): HistoryRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<HistoryRecord>;
  return typeof record.t === 'string' && TYPES.has(record.t) && typeof record.e === 'number' ? (record as HistoryRecord) : undefined;
}

/** Records of a stream of lines, e.g. a client's stdout or a file. */
export async function* historyRecords(lines: AsyncIterable<string>, counts: ReadCounts): AsyncGenerator<HistoryRecord> {
  for await (const line of lines) {
    if (line.length === 0) continue;
    const record = parseHistoryLine(line);
    if (record) {
      counts.records++;
      yield record;
    } else {
      counts.unparsable++;
    }
  }
}

function fileLines(file: string): AsyncIterable<string> {
  const raw = createReadStream(file);
  const input: Readable = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  raw.once('error', (err) => input.destroy(err));
  return createInterface({ input, crlfDelay: Infinity });
}

/** One file's records in the order written (its client's end-time order). */
export function readHistory(file: string, counts: ReadCounts): AsyncGenerator<HistoryRecord> {
  return historyRecords(fileLines(file), counts);
}

/** At equal end times: a client's open first and its close last, writes before reads (a read may have seen them). */
const TIE_ORDER: Record<HistoryRecord['t'], number> = { open: 0, w: 1, r: 2, f: 3, close: 4 };

async function nextOf(reader: AsyncGenerator<HistoryRecord>): Promise<HistoryRecord | undefined> {
  const next = await reader.next();
  return next.done ? undefined : next.value;
}

/** Several files' records as one stream in end-time order (each file is in that order already). */
export async function* mergeHistories(files: string[], counts: ReadCounts): AsyncGenerator<HistoryRecord> {
  const readers = files.map((file) => readHistory(file, counts));
  const heads = await Promise.all(readers.map(nextOf));
  for (;;) {
    let next = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (!head) continue;
      const best = next < 0 ? undefined : heads[next]!;
      if (!best || head.e < best.e || (head.e === best.e && TIE_ORDER[head.t] < TIE_ORDER[best.t])) next = i;
    }
    if (next < 0) return;
    yield heads[next]!;
    heads[next] = await nextOf(readers[next]);
  }
}

/** Replaces a checked history by its gzipped copy (a tenth of its size), the plain file removed only once the copy is whole. */
export async function gzipHistory(file: string): Promise<string> {
  if (file.endsWith('.gz')) return file;
  const target = `${file}.gz`;
  const temp = `${target}.${process.pid}.tmp`;
  try {
    await pipeline(createReadStream(file), createGzip(), createWriteStream(temp));
    await fs.rename(temp, target);
  } finally {
    await fs.rm(temp, { force: true });
  }
  await fs.rm(file, { force: true });
  return target;
}
