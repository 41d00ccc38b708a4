/**
 * The reference cell a run's other cells are normalized against: the one the scenario names
 * (settings.reference), else, for a matrix with a scaled axis, that axis at 1.0 (the papers' 5X).
 * Pure (no I/O): the results service normalizes with it and the report reads the same values.
 */
import type { CellRecord, RunRecord } from './run-record';

type Coordinates = CellRecord['coordinates'];

/** The coordinates a reference cell has: a subset of dimensions with their values. */
export type Reference = Record<string, string | number>;

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

/** Without a reference named by the scenario: the scaled axis at its reference value, if any. */
export function defaultReference(cells: Pick<CellRecord, 'coordinates'>[]): Reference | undefined {
  const axis = scaleAxis(cells);
  return axis ? { [axis]: referenceScale(cells, axis) } : undefined;
}

/** The reference the scenario named (settings.reference), else the scaled axis at 1.0. */
export function runReference(run: RunRecord, cells: CellRecord[]): Reference | undefined {
  const named = run.settings.reference;
  if (named && typeof named === 'object' && Object.values(named).every((v) => typeof v === 'string' || typeof v === 'number')) {
    return named as Reference;
  }
  return defaultReference(cells);
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
