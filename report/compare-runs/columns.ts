/**
 * The columns of the compared cells' table, in one list: each says how to read its value from a
 * cell. A number is summarized across a side's repetitions (median and interval) and differenced
 * between sides; text is shown as it is. To add a column (say, a consistency check's count), add
 * an entry here: the table, the differences, the JSON and the page all take their columns from it.
 */
import { resizeTimeline } from '../../core/cell-summary';
import { cellTimeline } from '../../core/cell-timeline';
import { median } from '../../core/reproduce/statistics';
import type { CellRecord, ResizeSummary } from '../../core/run-record';
import type { OpSample } from '../../core/samples';
import { verdictText } from '../validity';

export interface CellColumn {
  /** The heading, with its unit: also the key of the column's value in the JSON. */
  heading: string;
  value(cell: CellRecord): number | string | undefined;
  /** Decimals a number is printed with. */
  digits?: number;
}

/** A column, or a family of them made from the cells they describe (one per resize, say). */
export type ColumnEntry = CellColumn | ((cells: CellRecord[]) => CellColumn[]);

/**
 * A cell's p99 latency, ms: the median over its measured seconds of each second's p99 (the worst
 * operation type's, concurrent clients' seconds merged as the report merges them). Per-second
 * percentiles are what the client reports; a percentile of the whole phase is not recorded.
 */
export function p99LatencyMs(cell: CellRecord): number | undefined {
  const perSecond = cellTimeline(cell.phases).points.flatMap(({ sample }) => {
    const p99s = Object.values(sample.ops).flatMap((op: OpSample | undefined) => (op?.latencyUs ? [op.latencyUs.p99] : []));
    return p99s.length > 0 ? [Math.max(...p99s) / 1000] : [];
  });
  return perSecond.length > 0 ? median(perSecond) : undefined;
}

/** Each resize's times (older records carry none in their summary: read from the phases as the recorder does). */
const resizesOf = (cell: CellRecord): ResizeSummary[] => cell.summary.resizes ?? resizeTimeline(cell.phases);

/** Two columns per resize, by its label: when the database accepted it and when it completed, seconds after the request. */
function resizeColumns(cells: CellRecord[]): CellColumn[] {
  const labels = [...new Set(cells.flatMap((c) => resizesOf(c).map((r) => r.label)))];
  return labels.flatMap((label) => {
    const of = (cell: CellRecord) => resizesOf(cell).find((r) => r.label === label);
    return [
      { heading: `${label}: accepted after (s)`, value: (cell: CellRecord) => of(cell)?.acceptedAfterS, digits: 1 },
      { heading: `${label}: completed after (s)`, value: (cell: CellRecord) => of(cell)?.completedAfterS, digits: 1 },
    ];
  });
}

export const CELL_COLUMNS: ColumnEntry[] = [
  { heading: 'Throughput (ops/s)', value: (c) => c.summary.throughputOpsPerS, digits: 1 },
  { heading: 'p99 latency (ms, median second)', value: p99LatencyMs, digits: 2 },
  { heading: 'Errors (%)', value: (c) => c.summary.errorPercent, digits: 2 },
  { heading: 'Failed operations', value: (c) => c.summary.failedOps, digits: 0 },
  resizeColumns,
  { heading: 'Validity', value: (c) => verdictText(c.summary.verdict) },
];

/** The columns for these cells: the list with each family made out. */
export function columnsFor(cells: CellRecord[]): CellColumn[] {
  return CELL_COLUMNS.flatMap((entry) => (typeof entry === 'function' ? entry(cells) : [entry]));
}
