/**
 * Round-trip times and link cuts: the mean RTT between data nodes over the run, each cut a
 * dotted line and its RTT change (last measurement before the cut to last one before the next
 * cut) a bold segment; and, per cut, throughput in the windows before and after it.
 */
import type { CellRecord } from '../../core/run-record';
import { cellLabel } from '../matrix';
import { cellTimeline, measuredPhases } from '../../core/cell-timeline';
import { linkCut } from '../../core/event-kinds/link-cut';
import { BASE_CONFIG, changeText, figureId, formatNumber, printsEqual, type Figure } from './figure';

/** The papers measured 60 s either side of a removal; shorter when removals come faster. */
const WINDOW_S = 60;

export interface RemovalEffect {
  label: string;
  t: number;
  rttBeforeMs: number | null;
  rttAfterMs: number | null;
  opsBefore: number | null;
  opsAfter: number | null;
}

const mean = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null);

export function removalEffects(cell: CellRecord): RemovalEffect[] {
  const { originMs, points, events } = cellTimeline(cell.phases);
  const cuts = events.filter((e) => e.event.kind === linkCut.kind);
  const rtts = measuredPhases(cell.phases)
    .flatMap((p) => p.rtt)
    .map((m) => ({ t: (m.time - originMs) / 1000, meanMs: m.meanMs }))
    .sort((a, b) => a.t - b.t);
  const lastT = points.length > 0 ? points[points.length - 1].t : 0;
  return cuts.map((cut, i) => {
    const previous = i > 0 ? cuts[i - 1].t : 0;
    const next = i + 1 < cuts.length ? cuts[i + 1].t : lastT;
    const lastIn = (from: number, to: number) => rtts.filter((r) => r.t > from && r.t <= to).pop()?.meanMs ?? null;
    const before = Math.min(WINDOW_S, cut.t - previous);
    const after = Math.min(WINDOW_S, next - cut.t);
    const ops = (from: number, to: number) => mean(points.filter((p) => p.t > from && p.t <= to).map((p) => p.sample.okPerS));
    return {
      label: cut.event.label,
      t: cut.t,
      rttBeforeMs: lastIn(previous, cut.t),
      rttAfterMs: lastIn(cut.t, next),
      opsBefore: ops(cut.t - before, cut.t),
      opsAfter: ops(cut.t, cut.t + after),
    };
  });
}

/** The cut whose RTT change is largest, either way. */
function largestChange(changes: { t: number; before: number; after: number }[]) {
  const size = (c: { before: number; after: number }) => Math.abs(c.after - c.before);
  return changes.reduce<(typeof changes)[number] | undefined>((a, b) => (!a || size(b) > size(a) ? b : a), undefined);
}

/**
 * Mean RTT between data nodes over the cell's run, whenever it was measured; link cuts, where
 * there were any, as dotted lines with the RTT change each brought as a bold segment.
 */
export function rttTimeline(cell: CellRecord, axes: string[]): Figure[] {
  const { originMs } = cellTimeline(cell.phases);
  const measurements = measuredPhases(cell.phases)
    .flatMap((p) => p.rtt)
    .filter((m): m is typeof m & { meanMs: number } => m.meanMs !== null && Number.isFinite(m.meanMs))
    .map((m) => ({ t: (m.time - originMs) / 1000, meanMs: m.meanMs }))
    .sort((a, b) => a.t - b.t);
  if (measurements.length === 0) return [];
  const effects = removalEffects(cell);
  const changes = effects
    .filter((e): e is RemovalEffect & { rttBeforeMs: number; rttAfterMs: number } => e.rttBeforeMs !== null && e.rttAfterMs !== null)
    .map((e) => ({ t: e.t, before: e.rttBeforeMs, after: e.rttAfterMs, change: e.rttAfterMs >= e.rttBeforeMs ? 'longer' : 'shorter' }))
    // A change too small to print is too small to draw, and must not be called longer or shorter.
    .filter((c) => !printsEqual(c.before, c.after, 1));
  const largest = largestChange(changes);
  const first = measurements[0].meanMs;
  const last = measurements[measurements.length - 1].meanMs;
  const cuts = `${effects.length} link cut${effects.length === 1 ? '' : 's'}`;
  const over = measurements.length === 1 ? (effects.length > 0 ? `, with ${cuts}` : '') : effects.length > 0 ? ` over ${cuts}` : ' over the run';
  const largestText = largest
    ? `; the largest single change, ${formatNumber(largest.after - largest.before, 1)} ms, came with ${effects.find((e) => e.t === largest.t)?.label}`
    : '';
  const trend = measurements.length > 1 ? changeText(first, last, ' ms', 1) : `was ${formatNumber(first, 1)} ms (one measurement)`;
  const x = { field: 't', type: 'quantitative' as const, title: 'Seconds since start', scale: { domainMin: 0, nice: false } };
  // Padding keeps a flat series off the frame, and the format keeps float noise out of the labels.
  const y = { type: 'quantitative' as const, title: 'Mean round-trip time (ms)', scale: { zero: false, padding: 12 }, axis: { format: ',.4~r' } };
  const layers: unknown[] = [];
  if (effects.length > 0) {
    layers.push({
      data: { values: effects.map((e) => ({ t: e.t, kind: linkCut.marker.name })) },
      mark: { type: 'rule', strokeDash: [4, 3], color: linkCut.marker.color },
      encoding: { x },
    });
  }
  layers.push({
    data: { values: measurements },
    mark: { type: 'line', interpolate: 'step-after', color: '#555555', point: { color: '#555555', size: 20 } },
    encoding: { x, y: { ...y, field: 'meanMs' } },
  });
  // Only cuts with a measurement on both sides have a change to draw; a layer without rows
  // would leave Vega with an empty extent.
  if (changes.length > 0) {
    layers.push({
      data: { values: changes },
      mark: { type: 'rule', strokeWidth: 4, strokeCap: 'round' },
      encoding: {
        x,
        y: { ...y, field: 'before' },
        y2: { field: 'after' },
        color: {
          field: 'change',
          type: 'nominal',
          title: 'RTT after the cut',
          scale: { domain: ['longer', 'shorter'], range: ['#d6301d', '#1a9850'] },
        },
      },
    });
  }
  const question =
    effects.length > 0 ? 'How does each link cut change round-trip times?' : 'How do round-trip times between data nodes change over the run?';
  return [
    {
      id: figureId('rtt-timeline', cell.cellId),
      heading: `${question} ${cellLabel(cell, axes)}: mean RTT between data nodes ${trend}${over}${largestText}.`,
      spec: { config: BASE_CONFIG, width: 720, height: 220, layer: layers } as Figure['spec'],
    },
  ];
}
