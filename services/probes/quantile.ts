/** The q-quantile (0..1) of a sample, by linear interpolation between order statistics. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of no values');
  const sorted = [...values].sort((x, y) => x - y);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values: number[]) => quantile(values, 0.5);
