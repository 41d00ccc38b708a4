/**
 * A figure across repetitions: the median and 95 % interval of the repetitions whose verdict was
 * `ok`, and what the others were flagged with. A figure with no `ok` repetition has no value.
 */
import { figureKey, type Figure, type FigureVerdict } from './figures';
import { estimate, type Estimate } from './statistics';

export interface AggregatedFigure extends Pick<Figure, 'database' | 'cell' | 'phase' | 'measure' | 'unit' | 'pair' | 'detail'> {
  key: string;
  /** Repetitions that measured it at all. */
  measured: number;
  /** Across the `ok` repetitions; absent when none was `ok`. */
  estimate?: Estimate;
  /** Across the flagged repetitions, where none was `ok`: shown for reading, never used. */
  flaggedEstimate?: Estimate;
  /** Each repetition not `ok`: its verdict and why. */
  flagged: { repetition: number; verdict: FigureVerdict; why?: string }[];
  /** Median host busy share of each repetition, %. */
  hostBusyMedianPercent: number[];
  /** Each repetition not run as planned: the plan that produced its figure. */
  replans: { repetition: number; plan: string }[];
  /** A text figure's text per repetition (a path). */
  texts?: string[];
}

/** `perRepetition[i]` holds the figures of repetition i + 1. */
export function aggregate(perRepetition: Figure[][]): AggregatedFigure[] {
  const byKey = new Map<
    string,
    {
      first: Figure;
      ok: number[];
      notOk: number[];
      flagged: AggregatedFigure['flagged'];
      measured: number;
      busy: number[];
      replans: AggregatedFigure['replans'];
      texts: string[];
    }
  >();
  perRepetition.forEach((figures, i) => {
    for (const f of figures) {
      const key = figureKey(f);
      const entry = byKey.get(key) ?? { first: f, ok: [], notOk: [], flagged: [], measured: 0, busy: [], replans: [], texts: [] };
      if (f.text !== undefined) entry.texts.push(f.text);
      entry.measured++;
      if (f.verdict === 'ok') entry.ok.push(f.value);
      else entry.notOk.push(f.value);
      if (f.verdict !== 'ok') entry.flagged.push({ repetition: i + 1, verdict: f.verdict, ...(f.why ? { why: f.why } : {}) });
      if (f.hostBusyMedianPercent !== undefined) entry.busy.push(f.hostBusyMedianPercent);
      if (f.plan !== undefined && f.plan !== 'as planned') entry.replans.push({ repetition: i + 1, plan: f.plan });
      byKey.set(key, entry);
    }
  });
  return [...byKey].map(([key, e]) => ({
    key,
    database: e.first.database,
    cell: e.first.cell,
    phase: e.first.phase,
    measure: e.first.measure,
    unit: e.first.unit,
    ...(e.first.pair ? { pair: e.first.pair } : {}),
    ...(e.first.detail ? { detail: e.first.detail } : {}),
    ...(e.texts.length ? { texts: e.texts } : {}),
    measured: e.measured,
    ...(e.ok.length > 0 ? { estimate: estimate(e.ok) } : { flaggedEstimate: estimate(e.notOk) }),
    flagged: e.flagged,
    hostBusyMedianPercent: e.busy,
    replans: e.replans,
  }));
}

/** "not reproducible here (verdict host-bound: …)" for a figure with no `ok` repetition. */
export function notReproducible(flagged: AggregatedFigure['flagged']): string {
  const first = flagged[0];
  if (!first) return 'not measured';
  return `not reproducible here (verdict ${first.verdict}${first.why ? `: ${first.why}` : ''})`;
}
