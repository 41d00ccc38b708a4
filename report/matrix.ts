/**
 * A run's cells form a matrix over their coordinates (database x workload x latencyScale...).
 * These helpers find the axes that vary and name cells and scaling factors for the reader; the
 * reference cell they are normalized against is core/cell-reference.ts's. Pure: no I/O.
 */
import type { CellRecord } from '../core/run-record';

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
