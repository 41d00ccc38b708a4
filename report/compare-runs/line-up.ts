/**
 * Runs lined up cell for cell, for `fragbench compare` (not to be confused with
 * report/comparison-html.ts, a reproduction against the published values). Runs are compared
 * by one thing that differs between them, the "side": each cell's database, or the run's
 * topology, scenario or id. Cells meet on a line when their coordinates agree apart from the
 * side (and the side's own axis); cells of one side on one line are repetitions. A line must hold
 * every side, and its cells the same scenario events in the same order, to be lined up at them:
 * otherwise the comparison is refused, saying which cells do not match. Pure: no I/O.
 */
import { InputError } from '../../core/errors';
import { findEventKind } from '../../core/event-kinds/registry';
import { cellTimeline, isDisturbance } from '../../core/cell-timeline';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { cellLabel } from '../matrix';

export const SIDES = ['database', 'topology', 'scenario', 'run'] as const;
export type Side = (typeof SIDES)[number];

export interface ComparedRun {
  run: RunRecord;
  cells: CellRecord[];
}

export interface LinedCell {
  runId: string;
  cell: CellRecord;
}

/** One side's cells on a line: one per run (repetitions). */
export interface SideCells {
  side: string;
  cells: LinedCell[];
}

/** A scenario event the cells of a line are aligned at: its place in each cell's timeline. */
export interface Anchor {
  kind: string;
  label: string;
}

export interface CellLine {
  /** The coordinates the line's cells share (the side's own axis left out). */
  coordinates: Record<string, string | number>;
  /** For a reader: `X · workload a`, or the first cell's id when the cells have no coordinates. */
  label: string;
  /** In the order the sides were first met (the first is the baseline differences are taken from). */
  sides: SideCells[];
  /** The scenario events every cell of the line recorded, in order (the first cell's labels). */
  anchors: Anchor[];
}

export interface LineUp {
  by: Side;
  /** Each side with the runs it came from, baseline first. */
  sides: { side: string; runIds: string[] }[];
  lines: CellLine[];
}

/** The coordinate that names a cell's database, where a matrix has one. */
const DATABASE_AXIS = 'database';

function databaseOf(cell: CellRecord): string | undefined {
  const axis = cell.coordinates[DATABASE_AXIS];
  return cell.cluster?.database ?? (axis === undefined ? undefined : String(axis));
}

function sideOf(by: Side, { run }: ComparedRun, cell: CellRecord): string {
  if (by === 'database') {
    const database = databaseOf(cell);
    if (database === undefined)
      throw new InputError('--by', `cell ${cell.cellId} of run ${run.runId} does not say its database; compare by topology, scenario or run`);
    return database;
  }
  if (by === 'topology') return run.inventory.name;
  if (by === 'scenario') return run.scenario;
  return run.runId;
}

/** The first side, in SIDES order, on which the runs' cells differ; `run` when nothing else does. */
export function chooseSide(runs: ComparedRun[]): Side {
  for (const by of SIDES.slice(0, -1)) {
    try {
      const sides = new Set(runs.flatMap((r) => r.cells.map((c) => sideOf(by, r, c))));
      if (sides.size > 1) return by;
    } catch {
      // A cell with no database cannot be compared by database: try the next side.
    }
  }
  return 'run';
}

/** The scenario's own events in a cell's measured timeline (restarts and faults the tool recorded are not). */
export function scenarioEvents(cell: CellRecord) {
  return cellTimeline(cell.phases).events.filter((e) => findEventKind(e.event.kind) !== undefined && isDisturbance(e.event.kind));
}

const coordinatesText = (coordinates: Record<string, string | number>) =>
  Object.keys(coordinates).length === 0
    ? 'no coordinates'
    : Object.entries(coordinates)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');

/** At most this many mismatches are named; the count says how many there were. */
const NAMED_PROBLEMS = 5;

function refuse(problems: string[], by: Side): never {
  const named = problems.slice(0, NAMED_PROBLEMS).map((p) => `  ${p}`);
  const more = problems.length > NAMED_PROBLEMS ? [`  ... and ${problems.length - NAMED_PROBLEMS} more`] : [];
  throw new InputError(
    'runs',
    `their cells cannot be matched (compared by ${by}: cells meet when their coordinates agree apart from the ${by}, and must have recorded the same scenario events in the same order):\n${[...named, ...more].join('\n')}`,
  );
}

export function lineUp(runs: ComparedRun[], by: Side = chooseSide(runs)): LineUp {
  const ids = runs.map((r) => r.run.runId);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new InputError('runs', `run ${twice} is given twice; give each run once`);
  const lines = new Map<string, CellLine>();
  const sides: LineUp['sides'] = [];
  for (const compared of runs) {
    for (const cell of compared.cells) {
      const side = sideOf(by, compared, cell);
      const coordinates = Object.fromEntries(Object.entries(cell.coordinates).filter(([k]) => !(by === 'database' && k === DATABASE_AXIS)));
      const key = JSON.stringify(Object.entries(coordinates).sort(([a], [b]) => a.localeCompare(b)));
      const line = lines.get(key) ?? { coordinates, label: cellLabel({ coordinates, cellId: cell.cellId }), sides: [], anchors: [] };
      lines.set(key, line);
      const entry = line.sides.find((s) => s.side === side) ?? { side, cells: [] };
      if (!line.sides.includes(entry)) line.sides.push(entry);
      entry.cells.push({ runId: compared.run.runId, cell });
      const known = sides.find((s) => s.side === side) ?? { side, runIds: [] };
      if (!sides.includes(known)) sides.push(known);
      if (!known.runIds.includes(compared.run.runId)) known.runIds.push(compared.run.runId);
    }
  }
  if (sides.length < 2) {
    const only = sides[0]?.side ?? 'none';
    throw new InputError(
      'runs',
      `nothing to compare: every cell has ${by} ${only}; give runs of other databases, topologies or scenarios, or --by run to line up runs of one`,
    );
  }
  const problems: string[] = [];
  for (const line of lines.values()) {
    for (const { side } of sides) {
      if (line.sides.some((s) => s.side === side)) continue;
      const present = line.sides[0].cells[0];
      problems.push(`${by} ${side} has no cell at ${coordinatesText(line.coordinates)} (run ${present.runId} has ${present.cell.cellId} there)`);
    }
    const cells = line.sides.flatMap((s) => s.cells);
    const kinds = (c: LinedCell) => scenarioEvents(c.cell).map((e) => e.event.kind);
    const first = cells[0];
    for (const other of cells.slice(1)) {
      if (JSON.stringify(kinds(other)) === JSON.stringify(kinds(first))) continue;
      const listed = (c: LinedCell) => `run ${c.runId} cell ${c.cell.cellId} [${kinds(c).join(', ') || 'no events'}]`;
      problems.push(`at ${coordinatesText(line.coordinates)}: ${listed(other)} differs from ${listed(first)}`);
    }
    line.anchors = scenarioEvents(first.cell).map((e) => ({ kind: e.event.kind, label: e.event.label }));
  }
  if (problems.length > 0) refuse(problems, by);
  // Lines in sides' order is meaningless; the first run's cell order is the scenario's.
  return { by, sides, lines: [...lines.values()] };
}
