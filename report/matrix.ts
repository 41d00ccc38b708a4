/**
 * A run's cells form a matrix over their coordinates (database x workload x latencyScale...).
 * These helpers find its axes and, for a scaled axis, the reference cell every other cell is
 * normalized against (latencyScale 1.0, the papers' 5X). Pure: no I/O.
 */
import type { CellRecord } from '../core/run-record';

type Coordinates = CellRecord['coordinates'];

/** Coordinate names whose value differs between cells, in first-seen order. */
export function varyingAxes(cells: Pick<CellRecord, 'coordinates'>[]): string[] {
  const values = new Map<string, Set<string | number>>();
  for (const cell of cells) {
    for (const [key, value] of Object.entries(cell.coordinates)) {
      if (!values.has(key)) values.set(key, new Set());
      values.get(key)!.add(value);
    }
  }
  return [...values].filter(([, set]) => set.size > 1).map(([key]) => key);
}

/**
 * The scaled axis of an epochs matrix: a numeric coordinate named `...Scale` (latencyScale,
 * bandwidthScale). Present even when only one value was run, so a single-epoch run still names it.
 */
export function scaleAxis(cells: Pick<CellRecord, 'coordinates'>[]): string | undefined {
  const names = new Set(cells.flatMap((c) => Object.keys(c.coordinates)));
  return [...names].find((name) => /Scale$/.test(name) && cells.every((c) => typeof c.coordinates[name] === 'number'));
}

/** The value cells are normalized against: 1.0 (5X) when it was run, else the largest. */
export function referenceScale(cells: Pick<CellRecord, 'coordinates'>[], axis: string): number {
  const scales = cells.map((c) => c.coordinates[axis] as number);
  return scales.includes(1) ? 1 : Math.max(...scales);
}

export type Reference = Record<string, string | number>;

/** Without a reference named by the scenario: the scaled axis at its reference value, if any. */
export function defaultReference(cells: Pick<CellRecord, 'coordinates'>[]): Reference | undefined {
  const axis = scaleAxis(cells);
  return axis ? { [axis]: referenceScale(cells, axis) } : undefined;
}

/**
 * The cell `cell` is normalized against: the one whose coordinates are `cell`'s with the
 * reference's dimensions set to the reference's values (e.g. the same database and workload at
 * latencyScale 1).
 */
export function referenceCellFor<C extends Pick<CellRecord, 'coordinates'>>(cell: C, cells: C[], reference: Reference): C | undefined {
  const wanted: Coordinates = { ...cell.coordinates, ...reference };
  const keys = Object.keys(wanted);
  return cells.find((c) => keys.length === Object.keys(c.coordinates).length && keys.every((k) => c.coordinates[k] === wanted[k]));
}

/** The papers' notation for scaling factors: 0.2 -> `X`, 0.4 -> `2X` ... 1.0 -> `5X`. */
export function scaleLabel(scale: number): string {
  const multiple = Math.round((scale / 0.2) * 100) / 100;
  return multiple === 1 ? 'X' : `${multiple}X`;
}

/** A cell's coordinates as a short label, e.g. `redis · a · X`. */
export function cellLabel(cell: Pick<CellRecord, 'coordinates' | 'cellId'>, axes?: string[]): string {
  const keys = axes && axes.length > 0 ? axes : Object.keys(cell.coordinates);
  const parts = keys
    .filter((k) => k in cell.coordinates)
    .map((k) => {
      const value = cell.coordinates[k];
      if (/Scale$/.test(k) && typeof value === 'number') return scaleLabel(value);
      if (k === 'workload') return `workload ${value}`;
      return String(value);
    });
  return parts.length > 0 ? parts.join(' · ') : cell.cellId;
}
