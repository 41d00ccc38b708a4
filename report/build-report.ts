/**
 * What a run's report holds: the question its data answers, the figures its data supports, and
 * the tables. The scenario's title chooses nothing: what the cells recorded (matrix axes,
 * events, resizes, ramped clients, RTT and traffic measurements) decides which figures appear,
 * and a figure with nothing finite to draw is left out with a note. Pure: from the stored
 * records to a model; html.ts draws it.
 */
import { validityBanner, type ValidityBanner } from './validity';
import type { CellRecord, RunRecord } from '../core/run-record';
import { hasRtt, hasSamples, runContents, type RunContents } from './contents';
import { categoryFigures } from './figures/by-category';
import { clientShares } from './figures/clients';
import { undrawable } from './figures/drawable';
import type { Figure } from './figures/figure';
import { rttTimeline } from './figures/link-removal';
import { resizeTimings } from './figures/resize-timings';
import { normalizedVsScale, throughputAtEnds } from './figures/scaling';
import { siteMotion } from './figures/site-motion';
import { throughputTimeline } from './figures/throughput-timeline';
import { consistencyTimeline } from './figures/consistency-timeline';
import { consistencyExamplesTable, consistencyNotes, consistencyTable } from './consistency';
import { trafficGraphs } from './figures/traffic-graph';
import { cellLabel, varyingAxes } from './matrix';
import { reportQuestion } from './question';
import { normalizeCells } from '../core/cell-summary';
import { runReference, type Reference } from '../core/cell-reference';
import { cellSummaryTable, pathChangeTable, removalTable, resizeTable, type Table } from './tables';
import { describeStack, isPublishedStack, stackEffect } from '../core/stack';

/** Per-second timelines beyond this many cells would bury the report; the tables cover the rest. */
export const MAX_TIMELINES = 24;

export interface ReportModel {
  run: RunRecord;
  question: string;
  figures: Figure[];
  tables: Table[];
  /** Things the reader should know about what is not shown. */
  notes: string[];
  /** The cells with normalization filled in, as the report used them. */
  cells: CellRecord[];
  /** How far to trust the figures: the cells' validity verdicts (absent for runs never judged). */
  validity?: ValidityBanner;
}

/** The scaling factor cells are normalized against (5X by default), when the run has one. */
function scaleReference(contents: RunContents, reference: Reference | undefined): number | undefined {
  const value = contents.scale ? reference?.[contents.scale.axis] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** Cells along a scaling factor: normalized values against it, and throughput at its two ends. */
function epochFigures(cells: CellRecord[], axis: string | undefined, at: number | undefined): Figure[] {
  if (!axis) return [];
  return [
    ...normalizedVsScale(cells, axis, 'normalizedThroughput', at),
    ...(at !== undefined ? throughputAtEnds(cells, axis, at) : []),
    ...normalizedVsScale(cells, axis, 'normalizedBytes', at),
  ];
}

/**
 * Per-second views of cells: wanted when something happens during a cell (events, ramped
 * clients) or RTT was measured over it, and for a run that nothing else would show. When some
 * cell has events, every cell is drawn, so a baseline sits beside the cells it is compared with.
 */
function timelineCells(cells: CellRecord[], contents: RunContents, otherFigures: number): CellRecord[] {
  const eventful = contents.eventKinds.length > 0 || contents.rampedCells > 0 || contents.rttCells > 0;
  if (!eventful && otherFigures > 0) return [];
  return cells.filter((c) => hasSamples(c) || hasRtt(c)).slice(0, MAX_TIMELINES);
}

function timelineFigures(cells: CellRecord[], axes: string[]): Figure[] {
  return cells.flatMap((cell) => [
    ...rttTimeline(cell, axes),
    ...throughputTimeline(cell, axes),
    ...siteMotion(cell, axes),
    ...clientShares(cell, axes),
  ]);
}

/** What the reader should know about cells and figures the report does not show. */
function coverageNotes(run: RunRecord, contents: RunContents, timelines: number, leftOut: [Figure, string][]): string[] {
  const notes = leftOut.map(([figure, problem]) => `A figure is left out (${figure.heading.split('?')[0]}?): ${problem}.`);
  for (const limit of run.inventory.shapingLimits ?? []) notes.push(`Link shaping on this fleet: ${limit}`);
  const stack = run.inventory.stack;
  if (stack && !isPublishedStack(stack))
    notes.push(`Network stack: ${describeStack(stack)}, not the published tinc over WireGuard (${stackEffect(stack)}).`);
  if (timelines === MAX_TIMELINES && contents.cellCount > timelines) {
    notes.push(`Per-second timelines are drawn for the first ${timelines} of ${contents.cellCount} cells; the tables cover all of them.`);
  }
  const unsampled = contents.cellCount - contents.sampledCells;
  if (unsampled > 0 && unsampled === contents.cellCount)
    notes.push('No cell recorded per-second samples in a measured phase: there is no timeline to draw, only the tables.');
  else if (unsampled > 0)
    notes.push(`${unsampled} of ${contents.cellCount} cells recorded no per-second samples in a measured phase: they appear only in the tables.`);
  const missing = run.cellIds.length - contents.cellCount;
  if (missing > 0) notes.push(`${missing} of ${run.cellIds.length} planned cells have no results (run ${run.status}).`);
  return notes;
}

export function buildReport(run: RunRecord, recorded: CellRecord[]): ReportModel {
  const reference = runReference(run, recorded);
  const cells = normalizeCells(recorded, reference);
  const axes = varyingAxes(cells);
  const contents = runContents(cells);
  const at = scaleReference(contents, reference);
  const overview = [
    ...categoryFigures(cells),
    ...epochFigures(cells, contents.scale?.axis, at),
    ...trafficGraphs(run.inventory, cells, at === undefined ? undefined : contents.scale?.axis, at),
    ...resizeTimings(cells, axes),
  ];
  const timelines = timelineCells(cells, contents, overview.length);
  // Every checked cell's consistency over time, whatever else the run shows.
  const consistency = cells.filter((c) => c.summary.consistency !== undefined).slice(0, MAX_TIMELINES);
  const candidates = [...overview, ...timelineFigures(timelines, axes), ...consistency.flatMap((c) => consistencyTimeline(c, axes))].map(
    (f): [Figure, string | undefined] => [f, undrawable(f)],
  );
  const figures = candidates.filter(([, problem]) => problem === undefined).map(([f]) => f);
  const leftOut = candidates.filter((c): c is [Figure, string] => c[1] !== undefined);
  const tables = [
    cellSummaryTable(cells, axes),
    consistencyTable(cells, axes),
    consistencyExamplesTable(cells, axes),
    resizeTable(cells, axes),
    removalTable(cells, axes),
    pathChangeTable(cells, axes),
  ].filter((t): t is Table => t !== undefined);
  const validity = validityBanner(cells, (cell) => cellLabel(cell, axes));
  return {
    run,
    question: reportQuestion(contents),
    figures,
    tables,
    notes: [...coverageNotes(run, contents, timelines.length, leftOut), ...consistencyNotes(cells)],
    cells,
    validity,
  };
}
