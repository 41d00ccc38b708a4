/**
 * Hand-made checked histories, in the records the YCSB client writes (core/consistency/history.ts):
 * times given in ms from T0 become µs since the epoch; values are marked as WriteMarker marks them.
 */
import { registerHash, type HistoryRecord, type ReadRecord, type WriteRecord } from '../../core/consistency/history';

export const T0_MS = 1_795_000_000_000;
const us = (ms: number) => (T0_MS + ms) * 1000;

/** The marker id a write of `client` number `seq` leaves in `key`/`field`. */
export const marker = (client: string, seq: number, key: string, field = 'field0') => `${client}.${seq}.${registerHash(key, field)}`;

export const open = (client: string, atMs = 0): HistoryRecord => ({ t: 'open', c: client, at: us(atMs), e: us(atMs) });
export const close = (client: string, writes: number, atMs: number): HistoryRecord => ({ t: 'close', c: client, writes, e: us(atMs) });

export function write(
  client: string,
  seq: number,
  key: string,
  startMs: number,
  endMs: number,
  options: { fields?: string[]; cause?: string } = {},
): WriteRecord {
  return {
    t: 'w',
    c: client,
    n: seq,
    k: key,
    f: options.fields ?? ['field0'],
    s: us(startMs),
    e: us(endMs),
    ok: options.cause === undefined,
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  };
}

/** A read that returned `seen` (field -> marker id, '' for an unmarked value; absent fields left out). */
export function read(key: string, startMs: number, endMs: number, seen: Record<string, string>, type: 'r' | 'f' = 'r'): ReadRecord {
  return { t: type, k: key, s: us(startMs), e: us(endMs), ok: true, v: seen };
}

export function failedRead(key: string, startMs: number, endMs: number, cause: string, type: 'r' | 'f' = 'r'): ReadRecord {
  return { t: type, k: key, s: us(startMs), e: us(endMs), ok: false, cause };
}
