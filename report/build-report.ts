/**
 * What a run's report holds: the scenario's question, the figures its experiment kind calls
 * for, and the tables. Pure: from the stored records to a model; html.ts draws it.
 */
import type { CellRecord, ExperimentKind, RunRecord } from '../core/run-record';
import { categoryFigures } from './figures/by-category';
import type { Figure } from './figures/figure';
import { rttTimeline } from './figures/link-removal';
import { resizeTimings } from './figures/resize-timings';
import { normalizedVsScale, throughputAtEnds } from './figures/scaling';
import { throughputTimeline } from './figures/throughput-timeline';
import { trafficGraphs } from './figures/traffic-graph';
import { defaultReference, scaleAxis, varyingAxes, type Reference } from './matrix';
import { normalizeCells } from './summary';
import { cellSummaryTable, removalTable, resizeTable, type Table } from './tables';

/** Per-second timelines beyond this many cells would bury the report; the tables cover the rest. */
export const MAX_TIMELINES = 24;

/** The question each kind of experiment asks: the report's first line. */
export const QUESTIONS: Record<ExperimentKind, string> = {
  'latency-epochs': 'How does each database’s throughput change as every link’s latency is scaled from X (0.2) to 5X (1.0)?',
  'bandwidth-epochs': 'How does each database’s throughput change as every link’s bandwidth is scaled down?',
  traffic: 'How much data do the nodes of each database exchange, between which pairs, and how does that change with latency?',
  'single-resize': 'How long does each database take to accept and to complete removing or adding one node, at low and high latency?',
  'resize-on-the-fly': 'How does throughput behave while the cluster shrinks node by node and grows back, and how long does it take to settle after each step?',
  'link-removal': 'How do round-trip times and throughput change as links of the mesh are removed one by one?',
  bursting: 'How do throughput, latency and errors change as the cluster bursts from the private cloud into the public one (layouts n_m)?',
  distance: 'How does the distance to the public cloud region change throughput and latency across layouts?',
  'horizontal-scaling': 'How do throughput and latency change as public nodes are added to one private node?',
  'vertical-scaling': 'How do throughput and latency change with the number of cores of the public node?',
  'vm-packing': 'Is it better to add many small public VMs or a few large ones?',
  'timed-events': 'How do successful and failed operations per second respond as clients and servers start and stop?',
  quickstart: 'How does throughput respond to latency epochs, a resize and a link cut on a small local fleet?',
};

export interface ReportModel {
  run: RunRecord;
  question: string;
  figures: Figure[];
  tables: Table[];
  /** Things the reader should know about what is not shown. */
  notes: string[];
  /** The cells with normalization filled in, as the report used them. */
  cells: CellRecord[];
}

/** The reference the scenario named (settings.reference), else the scaled axis at 1.0. */
export function runReference(run: RunRecord, cells: CellRecord[]): Reference | undefined {
  const named = run.settings.reference;
  if (named && typeof named === 'object' && Object.values(named).every((v) => typeof v === 'string' || typeof v === 'number')) {
    return named as Reference;
  }
  return defaultReference(cells);
}

const TIMELINE_KINDS: ExperimentKind[] = ['single-resize', 'resize-on-the-fly', 'link-removal', 'timed-events', 'quickstart'];
const CATEGORY_KINDS: ExperimentKind[] = ['bursting', 'distance', 'horizontal-scaling', 'vertical-scaling', 'vm-packing'];

function epochFigures(run: RunRecord, cells: CellRecord[], reference: Reference | undefined): Figure[] {
  const axis = scaleAxis(cells);
  if (!axis) return [];
  const refValue = reference?.[axis];
  const at5x = typeof refValue === 'number' ? refValue : undefined;
  const throughput = [...normalizedVsScale(cells, axis, 'normalizedThroughput'), ...(at5x !== undefined ? throughputAtEnds(cells, axis, at5x) : [])];
  const traffic = [...trafficGraphs(run.inventory, cells, axis, at5x), ...normalizedVsScale(cells, axis, 'normalizedBytes')];
  return run.experiment === 'traffic' ? [...traffic, ...throughput] : [...throughput, ...traffic];
}

function timelineFigures(cells: CellRecord[], axes: string[]): Figure[] {
  return cells.slice(0, MAX_TIMELINES).flatMap((cell) => [...rttTimeline(cell, axes), throughputTimeline(cell, axes)]);
}

export function buildReport(run: RunRecord, recorded: CellRecord[]): ReportModel {
  const reference = runReference(run, recorded);
  const cells = normalizeCells(recorded, reference);
  const axes = varyingAxes(cells);
  const kind = run.experiment;
  const figures: Figure[] = [];
  if (kind === 'single-resize') figures.push(...resizeTimings(cells, axes));
  if (CATEGORY_KINDS.includes(kind)) figures.push(...categoryFigures(cells));
  if (!TIMELINE_KINDS.includes(kind)) figures.push(...epochFigures(run, cells, reference));
  const withTimelines = TIMELINE_KINDS.includes(kind) || figures.length === 0;
  if (withTimelines) figures.push(...timelineFigures(cells, axes));
  if (kind !== 'single-resize') figures.push(...resizeTimings(cells, axes));

  const notes: string[] = [];
  if (withTimelines && cells.length > MAX_TIMELINES) {
    notes.push(`Per-second timelines are drawn for the first ${MAX_TIMELINES} of ${cells.length} cells; the tables cover all of them.`);
  }
  if (cells.length < run.cellIds.length) notes.push(`${run.cellIds.length - cells.length} of ${run.cellIds.length} planned cells have no results (run ${run.status}).`);
  const tables = [cellSummaryTable(cells, axes), resizeTable(cells, axes), removalTable(cells, axes)].filter((t): t is Table => t !== undefined);
  return { run, question: QUESTIONS[kind], figures, tables, notes, cells };
}
