/**
 * A checked history as the YCSB client writes it (ycsb/src/main/java/fragbench/ycsb/History.java,
 * CheckedDB.java): one record per operation, in end-time order within a file, every time in
 * microseconds since the epoch on the client host's clock. And what a value read says about the
 * write it came from (WriteMarker.java): `fbw:<client>.<seq>.<hash>;` at the start of every
 * value a checked write wrote, the hash being FNV-1a of `key/field`.
 */

interface Timed {
  /** Start, µs since the epoch (client clock). */
  s: number;
  /** End: when the operation returned to the client, µs. */
  e: number;
}

export interface OpenRecord {
  t: 'open';
  /** The client process's id, as in its markers. */
  c: string;
  at: number;
  e: number;
}

export interface CloseRecord {
  t: 'close';
  c: string;
  /** Writes the client attempted: every sequence number from 1 to this one was used. */
  writes: number;
  e: number;
}

export interface WriteRecord extends Timed {
  t: 'w';
  c: string;
  /** The write's sequence number in its client. */
  n: number;
  k: string;
  /** The fields written, each a register of its own. */
  f: string[];
  /** Acknowledged. A failed write (timed out, refused) may still have been applied. */
  ok: boolean;
  cause?: string;
}

export interface ReadRecord extends Timed {
  /** `r` a read of the workload, `f` one of the final read-back. */
  t: 'r' | 'f';
  k: string;
  /** The fields asked for; absent: all of them. */
  f?: string[];
  ok: boolean;
  /** Per field present in the answer: its marker's id, '' for a value without one. Absent fields are not listed. */
  v?: Record<string, string>;
  cause?: string;
}

export type HistoryRecord = OpenRecord | CloseRecord | WriteRecord | ReadRecord;

/** FNV-1a (32 bits) over the UTF-16 code units of `key/field`, as 8 hex digits: WriteMarker.registerHash. */
export function registerHash(key: string, field: string): string {
  const text = `${key}/${field}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The id a write's values carry: `<client>.<seq>`. */
export const writeId = (client: string, seq: number): string => `${client}.${seq}`;

/** What a value read says of its origin. */
export type SeenValue =
  /** Absent, or written without a marker (before the history began: the load phase). */
  | { kind: 'unmarked' }
  | { kind: 'write'; client: string; seq: number; id: string }
  /** Not a value any write made: a marker that does not parse, or one written for another register. */
  | { kind: 'corrupt'; text: string; why: string };

const MARKER_ID = /^([a-z0-9-]+)\.([1-9]\d*)\.([0-9a-f]{8})$/;

/** Reads a marker's id (`''` for no marker) as the value of register `key`/`field`. */
export function seenValue(marker: string | undefined, key: string, field: string): SeenValue {
  if (marker === undefined || marker === '') return { kind: 'unmarked' };
  const m = MARKER_ID.exec(marker);
  if (!m) return { kind: 'corrupt', text: marker, why: 'not a marker any write makes' };
  if (m[3] !== registerHash(key, field)) return { kind: 'corrupt', text: marker, why: `written for another key or field (hash ${m[3]})` };
  const seq = Number(m[2]);
  return { kind: 'write', client: m[1], seq, id: writeId(m[1], seq) };
}
