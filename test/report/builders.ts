/** Hand-made records for the report tests: every number in them is chosen, none is random. */
import type { EventKind, RecordedEvent } from '../../core/events';
import type { CellRecord, PhaseRecord, RunRecord } from '../../core/run-record';
import type { OpType, Sample } from '../../core/samples';
import { summarizeCell } from '../../core/cell-summary';
import { topologyInventory } from './fixtures/synthetic';

export const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

/** One second of a run: ok/failed per op type; latency avg only (p95/p99 derived) or none. */
export function second(elapsedS: number, ops: Partial<Record<OpType, { ok: number; failed?: number; avgUs?: number }>>, startMs = T0): Sample {
  const entries = Object.entries(ops) as [OpType, { ok: number; failed?: number; avgUs?: number }][];
  return {
    time: startMs + elapsedS * 1000,
    elapsedS,
    ops: Object.fromEntries(
      entries.map(([op, s]) => [
        op,
        { ok: s.ok, failed: s.failed ?? 0, latencyUs: s.avgUs === undefined ? null : { avg: s.avgUs, p95: s.avgUs * 2, p99: s.avgUs * 3 } },
      ]),
    ),
    okPerS: entries.reduce((n, [, s]) => n + s.ok, 0),
    failedPerS: entries.reduce((n, [, s]) => n + (s.failed ?? 0), 0),
  };
}

/** A series of READ-only seconds with the given ok counts, starting at elapsed 1. */
export function okSeries(counts: number[], startMs = T0): Sample[] {
  return counts.map((ok, i) => second(i + 1, { READ: { ok, avgUs: ok > 0 ? 1000 : undefined } }, startMs));
}

export function phase(name: string, samples: Sample[], extra: Partial<PhaseRecord> = {}): PhaseRecord {
  return { name, samples, events: [], rtt: [], traffic: [], resizes: [], ...extra };
}

export function recorded(kind: EventKind, label: string, atS: number, startMs = T0, extra: Partial<RecordedEvent> = {}): RecordedEvent {
  return { kind, label, scheduledOffsetS: atS, requestedAt: startMs + atS * 1000, detail: {}, ...extra };
}

export function cell(cellId: string, coordinates: CellRecord['coordinates'], phases: PhaseRecord[]): CellRecord {
  return { cellId, coordinates, phases, summary: summarizeCell(phases) };
}

export function runRecord(runId: string, cells: CellRecord[], extra: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    scenario: 'unit',
    experiment: 'latency-epochs',
    startedAt: T0 - 10_000,
    status: 'running',
    settings: {},
    nonDefaultSettings: {},
    versions: { fragbench: '0.1.0' },
    inventory: topologyInventory('fhc-4'),
    cellIds: cells.map((c) => c.cellId),
    ...extra,
  };
}
