/**
 * Link removal: the mean round-trip time between data nodes over the run, each cut a dotted
 * line and its RTT change (last measurement before the cut to last one before the next cut) a
 * bold segment; and, per removal, throughput in the windows before and after it.
 */
import type { CellRecord } from '../../core/run-record';
import { cellLabel } from '../matrix';
import { cellTimeline, measuredPhases } from '../timeline';
import { BASE_CONFIG, EVENT_STYLE, figureId, formatNumber, type Figure } from './figure';

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
  const cuts = events.filter((e) => e.event.kind === 'link-cut');
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

export function rttTimeline(cell: CellRecord, axes: string[]): Figure[] {
  const { originMs } = cellTimeline(cell.phases);
  const measurements = measuredPhases(cell.phases)
    .flatMap((p) => p.rtt)
    .filter((m) => m.meanMs !== null)
    .map((m) => ({ t: (m.time - originMs) / 1000, meanMs: m.meanMs as number }));
  const effects = removalEffects(cell);
  if (measurements.length === 0 || effects.length === 0) return [];
  const changes = effects
    .filter((e) => e.rttBeforeMs !== null && e.rttAfterMs !== null)
    .map((e) => ({ t: e.t, before: e.rttBeforeMs as number, after: e.rttAfterMs as number, change: e.rttAfterMs! >= e.rttBeforeMs! ? 'longer' : 'shorter' }));
  const largest = changes.reduce<(typeof changes)[number] | undefined>((a, b) => (!a || b.after - b.before > a.after - a.before ? b : a), undefined);
  const first = measurements[0].meanMs;
  const last = measurements[measurements.length - 1].meanMs;
  const largestText = largest ? `; the largest single change, ${formatNumber(largest.after - largest.before, 1)} ms, came with ${effects.find((e) => e.t === largest.t)?.label}` : '';
  const x = { field: 't', type: 'quantitative' as const, title: 'Seconds since start', scale: { domainMin: 0, nice: false } };
  const y = { type: 'quantitative' as const, title: 'Mean round-trip time (ms)', scale: { zero: false } };
  return [
    {
      id: figureId('rtt-timeline', cell.cellId),
      heading: `How does each link removal change round-trip times? ${cellLabel(cell, axes)}: mean RTT between data nodes went from ${formatNumber(first, 1)} ms to ${formatNumber(last, 1)} ms over ${effects.length} removals${largestText}.`,
      spec: {
        config: BASE_CONFIG,
        width: 720,
        height: 220,
        layer: [
          {
            data: { values: effects.map((e) => ({ t: e.t, kind: EVENT_STYLE['link-cut'].name })) },
            mark: { type: 'rule', strokeDash: [4, 3], color: EVENT_STYLE['link-cut'].color },
            encoding: { x },
          },
          {
            data: { values: measurements },
            mark: { type: 'line', interpolate: 'step-after', color: '#555555', point: { color: '#555555', size: 20 } },
            encoding: { x, y: { ...y, field: 'meanMs' } },
          },
          {
            data: { values: changes },
            mark: { type: 'rule', strokeWidth: 4, strokeCap: 'round' },
            encoding: {
              x,
              y: { ...y, field: 'before' },
              y2: { field: 'after' },
              color: { field: 'change', type: 'nominal', title: 'RTT after the cut', scale: { domain: ['longer', 'shorter'], range: ['#d6301d', '#1a9850'] } },
            },
          },
        ],
      } as Figure['spec'],
    },
  ];
}
