/**
 * The cell records a reproduction's part would leave, made from its own plan (the phases, events
 * and labels the real scenario would record), with the load each second chosen by a model: so a
 * test can run the real figures and comparisons over a whole reproduction without a fleet. Every
 * phase is judged `ok` unless the model flags it.
 */
import type { RecordedEvent } from '../../core/events';
import { summarizeCell } from '../../core/cell-summary';
import type { OverlayPath, PathChange } from '../../core/overlay-path';
import type { CellRecord, PhaseRecord } from '../../core/run-record';
import type { CellPlan, RunPlan } from '../../core/scenario';
import type { Sample } from '../../core/samples';
import type { PhaseFigures, PhaseVerdict, Verdict } from '../../core/verdict';

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

export interface SecondContext {
  /** The run's scenario name, e.g. `reproduce-link-removal-redis-tinc-defaults`. */
  scenario: string;
  cell: CellPlan;
  phase: string;
  /** Seconds into the phase, from 1. */
  second: number;
  /** Events of the phase already requested, in order. */
  before: { label: string; kind: string; atS: number }[];
}

export interface RecordModel {
  /** Successful operations in one second. */
  ok: (c: SecondContext) => number;
  /** Mean latency of a read, µs (default 10,000). */
  readUs?: (c: SecondContext) => number;
  /** Bytes moved per operation over each pair of the cell (the client included), for phases that measure traffic. */
  bytesPerOp?: (cell: CellPlan, phase: string, pair: [string, string]) => number;
  /** The path the client's pair to `node` takes after the phase's first `events` link events. */
  path?: (cell: CellPlan, node: string, events: number) => OverlayPath;
  /** Seconds from a link event to the path's change (default 3). */
  pathSettlesS?: (scenario: string, label: string) => number;
  /** The all-pairs mean ping a measurement gives, ms (default 80). */
  pingMs?: (scenario: string, atS: number) => number;
  /** A phase's verdict (default ok). */
  verdict?: (cell: CellPlan, phase: string) => Verdict;
  /** A resize's acceptance and completion, s after its request. */
  resize?: (cell: CellPlan, label: string) => { acceptedAfterS: number; completedAfterS: number };
  /**
   * The round trip a pair of the cell (the client included) is configured for, ms: given, every
   * phase probes each pair once and the cluster records replication 3 with QUORUM reads and writes.
   */
  configuredRttMs?: (cell: CellPlan, pair: [string, string], scenario: string) => number;
}

function judged(verdict: Verdict, warmup: boolean): PhaseVerdict {
  return {
    warmup,
    verdict,
    reasons: verdict === 'ok' ? [] : [{ verdict, figure: 40, threshold: 10, text: 'host CPU ≥ 90 % in 40 % of seconds (threshold 10 %)' }],
    unchecked: [],
    figures: { hostBusyMedianPercent: 30 } as PhaseFigures,
  };
}

const LINK_KINDS = ['link-cut', 'link-restore'];

/** One cell's record: its phases one after another from `start`, each second as the model says. */
export function synthesizeCell(scenario: string, cell: CellPlan, model: RecordModel, start = T0): CellRecord {
  let clock = start;
  const phases: PhaseRecord[] = [];
  const resizes: { label: string; acceptedAfterS?: number; completedAfterS?: number }[] = [];
  for (const planned of cell.phases) {
    if (planned.kind !== 'run') {
      phases.push({ name: planned.name, samples: [], events: [], rtt: [], traffic: [], resizes: [] });
      continue;
    }
    const seconds = Math.round(planned.durationS ?? 60);
    const events: RecordedEvent[] = planned.events.map((e) => {
      const requestedAt = clock + e.atS * 1000;
      const timing = model.resize?.(cell, e.label) ?? { acceptedAfterS: 1, completedAfterS: 10 };
      const resize = e.action.kind === 'resize-add' || e.action.kind === 'resize-remove';
      if (resize) resizes.push({ label: e.label, ...timing });
      return {
        kind: e.action.kind,
        label: e.label,
        scheduledOffsetS: e.atS,
        requestedAt,
        detail: {},
        ...(resize ? { acceptedAt: requestedAt + timing.acceptedAfterS * 1000, completedAt: requestedAt + timing.completedAfterS * 1000 } : {}),
      };
    });
    const samples: Sample[] = [];
    for (let s = 1; s <= seconds; s++) {
      const before = planned.events.filter((e) => e.atS < s).map((e) => ({ label: e.label, kind: e.action.kind, atS: e.atS }));
      const ctx = { scenario, cell, phase: planned.name, second: s, before };
      const ok = model.ok(ctx);
      const readUs = model.readUs?.(ctx) ?? 10_000;
      const [reads, updates] = [Math.ceil(ok / 2), Math.floor(ok / 2)];
      const latency = (us: number, n: number) => (n > 0 ? { avg: us, p95: us, p99: us } : null);
      samples.push({
        time: clock + s * 1000,
        elapsedS: s,
        ops: {
          READ: { ok: reads, failed: 0, latencyUs: latency(readUs, reads) },
          UPDATE: { ok: updates, failed: 0, latencyUs: latency(readUs * 1.5, updates) },
        },
        okPerS: ok,
        failedPerS: 0,
      });
    }
    const ops = samples.reduce((n, x) => n + x.okPerS, 0);
    const pairs = [cell.client, ...cell.nodes].flatMap((a, i, all) => all.slice(i + 1).map((b): [string, string] => [a, b]));
    const traffic = planned.measure.includes('traffic')
      ? [
          { time: clock, pairs: pairs.map(([a, b]) => ({ a, b, bytes: 0 })) },
          {
            time: clock + seconds * 1000,
            pairs: pairs.map(([a, b]) => ({ a, b, bytes: Math.round((model.bytesPerOp?.(cell, planned.name, [a, b]) ?? 100) * ops) })),
          },
        ]
      : [];
    const links = events.filter((e) => LINK_KINDS.includes(e.kind));
    const paths: PathChange[] = [];
    if (model.path && links.length > 0) {
      for (const node of cell.nodes) {
        const path = (n: number) => model.path!(cell, node, n);
        paths.push({ time: clock, ...path(0) });
        links.forEach((e, i) => paths.push({ time: e.requestedAt + (model.pathSettlesS?.(scenario, e.label) ?? 3) * 1000, ...path(i + 1) }));
      }
    }
    const rtt = events
      .filter((e) => e.kind === 'measure-rtt')
      .map((e) => ({ time: e.requestedAt + 3000, startedAt: e.requestedAt, pairs: [], meanMs: model.pingMs?.(scenario, e.scheduledOffsetS) ?? 80 }));
    const verdict = model.verdict?.(cell, planned.name) ?? 'ok';
    const rttOf = model.configuredRttMs;
    const probes = rttOf
      ? pairs.map(([a, b]) => {
          const configuredMs = rttOf(cell, [a, b], scenario);
          return { time: clock + 1000, from: a, to: b, measuredMs: configuredMs, configuredMs };
        })
      : undefined;
    phases.push({
      name: planned.name,
      samples,
      ...(planned.warmup ? { warmup: true } : {}),
      verdict: judged(verdict, planned.warmup),
      events,
      rtt,
      traffic,
      resizes: [],
      ...(paths.length ? { paths } : {}),
      ...(probes ? { probes } : {}),
    });
    clock += seconds * 1000;
  }
  const summary = summarizeCell(phases);
  return {
    cellId: cell.cellId,
    cluster: {
      database: cell.database,
      version: 'synthetic',
      nonDefaultSettings: {},
      ...(model.configuredRttMs ? { consistency: { 'replication factor': '3', 'read consistency': 'QUORUM', 'write consistency': 'QUORUM' } } : {}),
    },
    coordinates: cell.coordinates,
    phases,
    summary: { ...summary, resizes },
  };
}

export function synthesizeRun(plan: RunPlan, model: RecordModel): CellRecord[] {
  return plan.cells.map((c) => synthesizeCell(plan.scenario, c, model));
}
