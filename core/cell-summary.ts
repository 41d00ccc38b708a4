/**
 * A cell's summary from its recorded phases: the numbers every table and heading quotes. Pure
 * functions of the record (no I/O, no clock), so the engine's workflows compute summaries with
 * exactly this code and the report recomputes nothing differently.
 *
 * Definitions (over the measured phases: every phase but flush and load, see cell-timeline.ts):
 * - throughput: successful operations / seconds with a sample (samples of overlapping phases,
 *   such as a ramped client's, add up within their second);
 * - error %: failed / (ok + failed) operations x 100 (0 when there were none);
 * - average latency per operation type: each second's average weighted by its ok count;
 * - zero seconds: samples with no successful operation;
 * - bytes: per node pair, the growth of the cumulative WireGuard counters over each phase (last
 *   matrix minus first; a phase with a single matrix counts its values as they are);
 * - normalized throughput / bytes: this cell's value / the reference cell's (see cell-reference.ts).
 *
 * Settle time after a resize (SETTLE_RULE): a resize changes capacity, so throughput does not
 * return to its old level; it settles at a new one. The new level is the median throughput of
 * the last `levelSeconds` before the next disturbing event (or the end of the run), or of the
 * second half of that window when it is shorter than 2 x levelSeconds. The cell has settled at
 * the start of the first second from which throughput stays within the band around that level
 * for `holdSeconds` consecutive seconds; the settle time is that moment minus the moment the
 * resize was requested. The band is +-tolerance of the level, but never narrower than two
 * standard deviations of the throughput within the level window itself (the noise of the new
 * steady state: a band narrower than that would call a settled system unsettled) nor than
 * +-1 op/s. An event with no such moment is "not settled" and is left out of `settleSeconds`.
 */
import type { RecordedEvent } from './events';
import type { CellRecord, CellSummary, PhaseRecord, ResizeSummary } from './run-record';
import { cellVerdict } from './verdict';
import type { OpType } from './samples';
import { defaultReference, referenceCellFor, type Reference } from './cell-reference';
import { cellTimeline, isDisturbance, isResize, measuredPhases } from './cell-timeline';
import { cellConsistency } from './consistency/consistency';

export const SETTLE_RULE = { tolerance: 0.1, holdSeconds: 5, levelSeconds: 30 } as const;

/** What normalization needs of the reference cell. */
export type ReferenceSummary = Pick<CellSummary, 'throughputOpsPerS' | 'bytesTransferred'>;

export interface SettleTime {
  /** Unique within the cell (see uniqueLabels). */
  label: string;
  event: RecordedEvent;
  /** Seconds since the cell's start (cell-timeline.ts) when the resize was requested. */
  t: number;
  /** Where the settle window ends: the next disturbing event, or the last sample. */
  windowEndT: number;
  /** The level throughput settles to, ops/s. */
  levelOpsPerS: number;
  /** Seconds from the request until settled; null when it never settled within the window. */
  settledAfterS: number | null;
}

export interface PairBytes {
  a: string;
  b: string;
  bytes: number;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function standardDeviation(values: number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((n, v) => n + (v - mean) ** 2, 0) / (values.length - 1));
}

/** Event labels made unique (a second `remove n3` becomes `remove n3 #2`) so they can key a record. */
export function uniqueLabels(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} #${count}`;
  });
}

export function settleTimes(phases: PhaseRecord[]): SettleTime[] {
  const { points, events } = cellTimeline(phases);
  const disturbances = events.filter((e) => isDisturbance(e.event.kind));
  const resizes = disturbances.filter((e) => isResize(e.event.kind));
  const labels = uniqueLabels(resizes.map((e) => e.event.label));
  const lastT = points.length > 0 ? points[points.length - 1].t : 0;
  return resizes.map((resize, i) => {
    const next = disturbances.find((e) => e.t > resize.t);
    const windowEndT = next ? next.t : lastT;
    const window = points.filter((p) => p.t > resize.t && p.t <= windowEndT).map((p) => ({ t: p.t, ok: p.sample.okPerS }));
    const levelCount = Math.min(SETTLE_RULE.levelSeconds, Math.ceil(window.length / 2));
    const levelWindow = window.slice(window.length - levelCount).map((p) => p.ok);
    const level = median(levelWindow);
    const band = Math.max(SETTLE_RULE.tolerance * level, 2 * standardDeviation(levelWindow), 1);
    const within = window.map((p) => Math.abs(p.ok - level) <= band);
    let settledAfterS: number | null = null;
    for (let start = 0; start + SETTLE_RULE.holdSeconds <= window.length; start++) {
      if (within.slice(start, start + SETTLE_RULE.holdSeconds).every(Boolean)) {
        // A sample covers the second before its stamp, so the settled stretch starts 1 s earlier.
        settledAfterS = round(Math.max(0, window[start].t - 1 - resize.t), 1);
        break;
      }
    }
    return { label: labels[i], event: resize.event, t: resize.t, windowEndT, levelOpsPerS: round(level, 1), settledAfterS };
  });
}

function phaseBytes(phase: PhaseRecord): Map<string, PairBytes> {
  const byPair = new Map<string, PairBytes>();
  const matrices = [...phase.traffic].sort((x, y) => x.time - y.time);
  if (matrices.length === 0) return byPair;
  const key = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  const first = new Map(matrices[0].pairs.map((p) => [key(p.a, p.b), p.bytes]));
  for (const pair of matrices[matrices.length - 1].pairs) {
    const before = matrices.length > 1 ? (first.get(key(pair.a, pair.b)) ?? 0) : 0;
    // A counter that went down was reset (interface re-created): its last value is the growth.
    const bytes = pair.bytes >= before ? pair.bytes - before : pair.bytes;
    const [a, b] = pair.a < pair.b ? [pair.a, pair.b] : [pair.b, pair.a];
    byPair.set(key(a, b), { a, b, bytes });
  }
  return byPair;
}

/** Bytes exchanged per unordered node pair over the measured phases. */
export function pairBytes(phases: PhaseRecord[]): PairBytes[] {
  const total = new Map<string, PairBytes>();
  for (const phase of measuredPhases(phases)) {
    for (const [key, pair] of phaseBytes(phase)) {
      const sum = total.get(key);
      total.set(key, sum ? { ...sum, bytes: sum.bytes + pair.bytes } : pair);
    }
  }
  return [...total.values()];
}

function hasTraffic(phases: PhaseRecord[]): boolean {
  return measuredPhases(phases).some((p) => p.traffic.length > 0);
}

function normalizedAgainst(
  summary: Pick<CellSummary, 'throughputOpsPerS' | 'bytesTransferred'>,
  reference: ReferenceSummary | undefined,
): Pick<CellSummary, 'normalizedThroughput' | 'normalizedBytes'> {
  const out: Pick<CellSummary, 'normalizedThroughput' | 'normalizedBytes'> = {};
  if (!reference) return out;
  if (reference.throughputOpsPerS > 0) out.normalizedThroughput = round(summary.throughputOpsPerS / reference.throughputOpsPerS, 4);
  if (summary.bytesTransferred !== undefined && reference.bytesTransferred) {
    out.normalizedBytes = round(summary.bytesTransferred / reference.bytesTransferred, 4);
  }
  return out;
}

function averageLatencies(phases: PhaseRecord[]): Record<string, number> {
  const weighted = new Map<OpType, { sum: number; ok: number }>();
  for (const sample of phases.flatMap((p) => p.samples)) {
    for (const [op, s] of Object.entries(sample.ops) as [OpType, NonNullable<(typeof sample.ops)[OpType]>][]) {
      if (!s.latencyUs || s.ok === 0) continue;
      const acc = weighted.get(op) ?? { sum: 0, ok: 0 };
      weighted.set(op, { sum: acc.sum + s.latencyUs.avg * s.ok, ok: acc.ok + s.ok });
    }
  }
  return Object.fromEntries([...weighted].map(([op, { sum, ok }]) => [op, round(sum / ok, 1)]));
}

/** Falls back on YCSB's own totals for phases that kept no per-second samples. */
function totalsOnly(phases: PhaseRecord[]): Pick<CellSummary, 'throughputOpsPerS' | 'okOps' | 'failedOps' | 'avgLatencyUs'> {
  let ok = 0;
  let failed = 0;
  let runtimeMs = 0;
  const latency: Record<string, { sum: number; ok: number }> = {};
  for (const totals of phases.map((p) => p.totals).filter((t) => t !== undefined)) {
    runtimeMs += totals.runtimeMs;
    for (const [op, t] of Object.entries(totals.ops)) {
      if (!t) continue;
      ok += t.ok;
      failed += t.failed;
      if (t.avgLatencyUs !== null && t.ok > 0) {
        const acc = (latency[op] ??= { sum: 0, ok: 0 });
        acc.sum += t.avgLatencyUs * t.ok;
        acc.ok += t.ok;
      }
    }
  }
  return {
    throughputOpsPerS: runtimeMs > 0 ? round(ok / (runtimeMs / 1000), 2) : 0,
    okOps: ok,
    failedOps: failed,
    avgLatencyUs: Object.fromEntries(Object.entries(latency).map(([op, { sum, ok: n }]) => [op, round(sum / n, 1)])),
  };
}

/**
 * Every resize with the published distinction: seconds from the request until the cluster
 * accepted it and until its data had moved (each adapter defines "complete"), and whether the
 * workload had already ended when it completed. Warm-up phases count too: a resize is one.
 */
export function resizeTimeline(phases: PhaseRecord[]): ResizeSummary[] {
  const events = phases.flatMap((p) => p.events.filter((e) => isResize(e.kind)));
  const labels = uniqueLabels(events.map((e) => e.label));
  return events.map((event, i) => {
    const after = (ms: number | undefined) => (ms === undefined ? undefined : round((ms - event.requestedAt) / 1000, 1));
    const still = event.detail.stillMovingAtPhaseEndS;
    return {
      label: labels[i],
      acceptedAfterS: after(event.acceptedAt),
      completedAfterS: after(event.completedAt),
      ...(typeof still === 'number' ? { stillMovingAtPhaseEndS: still } : {}),
    };
  });
}

export function summarizeCell(phases: PhaseRecord[], reference?: ReferenceSummary): CellSummary {
  const measured = measuredPhases(phases);
  const seconds = cellTimeline(phases).points.map((p) => p.sample);
  const base =
    seconds.length > 0
      ? {
          throughputOpsPerS: round(seconds.reduce((n, s) => n + s.okPerS, 0) / seconds.length, 2),
          okOps: seconds.reduce((n, s) => n + s.okPerS, 0),
          failedOps: seconds.reduce((n, s) => n + s.failedPerS, 0),
          avgLatencyUs: averageLatencies(measured),
        }
      : totalsOnly(measured);
  const all = base.okOps + base.failedOps;
  const settleSeconds: Record<string, number> = {};
  for (const settle of settleTimes(phases)) {
    if (settle.settledAfterS !== null) settleSeconds[settle.label] = settle.settledAfterS;
  }
  const summary: CellSummary = {
    ...base,
    errorPercent: all > 0 ? round((base.failedOps / all) * 100, 3) : 0,
    zeroSeconds: seconds.filter((s) => s.okPerS === 0).length,
    settleSeconds,
  };
  const resizes = resizeTimeline(phases);
  if (resizes.length > 0) summary.resizes = resizes;
  const judged = measured.flatMap((p) => (p.verdict ? [p.verdict] : []));
  if (judged.length > 0) summary.verdict = cellVerdict(judged);
  if (hasTraffic(phases)) summary.bytesTransferred = pairBytes(phases).reduce((n, p) => n + p.bytes, 0);
  const consistency = cellConsistency(measured);
  if (consistency) summary.consistency = consistency;
  return { ...summary, ...normalizedAgainst(summary, reference) };
}

/**
 * Fills each cell's normalized values from its reference cell (the scenario's `reference`, or by
 * default the scaled axis at 1.0). The engine records cells as they finish; where a reference
 * cell came later, the run's end fills the values in by calling this over all of them.
 */
export function normalizeCells(cells: CellRecord[], reference: Reference | undefined = defaultReference(cells)): CellRecord[] {
  if (!reference) return cells;
  return cells.map((cell) => {
    const referenceCell = referenceCellFor(cell, cells, reference);
    if (!referenceCell) return cell;
    const { normalizedThroughput: _t, normalizedBytes: _b, ...plain } = cell.summary;
    return { ...cell, summary: { ...plain, ...normalizedAgainst(plain, referenceCell.summary) } };
  });
}
