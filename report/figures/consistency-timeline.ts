/**
 * What a checked cell's database kept, second by second on the cell's axis: stale and corrupt
 * reads in the second they ended, acknowledged writes the final read-back found lost in the
 * second they were acknowledged, and below, failed operations by cause; the scenario's events
 * marked on both, as on the throughput timeline.
 */
import type { CellRecord } from '../../core/run-record';
import { cellTimeline, measuredPhases } from '../../core/cell-timeline';
import { failedTotal, type CellConsistency } from '../../core/consistency/consistency';
import { cellLabel } from '../matrix';
import { BASE_CONFIG, eventLayers, eventMarkers, figureId, formatNumber, type Figure } from './figure';

/** Each anomaly keeps its colour in every consistency figure. */
export const ANOMALY_COLORS = { 'stale reads': '#e08214', 'corrupt reads': '#762a83', 'lost acknowledged writes': '#b2182b' } as const;

const PANEL_HEIGHT = 190;

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** The cell's consistency verdict and the numbers behind it: `lost acknowledged writes: 9 stale reads, ...`. */
export function consistencyFinding(c: CellConsistency): string {
  const t = c.totals;
  const parts = [
    `${plural(t.stale, 'stale read')}, ${plural(t.corrupt, 'corrupt read')} and ${plural(t.lost, 'lost acknowledged write')} in ${plural(t.reads, 'read')} and ${plural(t.writes, 'acknowledged write')}`,
  ];
  const failed = failedTotal(t);
  if (failed > 0) parts.push(`${plural(failed, 'operation')} failed (${formatNumber(t.failed.timeout ?? 0)} timed out)`);
  if (c.readBack.unverified > 0) parts.push(`${plural(c.readBack.unverified, 'register')} not verified by the read-back`);
  return `${c.verdict}: ${parts.join('; ')}`;
}

/** None for a cell that was not checked. */
export function consistencyTimeline(cell: CellRecord, axes: string[]): Figure[] {
  const consistency = cell.summary.consistency;
  if (!consistency) return [];
  const timeline = cellTimeline(cell.phases);
  const seconds = measuredPhases(cell.phases).flatMap((p) => p.consistency?.seconds ?? []);
  if (seconds.length === 0) return [];
  const at = (timeMs: number) => (timeMs - timeline.originMs) / 1000;
  const anomalies = seconds.flatMap((s) => [
    { t: at(s.time), what: 'stale reads', count: s.stale },
    { t: at(s.time), what: 'corrupt reads', count: s.corrupt },
    { t: at(s.time), what: 'lost acknowledged writes', count: s.lost },
  ]);
  const causes = [...new Set(seconds.flatMap((s) => Object.keys(s.failed)))].sort();
  const failures = seconds.flatMap((s) => causes.map((cause) => ({ t: at(s.time), cause, count: s.failed[cause] ?? 0 })));
  const markers = eventMarkers(timeline);
  const x = { field: 't', type: 'quantitative' as const, title: 'Seconds since start', scale: { domainMin: 0, nice: false } };
  const headroom = markers.labelled ? 1.3 : 1.05;
  const panel = (rows: { count: number }[], colour: Record<string, unknown>, title: string) => ({
    width: 720,
    height: PANEL_HEIGHT,
    layer: [
      {
        data: { values: rows },
        mark: { type: 'line', strokeWidth: 1.5, interpolate: 'step-before', point: seconds.length < 3 },
        encoding: {
          x,
          y: {
            field: 'count',
            type: 'quantitative',
            title,
            scale: { domain: [0, Math.max(1, ...rows.map((r) => r.count)) * headroom], nice: false },
          },
          color: colour,
        },
      },
      ...eventLayers(markers.rows, markers.kinds, x),
    ],
  });
  const kinds = Object.keys(ANOMALY_COLORS);
  const panels = [
    panel(
      anomalies,
      { field: 'what', type: 'nominal', title: 'Anomalies', scale: { domain: kinds, range: Object.values(ANOMALY_COLORS) } },
      'Per second',
    ),
    ...(causes.length > 0
      ? [
          panel(
            failures,
            { field: 'cause', type: 'nominal', title: 'Failed operations, by cause', scale: { domain: causes, scheme: 'dark2' } },
            'Failed per second',
          ),
        ]
      : []),
  ];
  return [
    {
      id: figureId('consistency', cell.cellId),
      heading: `Did the database keep what it acknowledged? ${cellLabel(cell, axes)}: ${consistencyFinding(consistency)} (a per-key register check, not linearizability; lost writes are placed when they were acknowledged).`,
      spec: {
        config: BASE_CONFIG,
        vconcat: panels,
        resolve: { scale: { color: 'independent', stroke: 'shared' } },
      } as Figure['spec'],
    },
  ];
}
