/**
 * The report's tables: per cell (throughput, error percentage, seconds with no successful
 * operation, average latency per operation type), per resize, per link cut, and per change of a
 * pair's overlay path.
 */
import { verdictText } from './validity';
import type { CellRecord } from '../core/run-record';
import { removalEffects } from './figures/link-removal';
import { formatBytes, formatNumber, sentence } from './figures/figure';
import { cellLabel, scaleLabel } from './matrix';
import { SETTLE_RULE, settleTimes } from '../core/cell-summary';
import { cellTimeline } from '../core/cell-timeline';
import { formatPath, pairName } from '../core/overlay-path';

export interface Table {
  id: string;
  heading: string;
  columns: string[];
  /** Right-aligned columns (numbers). */
  numeric: boolean[];
  rows: string[][];
}

const dash = '–';
const maybe = (value: number | null | undefined, digits: number) => (value === null || value === undefined ? dash : formatNumber(value, digits));
const ms = (us: number | undefined) => (us === undefined ? dash : formatNumber(us / 1000, us < 10_000 ? 2 : 1));

/** Scaling factors also in the papers' notation: `0.2 (X)`. */
function coordinateText(cell: CellRecord, key: string): string {
  const value = cell.coordinates[key];
  if (value === undefined) return dash;
  return /Scale$/.test(key) && typeof value === 'number' ? `${value} (${scaleLabel(value)})` : String(value);
}

export function cellSummaryTable(cells: CellRecord[], axes: string[]): Table {
  const coordinates = axes.length > 0 ? axes : [...new Set(cells.flatMap((c) => Object.keys(c.coordinates)))];
  const ops = [...new Set(cells.flatMap((c) => Object.keys(c.summary.avgLatencyUs)))];
  const normalized = cells.some((c) => c.summary.normalizedThroughput !== undefined);
  const bytes = cells.some((c) => c.summary.bytesTransferred !== undefined);
  const judged = cells.some((c) => c.summary.verdict !== undefined);
  const columns = [
    ...coordinates,
    'Throughput (ops/s)',
    ...(normalized ? ['Normalized throughput'] : []),
    'Errors (%)',
    'Seconds with no successful op',
    ...ops.map((op) => `Avg ${op} latency (ms)`),
    ...(bytes ? ['Transferred', 'Normalized transferred'] : []),
    ...(judged ? ['Validity'] : []),
  ];
  const rows = cells.map((c) => [
    ...coordinates.map((k) => coordinateText(c, k)),
    formatNumber(c.summary.throughputOpsPerS, 1),
    ...(normalized ? [maybe(c.summary.normalizedThroughput, 2)] : []),
    formatNumber(c.summary.errorPercent, 2),
    String(c.summary.zeroSeconds),
    ...ops.map((op) => ms(c.summary.avgLatencyUs[op])),
    ...(bytes
      ? [c.summary.bytesTransferred === undefined ? dash : formatBytes(c.summary.bytesTransferred), maybe(c.summary.normalizedBytes, 2)]
      : []),
    ...(judged ? [verdictText(c.summary.verdict)] : []),
  ]);
  const worst = cells.reduce((a, b) => (b.summary.zeroSeconds > a.summary.zeroSeconds ? b : a), cells[0]);
  const errors = cells.reduce((a, b) => (b.summary.errorPercent > a.summary.errorPercent ? b : a), cells[0]);
  const findings = !worst
    ? 'no cell was recorded'
    : [
        worst.summary.zeroSeconds > 0
          ? `most seconds without a successful operation: ${worst.summary.zeroSeconds} (${cellLabel(worst, axes)})`
          : 'every second had successful operations',
        errors.summary.errorPercent > 0
          ? `highest error rate: ${formatNumber(errors.summary.errorPercent, 2)}% (${cellLabel(errors, axes)})`
          : 'no operation failed',
      ].join('; ');
  return {
    id: 'cells',
    heading: `Per cell: throughput, errors, seconds with no successful operation and average latency per operation type. ${sentence(findings)}.`,
    columns,
    numeric: columns.map((_, i) => i >= coordinates.length && columns[i] !== 'Validity'),
    rows,
  };
}

export function resizeTable(cells: CellRecord[], axes: string[]): Table | undefined {
  const rows = cells.flatMap((cell) =>
    settleTimes(cell.phases).map((settle) => {
      const e = settle.event;
      const after = (at: number | undefined) => (at === undefined ? dash : formatNumber((at - e.requestedAt) / 1000, 1));
      const still = e.detail.stillMovingAtPhaseEndS;
      const completed =
        typeof still === 'number' ? `${after(e.completedAt)} (still moving when the phase ended at ${still} s)` : after(e.completedAt);
      return [
        cellLabel(cell, axes),
        settle.label,
        formatNumber(settle.t, 1),
        after(e.acceptedAt),
        completed,
        settle.settledAfterS === null ? 'not settled' : formatNumber(settle.settledAfterS, 1),
        formatNumber(settle.levelOpsPerS, 1),
      ];
    }),
  );
  if (rows.length === 0) return undefined;
  const columns = ['Cell', 'Resize', 'Requested at (s)', 'Accepted after (s)', 'Completed after (s)', 'Settled after (s)', 'Settled level (ops/s)'];
  return {
    id: 'resizes',
    heading: `Per resize: when it was requested, how long the database took to accept and complete it, and how long throughput took to settle (within ±${SETTLE_RULE.tolerance * 100}% of its new level, or two standard deviations of that level’s own noise if wider, for ${SETTLE_RULE.holdSeconds} s).`,
    columns,
    numeric: columns.map((_, i) => i >= 2),
    rows,
  };
}

export function removalTable(cells: CellRecord[], axes: string[]): Table | undefined {
  const rows = cells.flatMap((cell) =>
    removalEffects(cell).map((e) => [
      cellLabel(cell, axes),
      e.label,
      formatNumber(e.t, 1),
      maybe(e.rttBeforeMs, 1),
      maybe(e.rttAfterMs, 1),
      e.rttBeforeMs !== null && e.rttAfterMs !== null ? formatNumber(e.rttAfterMs - e.rttBeforeMs, 1) : dash,
      maybe(e.opsBefore, 1),
      maybe(e.opsAfter, 1),
    ]),
  );
  if (rows.length === 0) return undefined;
  const columns = ['Cell', 'Cut', 'At (s)', 'RTT before (ms)', 'RTT after (ms)', 'RTT change (ms)', 'Ops/s before', 'Ops/s after'];
  return {
    id: 'removals',
    heading:
      'Per link cut: the mean round-trip time between data nodes and the throughput in the windows before and after it (up to 60 s, or to the neighbouring cut).',
    columns,
    numeric: columns.map((_, i) => i >= 2),
    rows,
  };
}

/**
 * Each change of a pair's overlay path during a phase, on the cell's time axis: from the path it
 * had (at the phase's start, or after its previous change) to the new one. The paths at a run's
 * start are in its inventory.
 */
export function pathChangeTable(cells: CellRecord[], axes: string[]): Table | undefined {
  const rows = cells.flatMap((cell) => {
    const { originMs } = cellTimeline(cell.phases);
    return cell.phases.flatMap((phase) => {
      const was = new Map<string, string>();
      return (phase.paths ?? []).flatMap((change) => {
        const pair = pairName(change);
        const before = was.get(pair);
        was.set(pair, formatPath(change));
        return before === undefined
          ? []
          : [[cellLabel(cell, axes), phase.name, formatNumber((change.time - originMs) / 1000, 1), pair, before, formatPath(change)]];
      });
    });
  });
  if (rows.length === 0) return undefined;
  const columns = ['Cell', 'Phase', 'At (s)', 'Pair', 'From', 'To'];
  return {
    id: 'path-changes',
    heading:
      'Per change of a pair’s overlay path: the hops its packets took before and after, with the link of each hop (read from tinc after each network change until the paths held; `?`: tinc knew none at that moment; `tcp`: the hop’s packets went inside tinc’s TCP meta connection, no UDP way found).',
    columns,
    numeric: columns.map((_, i) => i === 2),
    rows,
  };
}
