/**
 * What `fragbench compare` shows, as data (its `--json`, and what the page draws): the runs, how
 * they were lined up, and per line each side's values (the median and 95 % interval across its
 * repetitions, or its one value) and each side's differences from the baseline side (the first
 * given), with an interval where repetitions exist. Pure: from stored records to the model.
 */
import { bootstrapDifferenceInterval, estimate, type Estimate } from '../../core/reproduce/statistics';
import type { CellRecord } from '../../core/run-record';
import { columnsFor, type CellColumn } from './columns';
import { lineUp, type Anchor, type ComparedRun, type LinedCell, type Side } from './line-up';

/** A side's value in one column: an estimate over its repetitions, a text, or nothing recorded. */
export type SideValue = Estimate | { text: string } | null;

export interface DifferenceValue {
  /** median(side) − median(baseline). */
  difference: number;
  /** The same as a percentage of the baseline's median, where that is not 0. */
  relativePercent?: number;
  /** 95 % bootstrap interval of the difference, where either side has repetitions. */
  low?: number;
  high?: number;
}

export interface ComparedSide {
  side: string;
  cells: { runId: string; cellId: string }[];
  values: Record<string, SideValue>;
}

export interface ComparedLine {
  label: string;
  coordinates: Record<string, string | number>;
  anchors: Anchor[];
  sides: ComparedSide[];
  /** Each side but the baseline, against it. */
  differences: { side: string; against: string; values: Record<string, DifferenceValue | null> }[];
  /** The cells themselves, for the figures (left out of the JSON). */
  linedCells: { side: string; cells: LinedCell[] }[];
}

export interface ComparedColumn {
  heading: string;
  numeric: boolean;
  digits: number;
}

export interface RunComparison {
  by: Side;
  baseline: string;
  sides: { side: string; runIds: string[] }[];
  runs: { runId: string; scenario: string; experiment: string; status: string; startedAt: number; topology: string; databases: string[] }[];
  columns: ComparedColumn[];
  lines: ComparedLine[];
}

function sideValue(column: CellColumn, cells: CellRecord[]): SideValue {
  const values = cells.map((c) => column.value(c)).filter((v) => v !== undefined);
  const numbers = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (numbers.length > 0) return estimate(numbers);
  const texts = [...new Set(values.map(String))];
  return texts.length > 0 ? { text: texts.join(' / ') } : null;
}

function numbersOf(column: CellColumn, cells: CellRecord[]): number[] {
  return cells.map((c) => column.value(c)).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

function difference(column: CellColumn, side: CellRecord[], baseline: CellRecord[]): DifferenceValue | null {
  const [a, b] = [numbersOf(column, side), numbersOf(column, baseline)];
  if (a.length === 0 || b.length === 0) return null;
  const [ea, eb] = [estimate(a), estimate(b)];
  const value: DifferenceValue = { difference: ea.median - eb.median };
  if (eb.median !== 0) value.relativePercent = ((ea.median - eb.median) / Math.abs(eb.median)) * 100;
  if (a.length > 1 || b.length > 1) Object.assign(value, bootstrapDifferenceInterval(a, b));
  return value;
}

/** Lines the runs up (refusing runs whose cells do not match) and measures each line's sides. */
export function compareRuns(runs: ComparedRun[], by?: Side): RunComparison {
  const lined = lineUp(runs, by);
  const order = lined.sides.map((s) => s.side);
  const columns = columnsFor(runs.flatMap((r) => r.cells));
  const baseline = order[0];
  const lines = lined.lines.map((line): ComparedLine => {
    const sides = [...line.sides].sort((a, b) => order.indexOf(a.side) - order.indexOf(b.side));
    const cellsOf = (side: string) => sides.find((s) => s.side === side)!.cells.map((c) => c.cell);
    return {
      label: line.label,
      coordinates: line.coordinates,
      anchors: line.anchors,
      sides: sides.map((s) => ({
        side: s.side,
        cells: s.cells.map((c) => ({ runId: c.runId, cellId: c.cell.cellId })),
        values: Object.fromEntries(columns.map((col) => [col.heading, sideValue(col, cellsOf(s.side))])),
      })),
      differences: sides
        .filter((s) => s.side !== baseline)
        .map((s) => ({
          side: s.side,
          against: baseline,
          values: Object.fromEntries(
            columns.filter((col) => isNumeric(col, runs)).map((col) => [col.heading, difference(col, cellsOf(s.side), cellsOf(baseline))]),
          ),
        })),
      linedCells: sides,
    };
  });
  return {
    by: lined.by,
    baseline,
    sides: lined.sides,
    runs: runs.map(({ run, cells }) => ({
      runId: run.runId,
      scenario: run.scenario,
      experiment: run.experiment,
      status: run.status,
      startedAt: run.startedAt,
      topology: run.inventory.name,
      databases: [
        ...new Set(
          cells
            .map((c) => c.cluster?.database ?? c.coordinates.database)
            .filter((d) => d !== undefined)
            .map(String),
        ),
      ],
    })),
    columns: columns.map((col) => ({ heading: col.heading, numeric: isNumeric(col, runs), digits: col.digits ?? 0 })),
    lines,
  };
}

function isNumeric(column: CellColumn, runs: ComparedRun[]): boolean {
  return runs.some((r) => r.cells.some((c) => typeof column.value(c) === 'number'));
}

/** The model as `--json` prints it: everything but the cells' own records. */
export function comparisonJson(comparison: RunComparison): string {
  // The cells' records are the runs' own: `fragbench export` gives them.
  return JSON.stringify(comparison, (key, value: unknown) => (key === 'linedCells' ? undefined : value), 2);
}
