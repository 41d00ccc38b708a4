/**
 * Moving sites: for a cell in which a node moved, throughput per second above the distance the
 * node had travelled and the round trip each of its links was configured to, on one time axis.
 * The distance and RTTs are what the move set (its event's per-second samples), not measured:
 * the figure says so, and a ping measurement (`measure: [rtt]`) is the way to see the overlay's.
 */
import type { CellRecord } from '../../core/run-record';
import type { MoveSample } from '../../core/site-motion';
import { moveSite } from '../../core/event-kinds/move-site';
import { cellLabel } from '../matrix';
import { cellTimeline } from '../../core/cell-timeline';
import { BASE_CONFIG, OUTCOME_COLORS, changeText, figureId, formatNumber, type Figure } from './figure';

interface MoveDetail {
  node: string;
  km: number;
  overS: number;
  samples: MoveSample[];
}

const mean = (values: number[]) => (values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : undefined);

/** Each move's first and last RTT per link, in words. */
function rttChanges(samples: MoveSample[]): string {
  const [first, last] = [samples[0], samples[samples.length - 1]];
  return Object.keys(first.rttMs)
    .map((id) => `${id} ${changeText(first.rttMs[id], last.rttMs[id], ' ms', 1)}`)
    .join(', ');
}

/** None for a cell without a move that recorded samples, or without a measured second. */
export function siteMotion(cell: CellRecord, axes: string[]): Figure[] {
  const { originMs, points, events } = cellTimeline(cell.phases);
  const moves = events
    .filter((e) => e.event.kind === moveSite.kind)
    .map((e) => ({ t: e.t, detail: e.event.detail as unknown as MoveDetail }))
    .filter((m) => Array.isArray(m.detail.samples) && m.detail.samples.length > 0);
  if (moves.length === 0 || points.length === 0) return [];
  const at = (ms: number) => (ms - originMs) / 1000;
  const throughput = points.map((p) => ({ t: p.t, opsPerS: p.sample.okPerS }));
  const distance = moves.flatMap((m) => m.detail.samples.map((s) => ({ t: at(s.time), km: s.km, node: m.detail.node })));
  const rtt = moves.flatMap((m) =>
    m.detail.samples.flatMap((s) => Object.entries(s.rttMs).map(([link, ms]) => ({ t: at(s.time), link, rttMs: ms }))),
  );
  const lastT = Math.max(points[points.length - 1].t, ...distance.map((d) => d.t));
  const x = { field: 't', type: 'quantitative' as const, title: 'Seconds since start', scale: { domain: [0, lastT], nice: false } };
  const panel = (values: object[], y: object, extra: object = {}) => ({
    width: 720,
    height: 150,
    data: { values },
    mark: { type: 'line', strokeWidth: 1.5, interpolate: 'linear', point: values.length < 3 },
    encoding: { x, y, ...extra },
  });

  const first = moves[0];
  const firstStart = at(first.detail.samples[0].time);
  const firstEnd = at(first.detail.samples[first.detail.samples.length - 1].time);
  const before = mean(points.filter((p) => p.t <= firstStart).map((p) => p.sample.okPerS));
  const during = mean(points.filter((p) => p.t > firstStart && p.t <= firstEnd).map((p) => p.sample.okPerS));
  const throughputText =
    before !== undefined && during !== undefined
      ? `; throughput ${changeText(before, during, ' ops/s', 0)} on average from before the move to during it`
      : '';
  const moved = moves
    .map((m) => `${m.detail.node} moved ${formatNumber(m.detail.km, 0)} km over ${m.detail.overS} s (configured RTT ${rttChanges(m.detail.samples)})`)
    .join('; ');
  return [
    {
      id: figureId('site-motion', cell.cellId),
      heading: `How did throughput follow the moving site? ${cellLabel(cell, axes)}: ${moved}${throughputText}.`,
      spec: {
        config: BASE_CONFIG,
        vconcat: [
          panel(
            throughput,
            { field: 'opsPerS', type: 'quantitative', title: 'Successful ops/s', scale: { zero: true } },
            { color: { value: OUTCOME_COLORS.successful } },
          ),
          panel(
            distance,
            { field: 'km', type: 'quantitative', title: 'km travelled' },
            { color: { field: 'node', type: 'nominal', title: 'Moving node' } },
          ),
          panel(
            rtt,
            { field: 'rttMs', type: 'quantitative', title: 'Configured RTT (ms)' },
            { color: { field: 'link', type: 'nominal', title: 'Link' } },
          ),
        ],
        resolve: { scale: { color: 'independent' } },
      } as Figure['spec'],
    },
  ];
}
