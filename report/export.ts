/**
 * A run's data as CSV (for spreadsheets and pandas) and JSON (everything, as recorded).
 * samples CSV: one row per second per cell per operation type; events CSV: one row per event;
 * consistency CSV (checked runs): one row per second of each checked phase.
 * The cell's coordinates are columns of their own (database, workload, latencyScale...).
 */
import type { CellRecord, PhaseRecord, RunRecord } from '../core/run-record';
import type { OpType } from '../core/samples';
import { failedTotal } from '../core/consistency/consistency';

export const SAMPLE_COLUMNS = [
  'run',
  'cell',
  'phase',
  'elapsed_s',
  'time',
  'op',
  'ok',
  'failed',
  'avg_latency_us',
  'p95_latency_us',
  'p99_latency_us',
] as const;

export const EVENT_COLUMNS = [
  'run',
  'cell',
  'phase',
  'kind',
  'label',
  'scheduled_offset_s',
  'requested_at',
  'accepted_at',
  'completed_at',
  'accepted_after_s',
  'completed_after_s',
  'detail',
] as const;

export const CONSISTENCY_COLUMNS = [
  'run',
  'cell',
  'phase',
  'elapsed_s',
  'time',
  'reads',
  'acknowledged_writes',
  'stale_reads',
  'corrupt_reads',
  'lost_writes',
  'unjudged_reads',
  'failed',
  'failed_by_cause',
] as const;

type Cell = string | number | null | undefined;

function csvField(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csv(header: string[], rows: Cell[][]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const secondsBetween = (from: number, to: number | undefined) => (to === undefined ? undefined : (to - from) / 1000);

/**
 * A CSV built phase by phase: each row is run, cell, the cell's coordinates, phase, then what
 * rowsOf gives; the header is `columns` with the coordinate names inserted after `cell`.
 */
function perPhaseCsv(run: RunRecord, cells: CellRecord[], columns: readonly string[], rowsOf: (phase: PhaseRecord) => Cell[][]): string {
  const coordinates = [...new Set(cells.flatMap((c) => Object.keys(c.coordinates)))];
  const rows = cells.flatMap((cell) => {
    const lead = [run.runId, cell.cellId, ...coordinates.map((k) => cell.coordinates[k])];
    return cell.phases.flatMap((phase) => rowsOf(phase).map((row) => [...lead, phase.name, ...row]));
  });
  return csv([...columns.slice(0, 2), ...coordinates, ...columns.slice(2)], rows);
}

export function samplesCsv(run: RunRecord, cells: CellRecord[]): string {
  return perPhaseCsv(run, cells, SAMPLE_COLUMNS, (phase) => {
    // Every op type seen in the phase gets a row every second, zeros where it had none.
    const ops = [...new Set(phase.samples.flatMap((s) => Object.keys(s.ops)))] as OpType[];
    return phase.samples.flatMap((sample) =>
      ops.map((op) => {
        const s = sample.ops[op];
        return [sample.elapsedS, iso(sample.time), op, s?.ok ?? 0, s?.failed ?? 0, s?.latencyUs?.avg, s?.latencyUs?.p95, s?.latencyUs?.p99];
      }),
    );
  });
}

export function eventsCsv(run: RunRecord, cells: CellRecord[]): string {
  return perPhaseCsv(run, cells, EVENT_COLUMNS, (phase) =>
    phase.events.map((e) => [
      e.kind,
      e.label,
      e.scheduledOffsetS,
      iso(e.requestedAt),
      iso(e.acceptedAt),
      iso(e.completedAt),
      secondsBetween(e.requestedAt, e.acceptedAt),
      secondsBetween(e.requestedAt, e.completedAt),
      JSON.stringify(e.detail),
    ]),
  );
}

/** Whether any cell was checked: only then is there a consistency CSV to write. */
export const hasConsistency = (cells: CellRecord[]) => cells.some((c) => c.phases.some((p) => p.consistency));

/**
 * Per second of each checked phase: reads, acknowledged writes, anomalies (a lost write in the
 * second it was acknowledged) and failures, with their causes as `cause=n;cause=n`.
 */
export function consistencyCsv(run: RunRecord, cells: CellRecord[]): string {
  return perPhaseCsv(run, cells, CONSISTENCY_COLUMNS, (phase) =>
    (phase.consistency?.seconds ?? []).map((s) => [
      s.elapsedS,
      iso(s.time),
      s.reads,
      s.writes,
      s.stale,
      s.corrupt,
      s.lost,
      s.unjudged,
      failedTotal(s),
      Object.entries(s.failed)
        .map(([cause, n]) => `${cause}=${n}`)
        .join(';'),
    ]),
  );
}

/** Everything the store holds for the run, as one document. */
export function runJson(run: RunRecord, cells: CellRecord[]): string {
  return `${JSON.stringify({ run, cells }, null, 2)}\n`;
}
