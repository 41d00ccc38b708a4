/**
 * Medians and 95 % intervals across repetitions. The interval is a percentile bootstrap of the
 * median (resampling the repetitions with replacement), seeded so that the same figures always
 * give the same interval. With three repetitions it is wide and coarse: it says how far apart
 * the repetitions were, which the published single runs could not.
 *
 * A value that is a ratio of throughputs has a noise of its own besides the repetitions' spread:
 * with a few operations counted it is wide, and two repetitions that happen to agree would hide
 * it. Such a value carries its standard error (from its throughputs' own seconds, figures.ts
 * `throughputError`), and the bootstrap draws each resampled value from it as well.
 */
import { seededRandom } from '../seeded-random';

export const BOOTSTRAP = { seed: 16, resamples: 2000, level: 0.95 };

export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Linear-interpolated quantile of sorted values, q in [0, 1]. */
function quantileOfSorted(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export interface Interval {
  low: number;
  high: number;
}

/** A standard normal draw from two uniform ones (Box-Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * The 95 % percentile-bootstrap interval of the median; one value gives [v, v]. With `errors`
 * (each value's standard error of its logarithm, 0 for none), each resampled value is drawn again
 * from its own noise, log-normal around it, so the interval holds that noise too.
 */
export function bootstrapMedianInterval(values: number[], settings = BOOTSTRAP, errors?: readonly number[]): Interval {
  if (values.length === 0) throw new Error('interval of no values');
  const random = seededRandom(settings.seed);
  const noisy = errors?.some((e) => e > 0) ? errors : undefined;
  const draw = (i: number) => (noisy ? values[i] * Math.exp(noisy[i] * normal(random)) : values[i]);
  const medians: number[] = [];
  for (let i = 0; i < settings.resamples; i++) {
    const resample = values.map(() => draw(Math.floor(random() * values.length)));
    medians.push(median(resample));
  }
  medians.sort((a, b) => a - b);
  const tail = (1 - settings.level) / 2;
  return { low: quantileOfSorted(medians, tail), high: quantileOfSorted(medians, 1 - tail) };
}

export interface Estimate extends Interval {
  median: number;
  /** Repetitions the estimate is made of. */
  n: number;
  /** The fewest operations counted behind one of its values, when they carry their own noise. */
  fewestCounted?: number;
}

/** A value's own noise: the standard deviation of its logarithm, and the fewest operations counted behind it. */
export interface OwnNoise {
  error: number;
  fewestCounted: number;
}

/** The noise of a ratio of throughputs, from each one's relative error and operations counted. */
export function ratioNoise(parts: { relativeError: number; counted: number }[]): OwnNoise {
  return { error: Math.hypot(...parts.map((p) => p.relativeError)), fewestCounted: Math.min(...parts.map((p) => p.counted)) };
}

/** Median and interval of `values`; `noise[i]`, when given, is value i's own noise, which the interval then holds. */
export function estimate(values: number[], noise?: readonly (OwnNoise | undefined)[]): Estimate {
  const counted = noise?.flatMap((n) => (n ? [n.fewestCounted] : [])) ?? [];
  return {
    median: median(values),
    ...bootstrapMedianInterval(
      values,
      BOOTSTRAP,
      noise?.map((n) => n?.error ?? 0),
    ),
    n: values.length,
    ...(counted.length > 0 ? { fewestCounted: Math.min(...counted) } : {}),
  };
}
/**
 * The 95 % percentile-bootstrap interval of median(a) − median(b): each side resampled on its
 * own (the repetitions of two variants are independent), seeded like the one-sample interval. A
 * side of one value stays that value, so the interval shows only the other side's spread.
 */
export function bootstrapDifferenceInterval(a: number[], b: number[], settings = BOOTSTRAP): Interval {
  if (a.length === 0 || b.length === 0) throw new Error('interval of a difference with no values on one side');
  const random = seededRandom(settings.seed);
  const resample = (values: number[]) => values.map(() => values[Math.floor(random() * values.length)]);
  const differences: number[] = [];
  for (let i = 0; i < settings.resamples; i++) differences.push(median(resample(a)) - median(resample(b)));
  differences.sort((x, y) => x - y);
  const tail = (1 - settings.level) / 2;
  return { low: quantileOfSorted(differences, tail), high: quantileOfSorted(differences, 1 - tail) };
}
