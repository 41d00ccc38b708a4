/**
 * Epoch experiments: each value normalized by its 5X cell against the scaling factor (a line per
 * database, a panel per workload), and absolute throughput at the two ends, X and 5X.
 */
import type { CellRecord } from '../../core/run-record';
import { scaleLabel } from '../matrix';
import { BASE_CONFIG, SCALE_LABEL_EXPR, axisTitle, figureId, formatNumber, type Figure } from './figure';

type Measure = 'normalizedThroughput' | 'normalizedBytes';

const MEASURES: Record<Measure, { what: string; yTitle: string }> = {
  normalizedThroughput: { what: 'throughput', yTitle: 'Throughput (5X = 1)' },
  normalizedBytes: { what: 'transferred data', yTitle: 'Transferred data (5X = 1)' },
};

const coordinate = (cell: CellRecord, key: string) => (key in cell.coordinates ? String(cell.coordinates[key]) : 'all');

/** A panel per workload, three to a row, each drawn by `unit`. */
function panelsByWorkload(rows: object[], unit: Record<string, unknown>): Figure['spec'] {
  return {
    config: BASE_CONFIG,
    data: { values: rows },
    facet: { field: 'workload', type: 'nominal', title: null, header: { labelExpr: "'workload ' + datum.value" } },
    columns: 3,
    spec: unit,
  } as unknown as Figure['spec'];
}

function meanBy<T>(rows: T[], key: (row: T) => string, value: (row: T) => number): Map<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const row of rows) {
    const acc = sums.get(key(row)) ?? { sum: 0, n: 0 };
    sums.set(key(row), { sum: acc.sum + value(row), n: acc.n + 1 });
  }
  return new Map([...sums].map(([k, { sum, n }]) => [k, sum / n]));
}

/** Normalized throughput or transferred data against the scaling factor; none when no cell has it. */
export function normalizedVsScale(cells: CellRecord[], axis: string, measure: Measure): Figure[] {
  const rows = cells
    .filter((c) => c.summary[measure] !== undefined)
    .map((c) => ({
      database: coordinate(c, 'database'),
      workload: coordinate(c, 'workload'),
      scale: c.coordinates[axis] as number,
      value: c.summary[measure] as number,
    }));
  if (rows.length === 0) return [];
  const smallest = Math.min(...rows.map((r) => r.scale));
  const atSmallest = meanBy(rows.filter((r) => r.scale === smallest), (r) => r.database, (r) => r.value);
  const { what, yTitle } = MEASURES[measure];
  const finding = [...atSmallest]
    .sort((a, b) => b[1] - a[1])
    .map(([db, v]) => `${db} ${formatNumber(v, 2)}x`)
    .join(', ');
  const scales = [...new Set(rows.map((r) => r.scale))].sort((a, b) => a - b);
  return [
    {
      id: figureId(measure === 'normalizedThroughput' ? 'normalized-throughput' : 'normalized-bytes', axis),
      heading: `How does ${what} change as the ${axisTitle(axis).toLowerCase()} goes from X to 5X? At ${scaleLabel(smallest)}, relative to 5X (mean over workloads): ${finding}.`,
      spec: panelsByWorkload(rows, {
        width: 230,
        height: 190,
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: { field: 'scale', type: 'quantitative', title: axisTitle(axis), axis: { values: scales, labelExpr: SCALE_LABEL_EXPR }, scale: { domain: [0, Math.max(...scales) + 0.1] } },
          y: { field: 'value', type: 'quantitative', title: yTitle },
          color: { field: 'database', type: 'nominal', title: 'Database' },
        },
      }),
    },
  ];
}

/** Absolute throughput at the smallest scale (X) and the reference (5X), per database and workload. */
export function throughputAtEnds(cells: CellRecord[], axis: string, reference: number): Figure[] {
  const smallest = Math.min(...cells.map((c) => c.coordinates[axis] as number));
  const ends = cells.filter((c) => c.coordinates[axis] === smallest || c.coordinates[axis] === reference);
  if (ends.length === 0 || smallest === reference) return [];
  const rows = ends.map((c) => ({
    database: coordinate(c, 'database'),
    workload: coordinate(c, 'workload'),
    factor: scaleLabel(c.coordinates[axis] as number),
    throughput: c.summary.throughputOpsPerS,
  }));
  const best = rows.reduce((a, b) => (b.throughput > a.throughput ? b : a));
  const order = [scaleLabel(smallest), scaleLabel(reference)];
  return [
    {
      id: figureId('throughput-at-ends', axis),
      heading: `What throughput does each database reach at ${order[0]} and ${order[1]}? The highest is ${best.database} on workload ${best.workload} at ${best.factor}: ${formatNumber(best.throughput, 1)} ops/s.`,
      spec: panelsByWorkload(rows, {
        width: { step: 30 },
        height: 190,
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'database', type: 'nominal', title: 'Database', axis: { labelAngle: 0 } },
          xOffset: { field: 'factor', type: 'nominal', sort: order },
          y: { field: 'throughput', type: 'quantitative', title: 'Throughput (ops/s)' },
          color: { field: 'factor', type: 'nominal', title: axisTitle(axis), sort: order, scale: { range: ['#4393c3', '#d6604d'] } },
        },
      }),
    },
  ];
}
