/**
 * Throughput per second of every run on a line of `fragbench compare`, on one time axis aligned
 * at each scenario event: after its k-th event a run's seconds count on from where the first
 * run's k-th event happened, so the responses to one event sit above each other even where the
 * runs fired it a second or two apart (before the first event the runs share their start). One
 * line per run, coloured by its side (its database, topology...); the events as the run report
 * draws them (dotted rules in their kind's colour, labelled when few).
 */
import { cellTimeline } from '../../core/cell-timeline';
import { median } from '../../core/reproduce/statistics';
import type { ComparedLine } from '../compare-runs/model';
import { scenarioEvents, type Side } from '../compare-runs/line-up';
import { BASE_CONFIG, SIDE_COLORS, eventLayers, eventStyle, figureId, formatNumber, labelsEvents, type Figure } from './figure';

/** Where second `t` of a run lands on the first run's axis: shifted by the last event at or before it. */
export function alignedSeconds(own: number[], anchors: number[], t: number): number {
  let k = -1;
  for (let i = 0; i < own.length && i < anchors.length; i++) if (own[i] <= t) k = i;
  return k < 0 ? t : anchors[k] + (t - own[k]);
}

/** The first run's events (their times set the axis), with their labels and kinds. */
function anchorsOf(line: ComparedLine) {
  const first = line.linedCells[0].cells[0].cell;
  return scenarioEvents(first).map((e) => ({ t: e.t, kind: e.event.kind, label: e.event.label }));
}

export function alignedThroughput(line: ComparedLine, by: Side): Figure[] {
  const anchors = anchorsOf(line);
  const anchorTimes = anchors.map((a) => a.t);
  const series = line.linedCells.flatMap(({ side, cells }) =>
    cells.flatMap(({ runId, cell }) => {
      const own = scenarioEvents(cell).map((e) => e.t);
      return cellTimeline(cell.phases).points.map((p) => ({ t: alignedSeconds(own, anchorTimes, p.t), opsPerS: p.sample.okPerS, side, run: runId }));
    }),
  );
  if (series.length === 0) return [];
  const sides = line.linedCells.map((s) => s.side);
  const averages = line.linedCells.map(({ side, cells }) => {
    const throughput = median(cells.map((c) => c.cell.summary.throughputOpsPerS));
    return `${side} ${formatNumber(throughput, 1)} ops/s${cells.length > 1 ? ` (median of ${cells.length} runs)` : ''}`;
  });
  const x = {
    field: 't',
    type: 'quantitative' as const,
    title: `Seconds, aligned at each event of the first run`,
    scale: { domainMin: 0, nice: false },
  };
  const labelled = labelsEvents(anchors.length);
  const top = Math.max(1, ...series.map((r) => r.opsPerS)) * (labelled ? 1.3 : 1.05);
  const kinds = [...new Set(anchors.map((a) => a.kind))];
  const layers: unknown[] = [
    {
      data: { values: series },
      mark: { type: 'line', strokeWidth: 1.5, interpolate: 'linear', point: series.length < 3 },
      encoding: {
        x,
        y: { field: 'opsPerS', type: 'quantitative', title: 'Successful operations per second', scale: { domain: [0, top], nice: false } },
        color: {
          field: 'side',
          type: 'nominal',
          title: by === 'run' ? 'Run' : by.charAt(0).toUpperCase() + by.slice(1),
          scale: { domain: sides, range: sides.map((_, i) => SIDE_COLORS[i % SIDE_COLORS.length]) },
        },
        detail: { field: 'run', type: 'nominal' },
      },
    },
  ];
  layers.push(
    ...eventLayers(
      anchors.map((a) => ({ t: a.t, kind: eventStyle(a.kind).name, label: a.label })),
      kinds,
      x,
    ),
  );
  const question =
    anchors.length > 0 ? `How did throughput respond to ${anchors.length === 1 ? 'the event' : 'each event'}` : 'How did throughput compare';
  return [
    {
      id: figureId('compare', line.label),
      heading: `${question}, ${by} beside ${by}? ${line.label}: ${averages.join('; ')} on average.`,
      spec: {
        config: BASE_CONFIG,
        width: 720,
        height: 260,
        layer: layers,
        resolve: { scale: { color: 'independent', stroke: 'independent' } },
      } as Figure['spec'],
    },
  ];
}
