/**
 * Hybrid-cloud experiments: throughput, latency per operation type and error percentage against
 * the axis the experiment varies (layout `n_m`, public node count, cores, VM packing), a line per
 * database, a panel per workload, and a row per second axis such as the region.
 */
import type { CellRecord } from '../../core/run-record';
import { scaleAxis } from '../../core/cell-reference';
import { varyingAxes } from '../matrix';
import { BASE_CONFIG, axisPhrase, axisTitle, figureId, formatNumber, printsEqual, sentence, type Figure } from './figure';

const PREFERRED_X = ['layout', 'publicNodes', 'cores', 'packing', 'region'];

/** The axis to plot along, then an optional axis to split rows by. */
export function categoryAxes(cells: CellRecord[]): { x?: string; row?: string } {
  const scale = scaleAxis(cells);
  const candidates = varyingAxes(cells).filter((a) => a !== 'database' && a !== 'workload' && a !== scale);
  const ranked = [...candidates].sort((a, b) => rank(a) - rank(b));
  return { x: ranked[0], row: ranked[1] };
}

function rank(axis: string): number {
  const i = PREFERRED_X.indexOf(axis);
  return i < 0 ? PREFERRED_X.length : i;
}

/** Layouts run from all-private (8_0) to all-but-one public (1_7); numbers ascend; the rest as recorded. */
export function categoryOrder(cells: CellRecord[], axis: string): (string | number)[] {
  const values = [...new Set(cells.map((c) => c.coordinates[axis]))];
  if (values.every((v) => typeof v === 'number')) return values.sort((a, b) => a - b);
  if (values.every((v) => /^\d+_\d+$/.test(String(v))))
    return values.sort((a, b) => Number(String(b).split('_')[0]) - Number(String(a).split('_')[0]));
  return values;
}

interface Panel {
  id: string;
  question: string;
  yTitle: string;
  rows: Record<string, string | number>[];
  /** Extra series split within a database's colour, e.g. the operation type. */
  dash?: string;
  finding: string;
}

function panelFigure(cells: CellRecord[], x: string, row: string | undefined, panel: Panel): Figure {
  const order = categoryOrder(cells, x);
  // Panels by workload across and the second axis down; with one workload, the second axis across.
  const workloads = new Set(cells.map((c) => c.coordinates.workload).filter((w) => w !== undefined));
  const facet: Record<string, unknown> = {};
  const second = row ? { field: row, type: 'nominal', title: axisTitle(row), sort: categoryOrder(cells, row) } : undefined;
  if (workloads.size > 1) {
    facet.column = { field: 'workload', type: 'nominal', title: null, header: { labelExpr: "'workload ' + datum.value" } };
    if (second) facet.row = second;
  } else if (second) {
    facet.column = second;
  }
  const unit = {
    width: Math.max(160, 34 * order.length),
    height: 170,
    mark: { type: 'line', point: true, strokeWidth: 2 },
    encoding: {
      x: { field: x, type: 'ordinal', title: axisTitle(x), sort: order, axis: { labelAngle: 0 } },
      y: { field: 'value', type: 'quantitative', title: panel.yTitle },
      color: { field: 'database', type: 'nominal', title: 'Database' },
      ...(panel.dash
        ? {
            strokeDash: {
              field: panel.dash,
              type: 'nominal',
              title: 'Operation',
              legend: { symbolType: 'stroke', symbolStrokeWidth: 2, encode: { symbols: { update: { stroke: { value: '#333333' } } } } },
            },
          }
        : {}),
    },
  };
  const spec = Object.keys(facet).length > 0 ? { facet, spec: unit } : unit;
  return {
    id: figureId(panel.id, x),
    heading: `${panel.question} ${sentence(panel.finding)}.`,
    spec: { config: BASE_CONFIG, data: { values: panel.rows }, ...spec } as Figure['spec'],
  };
}

/** `what` ranges from its lowest to its highest value, or is one value throughout when they print the same. */
function extremes(what: string, rows: { value: number; label: string }[], unit: string, digits: number): string {
  const lo = rows.reduce((a, b) => (b.value < a.value ? b : a));
  const hi = rows.reduce((a, b) => (b.value > a.value ? b : a));
  if (printsEqual(lo.value, hi.value, digits)) return `${what} is ${formatNumber(lo.value, digits)}${unit} in every cell`;
  return `${what} ranges from ${formatNumber(lo.value, digits)}${unit} (${lo.label}) to ${formatNumber(hi.value, digits)}${unit} (${hi.label})`;
}

export function categoryFigures(cells: CellRecord[]): Figure[] {
  const { x, row } = categoryAxes(cells);
  if (!x) return [];
  const base = (c: CellRecord): Record<string, string | number> => ({ ...c.coordinates, database: String(c.coordinates.database ?? 'all') });
  const label = (c: CellRecord) => Object.values(c.coordinates).join(' ');
  const throughput = cells.map((c) => ({ ...base(c), value: c.summary.throughputOpsPerS }));
  const latency = cells.flatMap((c) =>
    Object.entries(c.summary.avgLatencyUs).map(([op, us]) => ({ ...base(c), op, value: us / 1000, label: `${label(c)} ${op}` })),
  );
  const errors = cells.map((c) => ({ ...base(c), value: c.summary.errorPercent }));
  const along = axisPhrase(x);
  const figures = [
    panelFigure(cells, x, row, {
      id: 'throughput-by',
      question: `How does throughput change with the ${along}?`,
      yTitle: 'Throughput (ops/s)',
      rows: throughput,
      finding: extremes(
        'throughput',
        cells.map((c) => ({ value: c.summary.throughputOpsPerS, label: label(c) })),
        ' ops/s',
        1,
      ),
    }),
  ];
  // Cells that recorded no latency (no successful operation, or YCSB totals without it) have no line.
  if (latency.length > 0) {
    figures.push(
      panelFigure(cells, x, row, {
        id: 'latency-by',
        question: `How do read and write latencies change with the ${along}?`,
        yTitle: 'Average latency (ms)',
        rows: latency,
        dash: 'op',
        finding: extremes('average latency', latency, ' ms', 1),
      }),
    );
  }
  if (cells.some((c) => c.summary.errorPercent > 0)) {
    figures.push(
      panelFigure(cells, x, row, {
        id: 'errors-by',
        question: `How many operations fail as the ${along} changes?`,
        yTitle: 'Failed operations (%)',
        rows: errors,
        finding: extremes(
          'the share of failed operations',
          cells.map((c) => ({ value: c.summary.errorPercent, label: label(c) })),
          '%',
          2,
        ),
      }),
    );
  }
  return figures;
}
