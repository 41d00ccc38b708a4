/**
 * What every figure builder returns, and the look all figures share (colours that keep their
 * meaning from one figure to the next, axis wording).
 */
import { isDisturbance, type CellTimeline } from '../../core/cell-timeline';
import type { EventKind } from '../../core/events';
import { eventKinds, findEventKind, type EventAction } from '../../core/event-kinds/registry';
import type { TopLevelSpec } from '../vega';

export interface Figure {
  /** Unique in the report and file-safe: the HTML anchor and `<id>.png`. */
  id: string;
  /** One sentence: the question the figure answers and what the data says. */
  heading: string;
  spec: TopLevelSpec;
}

/** Ok and failed operations, everywhere. */
export const OUTCOME_COLORS = { successful: '#2166ac', failed: '#d6301d' } as const;

/** The sides of a comparison (databases, topologies, runs), in order: dark, and apart from the event kinds' colours. */
export const SIDE_COLORS = ['#2166ac', '#c51b7d', '#1a1a1a', '#4d9221', '#542788', '#b35806', '#35978f', '#8c6d31'] as const;

export interface EventStyle {
  name: string;
  color: string;
}

/**
 * Kinds no scenario asks for, so no event-kind module styles them: the tool records restarts and
 * faults itself, and older results hold server starts and stops. Client and server starts differ
 * in colour on purpose.
 */
const RECORDED_ONLY_STYLE: Record<Exclude<EventKind, EventAction['kind']>, EventStyle> = {
  'client-restart': { name: 'client restarted (tool fault)', color: '#525252' },
  'tool-fault': { name: 'fleet daemon died and restarted (tool fault)', color: '#7f1d1d' },
  'node-fault': { name: 'database node crashed unasked and restarted', color: '#54278f' },
  'server-start': { name: 'server start', color: '#e7298a' },
  'server-stop': { name: 'server stop', color: '#fbb4c9' },
};

/** An event kind's name in legends and its colour; a kind nothing knows (any more) is named as recorded. */
export function eventStyle(kind: string): EventStyle {
  return findEventKind(kind)?.marker ?? (RECORDED_ONLY_STYLE as Record<string, EventStyle>)[kind] ?? { name: kind, color: '#666666' };
}

/** The styles of the built-in kinds, for a reader holding an EventKind; figures call eventStyle. */
export const EVENT_STYLE = Object.fromEntries(
  [...eventKinds().map((k) => k.kind), ...Object.keys(RECORDED_ONLY_STYLE)].map((kind) => [kind, eventStyle(kind)]),
) as Record<EventKind, EventStyle>;

/** Above this many events a figure shows colours only: labels would overprint each other. */
export const MAX_LABELLED_EVENTS = 16;

/** Whether a figure with this many events labels them (and so leaves room above its data for the labels). */
export const labelsEvents = (events: number) => events > 0 && events <= MAX_LABELLED_EVENTS;

/** An event on a time axis as the figures draw it: its second, its kind's legend name, its label. */
export interface EventRow {
  t: number;
  kind: string;
  label: string;
}

/** A cell's events as its per-second figures draw them: the rows, the kinds first seen first, whether labelled. */
export interface EventMarkers {
  rows: EventRow[];
  kinds: string[];
  labelled: boolean;
}

/** The events that disturb the workload (measurements are left out), on the cell's axis. */
export function eventMarkers(timeline: Pick<CellTimeline, 'events'>): EventMarkers {
  const shown = timeline.events.filter((e) => isDisturbance(e.event.kind));
  const rows = shown.map((e) => ({ t: e.t, kind: eventStyle(e.event.kind).name, label: e.event.label }));
  return { rows, kinds: [...new Set(shown.map((e) => e.event.kind))], labelled: labelsEvents(rows.length) };
}

/**
 * The events of a timeline figure: a dotted rule per event in its kind's colour, with a legend of
 * the kinds, and the events' labels when there are few. `x` is the figure's time encoding.
 */
export function eventLayers(rows: EventRow[], kinds: string[], x: object): unknown[] {
  if (rows.length === 0) return [];
  const rules = {
    data: { values: rows },
    mark: { type: 'rule', strokeDash: [4, 3], strokeWidth: 1.5 },
    encoding: {
      x,
      stroke: {
        field: 'kind',
        type: 'nominal',
        title: 'Events',
        scale: { domain: kinds.map((k) => eventStyle(k).name), range: kinds.map((k) => eventStyle(k).color) },
      },
    },
  };
  const labels = {
    data: { values: rows },
    mark: { type: 'text', angle: 270, align: 'right', baseline: 'bottom', dx: -4, dy: -2, fontSize: 9, fill: '#333333' },
    encoding: { x, y: { value: 0 }, text: { field: 'label' } },
  };
  return labelsEvents(rows.length) ? [rules, labels] : [rules];
}

/** Shared Vega-Lite config: readable on screen and in a paper-sized PNG. */
export const BASE_CONFIG = {
  background: 'white',
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' as const, gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' as const, titleLimit: 260, labelLimit: 220 },
  header: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: 'normal' as const },
  view: { stroke: '#cccccc' },
};

/** A file-safe id from parts: `throughput`, `redis · a` -> `throughput-redis-a`. */
export function figureId(...parts: (string | number)[]): string {
  return parts
    .map((p) =>
      String(p)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter((p) => p.length > 0)
    .join('-');
}

/** A coordinate's name as an axis title: `latencyScale` -> `Latency scaling factor`. */
export function axisTitle(coordinate: string): string {
  const special: Record<string, string> = {
    latencyScale: 'Latency scaling factor',
    bandwidthScale: 'Bandwidth scaling factor',
    layout: 'Layout (private_public nodes)',
    publicNodes: 'Public nodes',
    cores: 'Cores per public node',
    packing: 'Public VMs x cores',
    region: 'Region',
    database: 'Database',
    workload: 'Workload',
  };
  if (special[coordinate]) return special[coordinate];
  const words = coordinate.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A coordinate as words in a sentence: `How does throughput change with the ...?` */
export function axisPhrase(coordinate: string): string {
  const special: Record<string, string> = {
    layout: 'layout (private_public nodes)',
    publicNodes: 'number of public nodes',
    cores: 'cores of the public node',
    packing: 'packing of the public VMs (VMs x cores)',
  };
  return special[coordinate] ?? axisTitle(coordinate).toLowerCase();
}

/** Vega expression labelling a scaling-factor axis the papers' way (0.2 -> X ... 1.0 -> 5X). */
export const SCALE_LABEL_EXPR = "datum.value == 0.2 ? 'X' : format(datum.value / 0.2, '.2~f') + 'X'";

export const formatNumber = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });

/** Whether two values print the same at `digits` decimals: then no sentence may call it a change. */
export const printsEqual = (a: number, b: number, digits: number) => formatNumber(a, digits) === formatNumber(b, digits);

/** A value's change in words (`went from 6.7 ms to 9.1 ms`), or `stayed at 6.7 ms` when it prints the same. */
export function changeText(before: number, after: number, unit: string, digits: number): string {
  const [a, b] = [formatNumber(before, digits), formatNumber(after, digits)];
  return printsEqual(before, after, digits) ? `stayed at ${a}${unit}` : `went from ${a}${unit} to ${b}${unit}`;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${formatNumber(value, value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Capitalizes the first letter: findings are built from parts and open a sentence. */
export const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
