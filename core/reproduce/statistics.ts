/**
 * Medians and 95 % intervals across repetitions. The interval is a percentile bootstrap of the
 * median (resampling the repetitions with replacement), seeded so that the same figures always
 * give the same interval. With three repetitions it is wide and coarse: it says how far apart
 * the repetitions were, which the published single runs could not.
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

/** The 95 % percentile-bootstrap interval of the median; one value gives [v, v]. */
export function bootstrapMedianInterval(values: number[], settings = BOOTSTRAP): Interval {
  if (values.length === 0) throw new Error('interval of no values');
  const random = seededRandom(settings.seed);
  const medians: number[] = [];
  for (let i = 0; i < settings.resamples; i++) {
    const resample = values.map(() => values[Math.floor(random() * values.length)]);
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
}

export function estimate(values: number[]): Estimate {
  return { median: median(values), ...bootstrapMedianInterval(values), n: values.length };
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
