/**
 * Turns YCSB's intervals into one sample per second, with no gaps, whose totals equal YCSB's
 * final summary.
 *
 * The intervals are the status lines' blocks (counts and mean latency per measurement, cut at
 * the status line's time). Their p95/p99 come from the FRAGBENCH-INTERVAL line of the same cut:
 * YCSB cuts and logs one histogram per measurement for each status line that shows a block for
 * it, so the n-th block of READ and the n-th READ interval line are the same cut. (The interval
 * lines' own timestamps are not used for placing: under load YCSB's status thread takes up to
 * hundreds of ms to go through the measurements, and the status line's time is the tick.)
 *
 * Time base: YCSB's status thread ticks every second from its start (the origin); grid second k
 * is ((k-1)s, ks] after it. The thread starts before the client threads connect, so the seconds
 * before FRAGBENCH-READY (the first thread connected) are client start-up and are not samples:
 * the sample with elapsedS 1 is the grid second in which the client became ready. A sample's
 * `time` is the end of its second on the wall clock of the host running the activity.
 *
 * A status line is printed a few ms after its tick; under load it can be late by more, so one
 * interval spans two seconds and the next is short. So:
 * - an interval end within SNAP_MS of a whole second is taken as that second;
 * - an interval spanning several seconds is shared among them in proportion to its overlap
 *   with each (whole operations, largest remainder, so nothing is lost or invented);
 * - an interval of zero length after snapping (a doubled status line, or the final line just after
 *   a whole second) goes to the second it ends in;
 * - the final partial second (after the last whole-second line) is a sample of its own;
 * - a second with no operation in any interval is a sample of zeros.
 * When two intervals meet in one second, its p95/p99 are the larger of theirs: an upper bound,
 * since no set of operations has more than 5% above the larger of two sets' p95s.
 */
import type { OpSample, OpType, RunSeries, RunTotals, Sample } from '../../core/samples';
import { measurementOp, type IntervalLine, type StatusLine } from './output';

const TICK_MS = 1000;
const SNAP_MS = 250;

/** A status line and when this host received it. */
export interface ReceivedStatus {
  line: StatusLine;
  receivedAt: number;
}

/** What YCSB printed so far, as the runner collected it. */
export interface YcsbOutput {
  statuses: ReceivedStatus[];
  intervals: IntervalLine[];
  /** FRAGBENCH-READY, client clock; absent in output from a client that does not print it. */
  readyMs?: number;
}

/**
 * One measurement's operations between two status lines: startMs is the previous line's time
 * (the same as endMs for the first line), endMs this line's, both on the client's clock.
 */
export type Span = Omit<IntervalLine, 'kind'>;

/** Where the grid is and which part of it makes the samples. */
interface Timeline {
  /** YCSB's status thread start, client clock. */
  originMs: number;
  /** This host's clock minus the client's. */
  offsetMs: number;
  /** Ms after the origin before which nothing is counted (the client was not connected). */
  readyRel: number;
  /** The grid second that is sample 1. */
  firstSecond: number;
}

interface OpBin {
  ok: number;
  failed: number;
  /** Sum of count x average latency over the ok parts, for the weighted mean. */
  latencyWeight: number;
  p95: number;
  p99: number;
}

type Bins = Map<number, Map<OpType, OpBin>>;

function timeline(output: YcsbOutput): Timeline {
  const { statuses } = output;
  if (statuses.length === 0) throw new Error('YCSB printed no status line (was it run with -s?)');
  // Every line is printed at or after origin + its whole seconds: the earliest estimate is the closest.
  const originMs = Math.min(...statuses.map((s) => s.line.timeMs - s.line.elapsedSec * TICK_MS));
  // The least-delayed line tells the clocks' difference best.
  const offsetMs = Math.min(...statuses.map((s) => s.receivedAt - s.line.timeMs));
  const readyRel = Math.max(0, (output.readyMs ?? originMs) - originMs);
  return { originMs, offsetMs, readyRel, firstSecond: Math.floor(readyRel / TICK_MS) + 1 };
}

function snap(relativeMs: number): number {
  const tick = Math.round(relativeMs / TICK_MS) * TICK_MS;
  return Math.abs(relativeMs - tick) <= SNAP_MS ? tick : relativeMs;
}

/** Splits `count` over weights into whole numbers that add up to count exactly. */
export function apportion(count: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (total <= 0) return weights.map((_, i) => (i === weights.length - 1 ? count : 0));
  const exact = weights.map((w) => (count * w) / total);
  const shares = exact.map(Math.floor);
  let left = count - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left === 0) break;
    shares[i]++;
    left--;
  }
  return shares;
}

/**
 * Pairs each status block with the interval line of the same cut. Interval lines left over at the
 * end are YCSB's last cut, made when it exports its summary after the final status line: they
 * are placed at the final line. A block without its interval line (the client was killed before
 * printing it) takes the status line's p99 as its p95, an upper bound.
 */
export function spans(statuses: ReceivedStatus[], intervals: IntervalLine[]): Span[] {
  const byMeasurement = new Map<string, IntervalLine[]>();
  for (const i of intervals) {
    if (!byMeasurement.has(i.measurement)) byMeasurement.set(i.measurement, []);
    byMeasurement.get(i.measurement)!.push(i);
  }
  const used = new Map<string, number>();
  const out: Span[] = [];
  statuses.forEach(({ line }, j) => {
    const startMs = j === 0 ? line.timeMs : statuses[j - 1].line.timeMs;
    for (const [measurement, block] of Object.entries(line.blocks)) {
      const n = used.get(measurement) ?? 0;
      used.set(measurement, n + 1);
      const cut = byMeasurement.get(measurement)?.[n];
      const same = cut !== undefined && cut.count === block.count;
      out.push({
        measurement,
        startMs,
        endMs: line.timeMs,
        count: block.count,
        avgUs: block.avgUs,
        p95Us: same ? cut.p95Us : block.p99Us,
        p99Us: same ? cut.p99Us : block.p99Us,
      });
    }
  });
  const finalMs = statuses.length > 0 ? statuses[statuses.length - 1].line.timeMs : 0;
  for (const [measurement, cuts] of byMeasurement) {
    for (const cut of cuts.slice(used.get(measurement) ?? 0)) {
      out.push({ ...cut, startMs: finalMs, endMs: finalMs });
    }
  }
  return out;
}

/** The grid seconds a span covers and how many of its operations each one gets. */
function spread(span: Span, t: Timeline): { second: number; count: number }[] {
  // No operation completes before the client is ready: a long first interval starts there.
  const start = Math.max(t.readyRel, snap(span.startMs - t.originMs));
  const end = Math.max(start, snap(span.endMs - t.originMs));
  if (end === start) return [{ second: Math.max(t.firstSecond, Math.ceil(end / TICK_MS)), count: span.count }];
  const seconds: number[] = [];
  const overlaps: number[] = [];
  for (let k = Math.floor(start / TICK_MS) + 1; (k - 1) * TICK_MS < end; k++) {
    seconds.push(k);
    overlaps.push(Math.min(end, k * TICK_MS) - Math.max(start, (k - 1) * TICK_MS));
  }
  const counts = apportion(span.count, overlaps);
  return seconds.map((second, i) => ({ second, count: counts[i] }));
}

function binAll(all: Span[], t: Timeline): Bins {
  const bins: Bins = new Map();
  for (const span of all) {
    const kind = measurementOp(span.measurement);
    if (!kind || span.count === 0) continue;
    for (const { second, count } of spread(span, t)) {
      if (!bins.has(second)) bins.set(second, new Map());
      const perOp = bins.get(second)!;
      const bin = perOp.get(kind.op) ?? { ok: 0, failed: 0, latencyWeight: 0, p95: 0, p99: 0 };
      perOp.set(kind.op, bin);
      if (kind.failed) {
        bin.failed += count;
      } else if (count > 0) {
        bin.ok += count;
        bin.latencyWeight += count * span.avgUs;
        bin.p95 = Math.max(bin.p95, span.p95Us);
        bin.p99 = Math.max(bin.p99, span.p99Us);
      }
    }
  }
  return bins;
}

function opSample(bin: OpBin | undefined): OpSample {
  if (!bin || bin.ok === 0) return { ok: 0, failed: bin?.failed ?? 0, latencyUs: null };
  return {
    ok: bin.ok,
    failed: bin.failed,
    latencyUs: { avg: Math.round((bin.latencyWeight / bin.ok) * 100) / 100, p95: bin.p95, p99: bin.p99 },
  };
}

/**
 * READ-MODIFY-WRITE is YCSB's timing of a read plus an update that are also counted as READ and
 * UPDATE: it is reported per type but left out of the per-second sums, so those count database
 * operations once.
 */
function summed(ops: Sample['ops']): { okPerS: number; failedPerS: number } {
  let okPerS = 0;
  let failedPerS = 0;
  for (const [op, s] of Object.entries(ops) as [OpType, OpSample][]) {
    if (op === 'READ-MODIFY-WRITE') continue;
    okPerS += s.ok;
    failedPerS += s.failed;
  }
  return { okPerS, failedPerS };
}

function sampleFor(bins: Bins, second: number, opTypes: OpType[], t: Timeline): Sample {
  const perOp = bins.get(second);
  const ops: Sample['ops'] = {};
  for (const op of opTypes) ops[op] = opSample(perOp?.get(op));
  return {
    time: t.originMs + t.offsetMs + second * TICK_MS,
    elapsedS: second - t.firstSecond + 1,
    ops,
    ...summed(ops),
  };
}

function opTypesOf(all: Span[]): OpType[] {
  const seen = new Set<OpType>();
  for (const span of all) {
    const kind = measurementOp(span.measurement);
    if (kind && span.count > 0) seen.add(kind.op);
  }
  return [...seen];
}

/**
 * The latest second that is complete: the one before the newest status line's. Used for
 * heartbeats while YCSB runs; null before the first whole second, and null until FRAGBENCH-READY
 * has come: until then the seconds of the client's start cannot be told from the database's, so a
 * second placed then would sit where the final series has none (under load a JVM's status lines
 * came before its READY: a restarted client streamed phase second 9, then 11 on, its final series
 * began at 11, and 10 was missing from the record).
 */
export function latestSample(output: YcsbOutput): Sample | null {
  if (output.statuses.length < 2 || output.readyMs === undefined) return null;
  const t = timeline(output);
  const newest = output.statuses[output.statuses.length - 1].line;
  const second = Math.round((newest.timeMs - t.originMs) / TICK_MS) - 1;
  if (second < t.firstSecond) return null;
  // Only the newest lines can reach that second; interval lines are paired from the start.
  const all = spans(output.statuses, output.intervals).filter((s) => s.endMs >= t.originMs + (second - 1) * TICK_MS - SNAP_MS);
  return sampleFor(binAll(all, t), second, opTypesOf(all), t);
}

/** The whole series, checked against (and completed from) YCSB's final summary. */
export function buildSeries(output: YcsbOutput, totals: RunTotals): RunSeries {
  const t = timeline(output);
  const all = spans(output.statuses, output.intervals);
  const bins = binAll(all, t);
  const last = output.statuses[output.statuses.length - 1].line;
  const lastSecond = Math.max(t.firstSecond, ...bins.keys(), Math.ceil(Math.max(0, snap(last.timeMs - t.originMs)) / TICK_MS));
  const opTypes = Object.keys(totals.ops) as OpType[];
  for (const op of opTypesOf(all)) if (!opTypes.includes(op)) opTypes.push(op);
  const samples: Sample[] = [];
  for (let k = t.firstSecond; k <= lastSecond; k++) samples.push(sampleFor(bins, k, opTypes, t));
  reconcile(samples, totals);
  return { samples, totals };
}

/**
 * Makes the samples add up to the summary. Blocks, interval lines and summary come from the same
 * histograms, so they agree unless a line was lost (e.g. the client was killed between cutting
 * its last histogram and printing it); what is missing is put in the last second, where it
 * happened.
 */
function reconcile(samples: Sample[], totals: RunTotals): void {
  const last = samples[samples.length - 1];
  for (const [op, total] of Object.entries(totals.ops) as [OpType, NonNullable<RunTotals['ops'][OpType]>][]) {
    const ok = samples.reduce((n, s) => n + (s.ops[op]?.ok ?? 0), 0);
    const failed = samples.reduce((n, s) => n + (s.ops[op]?.failed ?? 0), 0);
    if (ok > total.ok || failed > total.failed) {
      throw new Error(`YCSB intervals count more ${op} operations than its summary (ok ${ok} > ${total.ok} or failed ${failed} > ${total.failed})`);
    }
    const target = (last.ops[op] ??= { ok: 0, failed: 0, latencyUs: null });
    target.ok += total.ok - ok;
    target.failed += total.failed - failed;
  }
  Object.assign(last, summed(last.ops));
}
