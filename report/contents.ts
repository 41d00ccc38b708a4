/**
 * What a run's recorded cells hold, as the report needs to know it: which axes the matrix varies,
 * which events happened, whether RTT and traffic were measured, whether clients were ramped.
 * The report chooses its figures and words from this, never from the scenario's title, so a
 * scenario of any shape gets the figures its data supports. Pure: no I/O.
 */
import type { EventKind } from '../core/events';
import type { CellRecord } from '../core/run-record';
import { categoryAxes } from './figures/by-category';
import { scaleAxis } from '../core/cell-reference';
import { cellTimeline, isDisturbance, isResize, isToolFault, measuredPhases } from '../core/cell-timeline';
import { runPhaseOf } from '../core/scenario';

export interface RunContents {
  cellCount: number;
  /** A numeric `...Scale` coordinate (epochs) and the values run, ascending. */
  scale?: { axis: string; values: number[] };
  /** Other coordinates that vary between cells (layout, region...), best axis first. */
  categories: string[];
  /** Kinds of disturbing events (not measurements) recorded in any measured phase, first seen first. */
  eventKinds: EventKind[];
  /** Some resize has a time the database accepted or completed it. */
  resizeTimes: boolean;
  /** Cells whose load was split over several clients (ramped client phases such as `run:c2`). */
  rampedCells: number;
  /** Cells with at least one RTT measurement that got an answer. */
  rttCells: number;
  /** Cells whose traffic readings show bytes exchanged. */
  trafficCells: number;
  /** Cells with at least one per-second sample in a measured phase. */
  sampledCells: number;
  /** Cells whose consistency was checked (ycsb.check). */
  checkedCells: number;
}

const isClientPhase = (name: string) => runPhaseOf(name) !== undefined;

export function hasSamples(cell: CellRecord): boolean {
  return cellTimeline(cell.phases).points.length > 0;
}

export function hasRtt(cell: CellRecord): boolean {
  return measuredPhases(cell.phases).some((p) => p.rtt.some((m) => m.meanMs !== null && Number.isFinite(m.meanMs)));
}

export function isRamped(cell: CellRecord): boolean {
  return measuredPhases(cell.phases).some((p) => isClientPhase(p.name));
}

export function runContents(cells: CellRecord[]): RunContents {
  const axis = scaleAxis(cells);
  const events = cells.flatMap((c) => measuredPhases(c.phases).flatMap((p) => p.events));
  const resizes = [...events.filter((e) => isResize(e.kind)), ...cells.flatMap((c) => c.phases.flatMap((p) => p.resizes))];
  const { x, row } = categoryAxes(cells);
  return {
    cellCount: cells.length,
    ...(axis ? { scale: { axis, values: [...new Set(cells.map((c) => c.coordinates[axis] as number))].sort((a, b) => a - b) } } : {}),
    categories: [x, row].filter((a): a is string => a !== undefined),
    eventKinds: [...new Set(events.map((e) => e.kind).filter((k) => isDisturbance(k) && !isToolFault(k)))],
    resizeTimes: resizes.some((r) => r.acceptedAt !== undefined || r.completedAt !== undefined),
    rampedCells: cells.filter(isRamped).length,
    rttCells: cells.filter(hasRtt).length,
    trafficCells: cells.filter((c) => (c.summary.bytesTransferred ?? 0) > 0).length,
    sampledCells: cells.filter(hasSamples).length,
    checkedCells: cells.filter((c) => c.summary.consistency !== undefined).length,
  };
}
