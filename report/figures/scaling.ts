/**
 * Epochs (cells along a latency or bandwidth scaling factor): each value normalized by its
 * reference cell (5X by default) against the factor (a line per database, a panel per workload),
 * and absolute throughput at the two ends, X and 5X.
 */
import type { CellRecord } from '../../core/run-record';
import { scaleLabel } from '../matrix';
import { BASE_CONFIG, SCALE_LABEL_EXPR, axisTitle, figureId, formatNumber, type Figure } from './figure';

type Measure = 'normalizedThroughput' | 'normalizedBytes';

const MEASURES: Record<Measure, { what: string; yTitle: string }> = {
  normalizedThroughput: { what: 'throughput', yTitle: 'Throughput' },
  normalizedBytes: { what: 'transferred data', yTitle: 'Transferred data' },
};

/** A matrix coordinate; the database, when it is not an axis, is the one the cell ran. */
const coordinate = (cell: CellRecord, key: string) =>
  key in cell.coordinates ? String(cell.coordinates[key]) : key === 'database' && cell.cluster ? cell.cluster.database : 'all';

/** A panel per workload, three to a row, each drawn by `unit`. */
export function panelsByWorkload(rows: object[], unit: Record<string, unknown>): Figure['spec'] {
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

/**
 * Normalized throughput or transferred data against the scaling factor, relative to the cells at
 * `reference`; none when no cell has the value or only one factor was run (nothing to compare).
 */
export function normalizedVsScale(cells: CellRecord[], axis: string, measure: Measure, reference = 1): Figure[] {
  const rows = cells
    .filter((c) => c.summary[measure] !== undefined)
    .map((c) => ({
      database: coordinate(c, 'database'),
      workload: coordinate(c, 'workload'),
      scale: c.coordinates[axis] as number,
      value: c.summary[measure] as number,
    }));
  const scales = [...new Set(rows.map((r) => r.scale))].sort((a, b) => a - b);
  if (scales.length < 2) return [];
  // The far end from the reference says the most: the smallest factor, or the largest when the reference is the smallest.
  const far = scales[0] === reference ? scales[scales.length - 1] : scales[0];
  const atFar = meanBy(
    rows.filter((r) => r.scale === far),
    (r) => r.database,
    (r) => r.value,
  );
  const { what, yTitle } = MEASURES[measure];
  const finding = [...atFar]
    .sort((a, b) => b[1] - a[1])
    .map(([db, v]) => `${db} ${formatNumber(v, 2)}x`)
    .join(', ');
  const [from, to, at, ref] = [scales[0], scales[scales.length - 1], far, reference].map(scaleLabel);
  const mean = new Set(rows.map((r) => r.workload)).size > 1 ? ' (mean over workloads)' : '';
  return [
    {
      id: figureId(measure === 'normalizedThroughput' ? 'normalized-throughput' : 'normalized-bytes', axis),
      heading: `How does ${what} change as the ${axisTitle(axis).toLowerCase()} goes from ${from} to ${to}? At ${at}, relative to ${ref}${mean}: ${finding}.`,
      spec: panelsByWorkload(rows, {
        width: 230,
        height: 190,
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'scale',
            type: 'quantitative',
            title: axisTitle(axis),
            axis: { values: scales, labelExpr: SCALE_LABEL_EXPR },
            scale: { domain: [0, Math.max(...scales) + 0.1] },
          },
          y: { field: 'value', type: 'quantitative', title: `${yTitle} (${ref} = 1)` },
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
      heading: `What throughput does each database reach at ${order[0]} and ${order[1]}? The highest is ${best.database}${best.workload === 'all' ? '' : ` on workload ${best.workload}`} at ${best.factor}: ${formatNumber(best.throughput, 1)} ops/s.`,
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
