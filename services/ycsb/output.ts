/**
 * Parses what the YCSB client (ycsb/ fragbench.ycsb.Main around site.ycsb.Client) prints on
 * stderr, one line at a time:
 * - YCSB's status line, once a second with `-s -p status.interval=1`:
 *   `2026-11-21 09:39:04:459 1 sec: 28388 operations; 28388 current ops/sec; ... [READ: Count=14317,
 *   Max=27663, Min=21, Avg=115.76, 90=162, 99=629, 99.9=2291, 99.99=27663] [READ-FAILED: ...]`
 *   The time is the JVM's clock (the client runs with -Duser.timezone=UTC); `1 sec` is whole seconds
 *   since the status thread started; the operation count is cumulative, the [..] blocks cover the
 *   interval since the previous line. YCSB 0.17 prints p90 and p99 here, not p95.
 * - FRAGBENCH-INTERVAL: the same intervals decoded from YCSB's histogram logs, with exact start and
 *   end (ms) and p95/p99. These are what samples are built from.
 * - FRAGBENCH-PID: the client's PID, to stop it on another host.
 * - FRAGBENCH-READY: when the first client thread had connected (client clock, ms).
 * - FRAGBENCH-CPU-READY: the CPU time the JVM had used when it became ready (its start), ms.
 * - FRAGBENCH-CPU: the CPU time the client's JVM used in all, ms, printed as it exits.
 */
import type { OpType } from '../../core/samples';

export interface StatusBlock {
  count: number;
  avgUs: number;
  p90Us: number;
  p99Us: number;
}

export interface StatusLine {
  kind: 'status';
  /** Epoch ms on the client's clock. */
  timeMs: number;
  /** Whole seconds since YCSB's status thread started. */
  elapsedSec: number;
  /** Operations completed so far (ok and failed; a read-modify-write counts once). */
  totalOps: number;
  /** Per measurement name (READ, READ-FAILED, CLEANUP...), for the interval since the previous line. */
  blocks: Record<string, StatusBlock>;
}

export interface IntervalLine {
  kind: 'interval';
  /** Measurement name, e.g. READ or UPDATE-FAILED. */
  measurement: string;
  startMs: number;
  endMs: number;
  count: number;
  avgUs: number;
  p95Us: number;
  p99Us: number;
}

export type YcsbLine =
  | StatusLine
  | IntervalLine
  | { kind: 'pid'; pid: number }
  | { kind: 'ready'; timeMs: number }
  | { kind: 'cpu'; cpuMs: number }
  | { kind: 'cpu-ready'; cpuMs: number }
  | { kind: 'other'; text: string };

const STATUS = /^(?:.*?)(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d):(\d{3}) (\d+) sec: (\d+) operations;(.*)$/;
const BLOCK = /\[([A-Z][A-Z0-9_-]*): ([^\]]*)\]/g;
const INTERVAL = /^FRAGBENCH-INTERVAL op=(\S+) startMs=(\d+) endMs=(\d+) count=(\d+) avgUs=([\d.]+) p95Us=(\d+) p99Us=(\d+)$/;
const PID = /^FRAGBENCH-PID (\d+)$/;
const READY = /^FRAGBENCH-READY (\d+)$/;
const CPU = /^FRAGBENCH-CPU(-READY)? (\d+)$/;

export function parseYcsbLine(line: string): YcsbLine {
  const text = line.trimEnd();
  let m = INTERVAL.exec(text);
  if (m) {
    return {
      kind: 'interval',
      measurement: m[1],
      startMs: Number(m[2]),
      endMs: Number(m[3]),
      count: Number(m[4]),
      avgUs: Number(m[5]),
      p95Us: Number(m[6]),
      p99Us: Number(m[7]),
    };
  }
  m = PID.exec(text);
  if (m) return { kind: 'pid', pid: Number(m[1]) };
  m = READY.exec(text);
  if (m) return { kind: 'ready', timeMs: Number(m[1]) };
  m = CPU.exec(text);
  if (m) return { kind: m[1] ? 'cpu-ready' : 'cpu', cpuMs: Number(m[2]) };
  m = STATUS.exec(text);
  if (m) {
    const [y, mo, d, h, mi, s, ms] = m.slice(1, 8).map(Number);
    return {
      kind: 'status',
      timeMs: Date.UTC(y, mo - 1, d, h, mi, s, ms),
      elapsedSec: Number(m[8]),
      totalOps: Number(m[9]),
      blocks: parseBlocks(m[10]),
    };
  }
  return { kind: 'other', text };
}

function parseBlocks(rest: string): Record<string, StatusBlock> {
  const blocks: Record<string, StatusBlock> = {};
  for (const b of rest.matchAll(BLOCK)) {
    const fields = new Map(
      b[2].split(',').map((pair) => {
        const [k, v] = pair.trim().split('=');
        return [k, Number(v)] as const;
      }),
    );
    blocks[b[1]] = {
      count: fields.get('Count') ?? 0,
      avgUs: fields.get('Avg') ?? 0,
      p90Us: fields.get('90') ?? 0,
      p99Us: fields.get('99') ?? 0,
    };
  }
  return blocks;
}

const OP_TYPES: readonly OpType[] = ['READ-MODIFY-WRITE', 'READ', 'UPDATE', 'INSERT', 'SCAN', 'DELETE'];

/**
 * What a measurement name counts: `READ` → ok reads, `READ-FAILED` (or `READ-<status>` when YCSB
 * tracks error codes separately) → failed reads. Null for YCSB's own measurements (CLEANUP...).
 */
export function measurementOp(name: string): { op: OpType; failed: boolean } | null {
  const exact = OP_TYPES.find((op) => op === name);
  if (exact) return { op: exact, failed: false };
  // Longest prefix first: READ-MODIFY-WRITE-FAILED is a failed read-modify-write, not a read.
  const prefix = OP_TYPES.find((op) => name.startsWith(`${op}-`));
  return prefix ? { op: prefix, failed: true } : null;
}
