/**
 * A cell's measured phases laid on one time axis: seconds since the first measured sample's
 * second began, from the wall-clock stamps samples and events share. Phases may overlap (a
 * ramped client records its own phase, e.g. `run:extra`), so samples falling in the same second
 * are merged into one. Pure (no I/O), so workflows may import it.
 */
import { findEventKind } from './event-kinds/registry';
import type { EventKind, RecordedEvent } from './events';
import type { PhaseRecord } from './run-record';
import type { OpSample, OpType, Sample } from './samples';

/** The engine names setup phases `flush` and `load` (`load2`... where a kind repeats). */
const SETUP_PHASE = /^(flush|load)\d*$/;

/**
 * Phases that measure the workload: every phase but the setup and warm-up ones, unless setup is
 * all there is.
 */
export function measuredPhases(phases: PhaseRecord[]): PhaseRecord[] {
  const measured = phases.filter((p) => !SETUP_PHASE.test(p.name) && !p.warmup);
  return measured.length > 0 ? measured : phases;
}

/** Measurements are recorded as events too, but they do not disturb the workload. */
export function isDisturbance(kind: EventKind): boolean {
  return findEventKind(kind)?.measures === undefined;
}

/** A restart of the tool's own client: shown on every figure, but not something the scenario asked for. */
export function isToolFault(kind: EventKind): boolean {
  return kind === 'client-restart' || kind === 'tool-fault';
}

export function isResize(kind: EventKind): boolean {
  return findEventKind(kind)?.resize !== undefined;
}

export interface TimelinePoint {
  /** Whole seconds since the origin at the end of this second. */
  t: number;
  /** Every phase's sample for this second, merged. */
  sample: Sample;
}

export interface TimelineEvent {
  /** Seconds since the origin when the event was requested. */
  t: number;
  phase: string;
  event: RecordedEvent;
}

export interface CellTimeline {
  /** Epoch ms of t = 0: the start of the first measured second. */
  originMs: number;
  points: TimelinePoint[];
  events: TimelineEvent[];
}

function mergeOp(a: OpSample | undefined, b: OpSample): OpSample {
  if (!a) return b;
  const ok = a.ok + b.ok;
  // Latencies of concurrent clients: averages weighted by their ok counts; tails take the worse.
  const latencyUs =
    a.latencyUs && b.latencyUs
      ? {
          avg: (a.latencyUs.avg * a.ok + b.latencyUs.avg * b.ok) / Math.max(ok, 1),
          p95: Math.max(a.latencyUs.p95, b.latencyUs.p95),
          p99: Math.max(a.latencyUs.p99, b.latencyUs.p99),
        }
      : (a.latencyUs ?? b.latencyUs);
  return { ok, failed: a.failed + b.failed, latencyUs };
}

function mergeSamples(a: Sample, b: Sample): Sample {
  const ops = { ...a.ops };
  for (const [op, s] of Object.entries(b.ops) as [OpType, OpSample][]) ops[op] = mergeOp(ops[op], s);
  return { ...a, ops, okPerS: a.okPerS + b.okPerS, failedPerS: a.failedPerS + b.failedPerS };
}

/** The whole second of the timeline a sample closes (samples of concurrent clients share it). */
export function sampleSecond(originMs: number, sample: Sample): number {
  return Math.max(1, Math.round((sample.time - originMs) / 1000));
}

export function cellTimeline(phases: PhaseRecord[]): CellTimeline {
  const measured = measuredPhases(phases);
  const samples = measured.flatMap((p) => p.samples).sort((a, b) => a.time - b.time);
  // Without samples the clock starts at the first thing recorded: an event or an RTT reading.
  const firstMark = Math.min(...measured.flatMap((p) => [...p.events.map((e) => e.requestedAt), ...p.rtt.map((m) => m.time)]));
  const originMs = samples.length > 0 ? samples[0].time - samples[0].elapsedS * 1000 : Number.isFinite(firstMark) ? firstMark : 0;
  const at = (ms: number) => (ms - originMs) / 1000;
  const bySecond = new Map<number, Sample>();
  for (const sample of samples) {
    const t = sampleSecond(originMs, sample);
    const seen = bySecond.get(t);
    bySecond.set(t, seen ? mergeSamples(seen, sample) : sample);
  }
  const points = [...bySecond].map(([t, sample]) => ({ t, sample })).sort((a, b) => a.t - b.t);
  const events = measured.flatMap((p) => p.events.map((event) => ({ t: at(event.requestedAt), phase: p.name, event }))).sort((a, b) => a.t - b.t);
  return { originMs, points, events };
}
