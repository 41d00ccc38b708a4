/**
 * The comparison page's own figures, from one experiment's figures across repetitions: for the
 * epoch experiments the published figure type, normalized throughput against the latency scale
 * (a panel per workload, a line per database); for every experiment each measure's median with
 * its 95 % interval, figures that were not `ok` drawn apart so that none is silently kept.
 */
import type { AggregatedFigure } from '../../core/reproduce/aggregate';
import { BASE_CONFIG, SCALE_LABEL_EXPR, figureId, formatNumber, type Figure } from './figure';
import { panelsByWorkload } from './scaling';

/** An epoch's phase label (core/reproduce/experiment.ts epochLabel): `a-lsf0p2` is workload a at 0.2. */
const NOT_OK = 'not ok';

const EPOCH = /^([a-f])-lsf(\d+(?:p\d+)?)$/;

function epochOf(phase: string): { workload: string; scale: number } | undefined {
  const m = EPOCH.exec(phase);
  return m ? { workload: m[1], scale: Number(m[2].replace('p', '.')) } : undefined;
}

/** T(s)/T(1.0) of our medians, `ok` figures only: the published works' normalized throughput. */
export function normalizedThroughputFigure(experiment: string, figures: AggregatedFigure[]): Figure[] {
  const epochs = figures.flatMap((f) => {
    const epoch = f.measure === 'throughput' && f.estimate ? epochOf(f.phase) : undefined;
    return epoch ? [{ database: f.database, ...epoch, value: f.estimate!.median }] : [];
  });
  const reference = new Map(epochs.filter((e) => e.scale === 1).map((e) => [`${e.database}/${e.workload}`, e.value]));
  const rows = epochs.flatMap((e) => {
    const at1 = reference.get(`${e.database}/${e.workload}`);
    return at1 ? [{ ...e, value: e.value / at1 }] : [];
  });
  const scales = [...new Set(rows.map((r) => r.scale))].sort((a, b) => a - b);
  if (scales.length < 2) return [];
  const atX = rows.filter((r) => r.scale === scales[0]);
  const finding = atX.map((r) => `${r.database} ${r.workload.toUpperCase()} ${formatNumber(r.value, 2)}x`).join(', ');
  return [
    {
      id: figureId(experiment, 'normalized-throughput'),
      heading: `Normalized throughput T(s)/T(5X) against the latency scale (medians of the ok repetitions); at ${scales[0] === 0.2 ? 'X' : scales[0]}: ${finding}.`,
      spec: panelsByWorkload(rows, {
        width: 200,
        height: 170,
        mark: { type: 'line', point: true, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'scale',
            type: 'quantitative',
            title: 'Latency scaling factor',
            axis: { values: scales, labelExpr: SCALE_LABEL_EXPR },
            scale: { domain: [0, Math.max(...scales) + 0.1] },
          },
          y: { field: 'value', type: 'quantitative', title: 'Throughput (5X = 1)' },
          color: { field: 'database', type: 'nominal', title: 'Database' },
        },
      }),
    },
  ];
}

/** Per measure, each figure's median and 95 % interval; a figure with no `ok` repetition is drawn from its flagged values, marked so. */
export function intervalFigures(experiment: string, all: AggregatedFigure[]): Figure[] {
  // Per-pair and per-step figures (hundreds of them) are in comparison.json, not drawn.
  const figures = all.filter((f) => !f.detail);
  const measures = [...new Set(figures.map((f) => f.measure))];
  return measures.map((measure) => {
    const of = figures.filter((f) => f.measure === measure);
    // A cell every figure shares (the epoch experiments' one cell) says nothing on each label.
    const sharedCell = new Set(of.map((f) => f.cell)).size === 1;
    const rows = of.map((f) => {
      const e = f.estimate ?? f.flaggedEstimate!;
      return {
        figure: [f.database, sharedCell ? '' : f.cell, f.phase].filter(Boolean).join(' · '),
        median: e.median,
        low: e.low,
        high: e.high,
        verdict: f.estimate ? 'ok' : NOT_OK,
      };
    });
    const flagged = rows.filter((r) => r.verdict !== 'ok').length;
    const unit = of[0].unit;
    return {
      id: figureId(experiment, 'intervals', measure),
      heading: `${measure.charAt(0).toUpperCase()}${measure.slice(1)} (${unit}) per figure${sharedCell && of[0].cell ? ` (${of[0].cell})` : ''}: median and 95 % interval across repetitions${flagged ? `; ${flagged} of ${rows.length} not ok (not reproducible here), drawn in red from their flagged values` : ''}.`,
      spec: {
        config: BASE_CONFIG,
        data: { values: rows },
        width: 420,
        height: { step: 16 },
        encoding: {
          y: { field: 'figure', type: 'nominal', title: null, sort: null, axis: { labelLimit: 320 } },
          color: { field: 'verdict', type: 'nominal', title: 'Verdict', scale: { domain: ['ok', NOT_OK], range: ['#2166ac', '#d6301d'] } },
        },
        layer: [
          {
            mark: { type: 'rule', strokeWidth: 2 },
            encoding: { x: { field: 'low', type: 'quantitative', title: `${measure} (${unit})` }, x2: { field: 'high' } },
          },
          { mark: { type: 'point', filled: true, size: 50 }, encoding: { x: { field: 'median', type: 'quantitative' } } },
        ],
      } as unknown as Figure['spec'],
    };
  });
}
