/**
 * The scenario's events as every per-second figure of a cell draws them: a dotted vertical line
 * per event, coloured by kind (eventStyle), labelled when there are few enough to read.
 */
import type { CellTimeline } from '../../core/cell-timeline';
import { isDisturbance } from '../../core/cell-timeline';
import { eventStyle } from './figure';

/** Above this many events a figure shows colours only: labels would overprint each other. */
export const MAX_LABELLED_EVENTS = 16;

export interface EventRow {
  /** Seconds since the cell's origin (cell-timeline.ts). */
  t: number;
  kind: string;
  label: string;
}

export interface EventMarkers {
  rows: EventRow[];
  /** The kinds shown, first seen first (the legend's order). */
  kinds: string[];
  /** Whether the lines carry their labels. */
  labelled: boolean;
}

/** The events that disturb the workload (measurements are left out), on the cell's axis. */
export function eventMarkers(timeline: Pick<CellTimeline, 'events'>): EventMarkers {
  const shown = timeline.events.filter((e) => isDisturbance(e.event.kind));
  const rows = shown.map((e) => ({ t: e.t, kind: eventStyle(e.event.kind).name, label: e.event.label }));
  return { rows, kinds: [...new Set(shown.map((e) => e.event.kind))], labelled: rows.length > 0 && rows.length <= MAX_LABELLED_EVENTS };
}

/** The layers that draw the markers against `x` (none without events); labels are cut to the plot's `height`. */
export function eventMarkerLayers(markers: EventMarkers, x: Record<string, unknown>, height: number): unknown[] {
  if (markers.rows.length === 0) return [];
  const layers: unknown[] = [
    {
      data: { values: markers.rows },
      mark: { type: 'rule', strokeDash: [4, 3], strokeWidth: 1.5 },
      encoding: {
        x,
        stroke: {
          field: 'kind',
          type: 'nominal',
          title: 'Events',
          scale: { domain: markers.kinds.map((k) => eventStyle(k).name), range: markers.kinds.map((k) => eventStyle(k).color) },
        },
      },
    },
  ];
  if (markers.labelled) {
    layers.push({
      data: { values: markers.rows },
      mark: { type: 'text', angle: 270, align: 'right', baseline: 'bottom', dx: -4, dy: -2, fontSize: 9, fill: '#333333', limit: height - 4 },
      encoding: { x, y: { value: 0 }, text: { field: 'label' } },
    });
  }
  return layers;
}
