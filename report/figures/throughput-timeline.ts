/**
 * Throughput per second over a cell's run: successful and failed operations in two colours,
 * every event a dotted vertical line coloured by kind (and labelled when there are few), each
 * resize's data movement shaded from its request to its completion (as the database's adapter
 * defines it), and, separately, the time throughput took to settle after it (SETTLE_RULE).
 */
import type { CellRecord } from '../../core/run-record';
import { isRamped } from '../contents';
import { cellLabel } from '../matrix';
import { settleTimes } from '../../core/cell-summary';
import { cellTimeline, isResize } from '../../core/cell-timeline';
import { BASE_CONFIG, OUTCOME_COLORS, eventLayers, eventMarkers, figureId, formatNumber, type Figure } from './figure';

const SETTLE_PERIODS = { 'resize moving data': '#b2abd2', 'throughput settling': '#fdb863', 'throughput not settled': '#f4a582' } as const;

function finding(cell: CellRecord, settles: ReturnType<typeof settleTimes>): string {
  const s = cell.summary;
  const parts = [`${formatNumber(s.throughputOpsPerS, 1)} successful ops/s on average`];
  parts.push(s.zeroSeconds > 0 ? `${s.zeroSeconds} s with no successful operation` : 'no second without a successful operation');
  if (s.failedOps > 0) parts.push(`${formatNumber(s.errorPercent, 2)}% of operations failed`);
  for (const r of s.resizes ?? []) {
    const completed = r.completedAfterS === undefined ? 'never completed' : `completed after ${formatNumber(r.completedAfterS, 1)} s`;
    const still = r.stillMovingAtPhaseEndS === undefined ? '' : `, still moving when the phase ended at ${r.stillMovingAtPhaseEndS} s`;
    parts.push(`${r.label} ${completed}${still}`);
  }
  const settled = settles.filter((x) => x.settledAfterS !== null).map((x) => x.settledAfterS as number);
  if (settled.length > 0) parts.push(`throughput settled within ${formatNumber(Math.max(...settled), 1)} s of each resize`);
  const unsettled = settles.length - settled.length;
  if (unsettled > 0) parts.push(`${unsettled} resize${unsettled > 1 ? 's' : ''} never settled before the next event`);
  return parts.join('; ');
}

/** Below this many seconds each one is marked: a line through one or two points is hard to see. */
const MARKED_POINTS = 3;

/** The question fits what happened in the cell: events, clients joining, or nothing at all. */
function question(events: number, cell: CellRecord): string {
  if (events > 0) return `How did throughput respond to ${events === 1 ? 'the event' : 'each event'}?`;
  return isRamped(cell) ? 'How did throughput change as clients joined?' : 'How steady was throughput over the run?';
}

/** None for a cell without a single measured second: there would be nothing to draw against. */
export function throughputTimeline(cell: CellRecord, axes: string[]): Figure[] {
  const label = cellLabel(cell, axes);
  const { points, events } = cellTimeline(cell.phases);
  if (points.length === 0) return [];
  const settles = settleTimes(cell.phases);
  const series = points.flatMap((p) => [
    { t: p.t, outcome: 'successful', opsPerS: p.sample.okPerS },
    { t: p.t, outcome: 'failed', opsPerS: p.sample.failedPerS },
  ]);
  const markers = eventMarkers({ events });
  const lastT = points[points.length - 1].t;
  const moving = events
    .filter((e) => isResize(e.event.kind))
    .map((e) => ({
      start: e.t,
      // Not completed: it was still moving when the record ends.
      end: e.event.completedAt === undefined ? lastT : Math.min(lastT, e.t + (e.event.completedAt - e.event.requestedAt) / 1000),
      period: 'resize moving data',
    }));
  const periods = [
    ...moving,
    ...settles.map((s) => ({
      start: s.t,
      end: s.settledAfterS === null ? s.windowEndT : s.t + s.settledAfterS,
      period: s.settledAfterS === null ? 'throughput not settled' : 'throughput settling',
    })),
  ]
    // A resize requested after the last sample has no period to shade.
    .filter((p) => p.end > p.start);
  const { labelled } = markers;
  // Room above the data for the event labels, so they do not sit on the lines.
  const top = Math.max(1, ...series.map((r) => r.opsPerS)) * (labelled ? 1.3 : 1.05);
  const presentPeriods = (Object.keys(SETTLE_PERIODS) as (keyof typeof SETTLE_PERIODS)[]).filter((p) => periods.some((x) => x.period === p));
  const x = { field: 't', type: 'quantitative' as const, title: 'Seconds since start', scale: { domainMin: 0, nice: false } };
  const layers: unknown[] = [];
  if (periods.length > 0) {
    layers.push({
      data: { values: periods },
      mark: { type: 'rect', opacity: 0.35 },
      encoding: {
        x: { ...x, field: 'start' },
        x2: { field: 'end' },
        fill: {
          field: 'period',
          type: 'nominal',
          title: 'After a resize',
          scale: { domain: presentPeriods, range: presentPeriods.map((p) => SETTLE_PERIODS[p]) },
        },
      },
    });
  }
  layers.push({
    data: { values: series },
    mark: { type: 'line', strokeWidth: 1.5, interpolate: 'linear', point: points.length < MARKED_POINTS },
    encoding: {
      x,
      y: { field: 'opsPerS', type: 'quantitative', title: 'Operations per second', scale: { domain: [0, top], nice: false } },
      color: {
        field: 'outcome',
        type: 'nominal',
        title: 'Operations',
        scale: { domain: Object.keys(OUTCOME_COLORS), range: Object.values(OUTCOME_COLORS) },
      },
    },
  });
  layers.push(...eventLayers(markers.rows, markers.kinds, x));
  return [
    {
      id: figureId('throughput', cell.cellId),
      heading: `${question(markers.rows.length, cell)} ${label}: ${finding(cell, settles)}.`,
      spec: {
        config: BASE_CONFIG,
        width: 720,
        height: 260,
        layer: layers,
        resolve: { scale: { color: 'independent', stroke: 'independent', fill: 'independent' } },
      } as Figure['spec'],
    },
  ];
}
