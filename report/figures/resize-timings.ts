/**
 * How long resizes take, split the papers' way: until the cluster accepted the request and until
 * it completed (data moved, node serving or gone). Bars per database for single resizes; bars
 * per step, a row per cell, when a cell resized many times.
 */
import type { CellRecord } from '../../core/run-record';
import { scaleAxis } from '../../core/cell-reference';
import { cellLabel, scaleLabel } from '../matrix';
import { findEventKind } from '../../core/event-kinds/registry';
import { isResize } from '../../core/cell-timeline';
import { BASE_CONFIG, axisTitle, figureId, formatNumber, sentence, type Figure } from './figure';

export interface ResizeRow {
  cell: string;
  database: string;
  factor?: string;
  op: 'add' | 'remove' | 'resize';
  step: string;
  order: number;
  timing: 'accepted' | 'completed';
  seconds: number;
}

const TIMINGS = { accepted: '#92c5de', completed: '#2166ac' };

/** Resize timings from the events (which know add from remove), plus any the events lack. */
export function resizeRows(cells: CellRecord[], axes: string[]): ResizeRow[] {
  const axis = scaleAxis(cells);
  return cells.flatMap((cell) => {
    const base = {
      cell: cellLabel(cell, axes),
      database: String(cell.coordinates.database ?? cell.cellId),
      ...(axis ? { factor: scaleLabel(cell.coordinates[axis] as number) } : {}),
    };
    const events = cell.phases.flatMap((p) => p.events).filter((e) => isResize(e.kind));
    const timings = [
      ...events.map((e) => ({
        op: findEventKind(e.kind)?.resize?.delta === 1 ? ('add' as const) : ('remove' as const),
        step: e.label,
        requestedAt: e.requestedAt,
        acceptedAt: e.acceptedAt,
        completedAt: e.completedAt,
      })),
      ...cell.phases
        .flatMap((p) => p.resizes)
        .filter((r) => !events.some((e) => e.requestedAt === r.requestedAt))
        .map((r) => ({ op: 'resize' as const, step: r.node, ...r })),
    ].sort((a, b) => a.requestedAt - b.requestedAt);
    return timings.flatMap((t, order) =>
      (['accepted', 'completed'] as const)
        .map((timing) => ({ timing, at: timing === 'accepted' ? t.acceptedAt : t.completedAt }))
        .filter((x): x is { timing: 'accepted' | 'completed'; at: number } => x.at !== undefined)
        .map(({ timing, at }) => ({ ...base, op: t.op, step: t.step, order, timing, seconds: (at - t.requestedAt) / 1000 })),
    );
  });
}

function finding(rows: ResizeRow[]): string {
  const slowest = rows
    .filter((r) => r.timing === 'completed')
    .reduce<ResizeRow | undefined>((a, b) => (!a || b.seconds > a.seconds ? b : a), undefined);
  const quickest = rows
    .filter((r) => r.timing === 'accepted')
    .reduce<ResizeRow | undefined>((a, b) => (!a || b.seconds < a.seconds ? b : a), undefined);
  const parts: string[] = [];
  if (slowest) parts.push(`the slowest completion is ${slowest.cell} ${slowest.step}, ${formatNumber(slowest.seconds, 1)} s`);
  if (quickest) parts.push(`the quickest acceptance ${quickest.cell} ${quickest.step}, ${formatNumber(quickest.seconds, 1)} s`);
  return parts.join('; ');
}

/** X, 2X ... 5X in numeric order. */
function factorOrder(rows: ResizeRow[]): string[] {
  const value = (label: string) => (label === 'X' ? 1 : parseFloat(label));
  return [...new Set(rows.map((r) => r.factor as string))].sort((a, b) => value(a) - value(b));
}

export function resizeTimings(cells: CellRecord[], axes: string[]): Figure[] {
  const rows = resizeRows(cells, axes);
  if (rows.length === 0) return [];
  const color = { field: 'timing', type: 'nominal', title: 'Request', scale: { domain: Object.keys(TIMINGS), range: Object.values(TIMINGS) } };
  const y = { field: 'seconds', type: 'quantitative', title: 'Seconds after the request' };
  const perCellOp = new Map<string, number>();
  for (const r of rows.filter((x) => x.timing === 'accepted')) perCellOp.set(`${r.cell}|${r.op}`, (perCellOp.get(`${r.cell}|${r.op}`) ?? 0) + 1);
  const single = [...perCellOp.values()].every((n) => n === 1);
  const spec = single
    ? {
        facet: {
          column: {
            field: 'op',
            type: 'nominal',
            title: null,
            sort: ['remove', 'add', 'resize'],
            header: { labelExpr: "datum.value == 'add' ? 'adding a node' : datum.value == 'remove' ? 'removing a node' : 'resize'" },
          },
          ...(rows.some((r) => r.factor)
            ? { row: { field: 'factor', type: 'nominal', title: axisTitle(scaleAxis(cells) ?? ''), sort: factorOrder(rows) } }
            : {}),
        },
        spec: {
          width: { step: 26 },
          height: 160,
          mark: { type: 'bar' },
          encoding: { x: { field: 'database', type: 'nominal', title: 'Database', axis: { labelAngle: 0 } }, xOffset: { field: 'timing' }, y, color },
        },
      }
    : {
        facet: { row: { field: 'cell', type: 'nominal', title: null } },
        spec: {
          width: { step: 16 },
          height: 140,
          mark: { type: 'bar' },
          encoding: {
            x: { field: 'step', type: 'ordinal', title: 'Resize step', sort: { field: 'order' }, axis: { labelAngle: -40 } },
            xOffset: { field: 'timing' },
            y,
            color,
          },
        },
        resolve: { scale: { x: 'independent' } },
      };
  return [
    {
      id: figureId('resize-timings'),
      heading: `How long does each database take to accept and to complete a resize? ${sentence(finding(rows))}.`,
      spec: { config: BASE_CONFIG, data: { values: rows }, ...spec } as Figure['spec'],
    },
  ];
}
