/**
 * The rules a reproduction's figure is judged by against a published one: pure functions on our
 * observations, each answering agree, disagree, undecided or not comparable here, with why.
 *
 * A value (a ratio, a share, a time) is judged on its samples: one per repetition, or one per
 * event where the paper states the figure per event ("each removal"). Their median and 95 %
 * interval (statistics.ts) are set against the published value widened by DECISION.tolerance:
 * - agree: the interval meets the tolerated values;
 * - disagree: it lies wholly outside them;
 * - undecided: it reaches past the tolerated values on every side the published value bounds
 *   (so it holds values the rule would call agreement and values it would call disagreement on
 *   both sides: too wide to decide), or there are fewer than DECISION.minSamples samples (no
 *   interval). A published floor (`bound: lower`) is bounded on one side only: an interval
 *   straddling it is undecided, one wholly above it agrees.
 * A value that is a ratio of throughputs carries its own noise, measured from their seconds, and
 * its interval holds that noise too (statistics.ts): a ratio over a handful of operations is wide
 * and so undecided, where two repetitions that happened to agree would have decided it. When that
 * noise alone leaves the samples' mean wider than the tolerance (95 % range of the mean of n
 * samples' own noise, sqrt(sum of their variances) / n), the repetitions are too short to decide:
 * undecided, whatever the interval.
 * A stated ordering or shape is judged on observations of whether it held, one per repetition or
 * per event: agree when it held in every one, disagree when in none, undecided when in some or
 * when there are fewer than DECISION.minSamples. A claim of several parts agrees when every part
 * does and disagrees when any does.
 */
import { estimate, type Estimate, type OwnNoise } from './statistics';
import type { Target } from './published';

export const DECISION = {
  /**
   * How far a published value is taken to stretch, relative to it, stated once for every figure:
   * the papers ran each configuration once and print values rounded to one or two significant
   * digits ("about 5", "1.38"), so their own run-to-run spread is unknown; the largest spread of
   * one ratio between two runs seen on this host is 15 % (Cassandra A T(0.2)/T(0.4), 1.61 against
   * 1.86, issue 30). 20 % covers that and the rounding of a one-digit value (±10 %).
   */
  tolerance: 0.2,
  /** Fewer samples give no interval: the value rules and the observation rules answer undecided. */
  minSamples: 2,
} as const;

/** A 95 % range on a log-normal noise is exp(±1.96 standard deviations). */
const NOISE_SPAN = 1.96;

export type Agreement = 'agree' | 'disagree' | 'undecided' | 'not comparable';

export interface Sample {
  value: number;
  /** Where it comes from: `r1`, `r2 removal of singapore-dubai/0`. */
  from: string;
  /** Its own noise, when it is a ratio of throughputs (statistics.ts `ratioNoise`). */
  noise?: OwnNoise;
}

export interface Observation {
  holds: boolean;
  from: string;
  /** Our figures it was judged on, e.g. `A: 5.14 vs 4.36`. */
  shows: string;
}

/** What a comparison observed in our runs. */
export type Observed =
  | { kind: 'values'; samples: Sample[]; unit: string }
  | { kind: 'holds'; observations: Observation[] }
  | { kind: 'parts'; parts: { name: string; observed: Observed; target?: Target }[] }
  /** Nothing to judge: why (a figure not measured `ok`, a run missing). */
  | { kind: 'missing'; why: string };

export interface Judgement {
  agreement: Agreement;
  /** Ours, as the table shows it. */
  ours: string;
  why: string;
  estimate?: Estimate;
}

const fmt = (x: number) => {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(2);
};

export function formatInterval(e: Estimate, unit = ''): string {
  const u = unit ? ` ${unit}` : '';
  return e.n === 1 ? `${fmt(e.median)}${u} (1 sample)` : `${fmt(e.median)} [${fmt(e.low)}, ${fmt(e.high)}]${u} (n = ${e.n})`;
}

/** The values a target tolerates: its ends moved out by the tolerance, relative to each end. */
export function tolerated(target: Target, tolerance: number = DECISION.tolerance): { low: number; high: number } {
  return { low: target.low - tolerance * Math.abs(target.low), high: target.high + tolerance * Math.abs(target.high) };
}

/** A value's samples against a published target; `noise[i]`, when given, is sample i's own noise. */
export function judgeValues(samples: number[], target: Target, unit = '', noise?: (OwnNoise | undefined)[]): Judgement {
  if (samples.length === 0) return { agreement: 'not comparable', ours: '–', why: 'no sample' };
  const e = estimate(samples, noise);
  const j = judgeEstimate(e, target, unit);
  if (e.fewestCounted === undefined || e.n < DECISION.minSamples) return j;
  const counted = `fewest operations counted ${e.fewestCounted}`;
  const errors = (noise ?? []).map((n) => n?.error ?? 0);
  const ofMean = Math.hypot(...errors) / errors.length;
  if (NOISE_SPAN * ofMean > Math.log(1 + DECISION.tolerance)) {
    const span = `±${((Math.exp(NOISE_SPAN * ofMean) - 1) * 100).toFixed(0)} %`;
    return {
      ...j,
      agreement: 'undecided',
      why: `the samples' own noise alone leaves their mean ${span} at 95 % (${counted}), wider than the tolerance ±${DECISION.tolerance * 100} %: too few operations to decide`,
    };
  }
  return { ...j, why: `${j.why} (the interval holds the noise of each ratio as well; ${counted})` };
}

function judgeEstimate(e: Estimate, target: Target, unit: string): Judgement {
  const ours = formatInterval(e, unit);
  if (e.n < DECISION.minSamples) {
    return {
      agreement: 'undecided',
      ours,
      why: `${e.n} sample: the rule needs an interval (${DECISION.minSamples} or more)`,
      estimate: e,
    };
  }
  const t = tolerated(target);
  const pct = `${DECISION.tolerance * 100} %`;
  if (e.high < t.low) return { agreement: 'disagree', ours, why: `our interval lies below ${target.text} less ${pct}`, estimate: e };
  if (e.low > t.high) return { agreement: 'disagree', ours, why: `our interval lies above ${target.text} plus ${pct}`, estimate: e };
  const bounded = [Number.isFinite(t.low) ? e.low < t.low : undefined, Number.isFinite(t.high) ? e.high > t.high : undefined].filter(
    (past): past is boolean => past !== undefined,
  );
  if (bounded.length > 0 && bounded.every(Boolean)) {
    return {
      agreement: 'undecided',
      ours,
      why: `our interval reaches past ${target.text} ± ${pct} on every side it bounds: too wide to decide`,
      estimate: e,
    };
  }
  return { agreement: 'agree', ours, why: `our interval meets ${target.text} ± ${pct}`, estimate: e };
}

/** Observations of whether a stated ordering or shape held. */
export function judgeHolds(observations: Observation[]): Judgement {
  if (observations.length === 0) return { agreement: 'not comparable', ours: '–', why: 'no observation' };
  const held = observations.filter((o) => o.holds).length;
  const n = observations.length;
  const shown = observations.map((o) => `${o.from}: ${o.shows}`).join('; ');
  const ours = `held in ${held} of ${n} (${shown})`;
  if (n < DECISION.minSamples) return { agreement: 'undecided', ours, why: `${n} observation: the rule needs ${DECISION.minSamples} or more` };
  if (held === n) return { agreement: 'agree', ours, why: `held in every one of ${n}` };
  if (held === 0) return { agreement: 'disagree', ours, why: `held in none of ${n}` };
  return { agreement: 'undecided', ours, why: `held in ${held} of ${n}` };
}

/** A claim of several parts: disagrees when a part does, agrees when all do, else undecided (or not comparable when none could be judged). */
export function judgeParts(parts: { name: string; judgement: Judgement }[]): Judgement {
  const ours = parts.map((p) => `${p.name}: ${p.judgement.ours} (${p.judgement.agreement})`).join(' | ');
  const kinds = parts.map((p) => p.judgement.agreement);
  const naming = (kind: Agreement) =>
    parts
      .filter((p) => p.judgement.agreement === kind)
      .map((p) => p.name)
      .join(', ');
  if (kinds.includes('disagree')) return { agreement: 'disagree', ours, why: `disagrees in: ${naming('disagree')}` };
  if (kinds.every((k) => k === 'agree')) return { agreement: 'agree', ours, why: 'every part agrees' };
  if (kinds.every((k) => k === 'not comparable')) return { agreement: 'not comparable', ours, why: parts.map((p) => p.judgement.why).join('; ') };
  return {
    agreement: 'undecided',
    ours,
    why: `undecided or not comparable in: ${parts
      .filter((p) => p.judgement.agreement !== 'agree')
      .map((p) => p.name)
      .join(', ')}`,
  };
}

/** Judges what was observed; `target` is the published value for a `values` observation. */
export function judge(observed: Observed, target?: Target): Judgement {
  switch (observed.kind) {
    case 'missing':
      return { agreement: 'not comparable', ours: '–', why: observed.why };
    case 'holds':
      return judgeHolds(observed.observations);
    case 'values': {
      if (!target) throw new Error('a value comparison needs its published target');
      if (observed.samples.length === 0) return { agreement: 'not comparable', ours: '–', why: 'no sample was measured ok' };
      const j = judgeValues(
        observed.samples.map((s) => s.value),
        target,
        observed.unit,
        observed.samples.map((s) => s.noise),
      );
      return { ...j, ours: `${j.ours} from ${observed.samples.map((s) => s.from).join(', ')}` };
    }
    case 'parts':
      return judgeParts(observed.parts.map((p) => ({ name: p.name, judgement: judge(p.observed, p.target ?? target) })));
  }
}

export interface AgreementCounts {
  agree: number;
  disagree: number;
  undecided: number;
  notComparable: number;
  /** Not comparable, by reason. */
  why: Record<string, number>;
}

/** The counts a comparison table ends with; `reason` names the group a not-comparable row falls in. */
export function countAgreements(rows: { agreement: Agreement; reason?: string }[]): AgreementCounts {
  const counts: AgreementCounts = { agree: 0, disagree: 0, undecided: 0, notComparable: 0, why: {} };
  for (const r of rows) {
    if (r.agreement === 'not comparable') {
      counts.notComparable++;
      const reason = r.reason ?? 'not measured';
      counts.why[reason] = (counts.why[reason] ?? 0) + 1;
    } else counts[r.agreement]++;
  }
  return counts;
}

export function formatCounts(c: AgreementCounts): string {
  const why = Object.entries(c.why)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason}: ${n}`)
    .join('; ');
  return `agree ${c.agree}, disagree ${c.disagree}, undecided ${c.undecided}, not comparable here ${c.notComparable}${why ? ` (${why})` : ''}`;
}
