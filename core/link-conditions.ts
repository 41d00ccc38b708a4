/**
 * What a link does to the packets of each of its two directions: one-way delay, jitter, rate cap
 * and random loss. A topology gives them once for both directions (latency as a round trip, split
 * evenly) or per direction (`a->b`, `b->a`, each with a one-way delay): an uplink slower than its
 * downlink, a satellite hop with loss one way. Scenario events change them at run time; this
 * module is the one place that turns references, scales and overrides into each direction's values.
 */

/** `ab` is the link's a -> b direction, `ba` the way back. */
export type Direction = 'ab' | 'ba';
export const DIRECTIONS: readonly Direction[] = ['ab', 'ba'];

/** One direction of a link, as the shaper applies it. */
export interface DirectionConditions {
  /** One-way delay, ms. */
  delayMs: number;
  /** Rate cap, Mbit/s; null: no cap. */
  bandwidthMbps: number | null;
  /** Random loss, 0..100. */
  lossPercent: number;
  /** Standard deviation of the one-way delay, ms (packets keep their order). */
  jitterMs: number;
}

export type DirectionOverride = Partial<DirectionConditions>;

export interface LinkConditions {
  ab: DirectionConditions;
  ba: DirectionConditions;
}

/** A link's reference conditions as an inventory keeps them. */
export interface LinkReferenceConditions {
  /** Round trip: the sum of the two directions' delays. */
  latencyMs: number;
  bandwidthMbps: number;
  lossPercent?: number;
  jitterMs?: number;
  /** What one direction has of its own (a topology's `a->b` / `b->a`). */
  directions?: Partial<Record<Direction, DirectionOverride>>;
}

/** The properties a condition event may set, scale or ramp, as a scenario names them. */
export const CONDITION_PROPERTIES = ['delayMs', 'bandwidthMbps', 'lossPercent', 'jitterMs'] as const;
export type ConditionProperty = (typeof CONDITION_PROPERTIES)[number];

/** Each direction's reference values: the link's shared values, then what a direction gives itself. */
export function referenceConditions(link: LinkReferenceConditions): LinkConditions {
  const shared: DirectionConditions = {
    delayMs: link.latencyMs / 2,
    bandwidthMbps: link.bandwidthMbps,
    lossPercent: link.lossPercent ?? 0,
    jitterMs: link.jitterMs ?? 0,
  };
  return {
    ab: { ...shared, ...link.directions?.ab },
    ba: { ...shared, ...link.directions?.ba },
  };
}

/** The scenario-wide epochs: every link's delay and rate cap times a factor of its reference. */
export interface ConditionScales {
  latencyScale: number;
  bandwidthScale: number;
}

export function scaledConditions(reference: LinkConditions, scales: ConditionScales): LinkConditions {
  const scale = (d: DirectionConditions): DirectionConditions => ({
    ...d,
    delayMs: d.delayMs * scales.latencyScale,
    bandwidthMbps: d.bandwidthMbps === null ? null : d.bandwidthMbps * scales.bandwidthScale,
  });
  return { ab: scale(reference.ab), ba: scale(reference.ba) };
}

/** Overrides set by events win over the scaled reference, property by property. */
export function withOverrides(conditions: LinkConditions, overrides: Partial<Record<Direction, DirectionOverride>> | undefined): LinkConditions {
  return { ab: { ...conditions.ab, ...overrides?.ab }, ba: { ...conditions.ba, ...overrides?.ba } };
}

/** The round trip the two directions add up to. */
export function roundTripMs(conditions: LinkConditions): number {
  return conditions.ab.delayMs + conditions.ba.delayMs;
}

/** A value between `from` and `to`, `fraction` of the way (0..1). */
export function between(from: number, to: number, fraction: number): number {
  return from + (to - from) * Math.min(1, Math.max(0, fraction));
}

/** Where a ramp stands `elapsedS` into `overS`: linear, or whole seconds (steps of one second). */
export function rampFraction(elapsedS: number, overS: number, steps: 'linear' | 'seconds'): number {
  if (overS <= 0) return 1;
  const t = steps === 'seconds' ? Math.floor(elapsedS) : elapsedS;
  return Math.min(1, Math.max(0, t / overS));
}

/** The conditions `fraction` of the way from `from` to `to` (a rate cap of null counts as no ramp: it jumps at the end). */
export function conditionsBetween(from: DirectionConditions, to: DirectionConditions, fraction: number): DirectionConditions {
  const rate =
    from.bandwidthMbps !== null && to.bandwidthMbps !== null
      ? between(from.bandwidthMbps, to.bandwidthMbps, fraction)
      : fraction >= 1
        ? to.bandwidthMbps
        : from.bandwidthMbps;
  return {
    delayMs: between(from.delayMs, to.delayMs, fraction),
    bandwidthMbps: rate,
    lossPercent: between(from.lossPercent, to.lossPercent, fraction),
    jitterMs: between(from.jitterMs, to.jitterMs, fraction),
  };
}

/** Values a `set` or a ramp's `to` gives: `latencyMs` is a round trip (both directions only). */
export interface ConditionValues {
  latencyMs?: number;
  delayMs?: number;
  bandwidthMbps?: number;
  lossPercent?: number;
  jitterMs?: number;
}

/** The values a condition may take: `above` excludes its bound (a rate cap of 0 would stop the link). */
export interface ValueRange {
  min: number;
  above?: true;
  max?: number;
}

/** One table for what each value may be, so a network event's schema and a trace's rows agree. */
export const CONDITION_VALUE_RANGES: Record<keyof ConditionValues, ValueRange> = {
  latencyMs: { min: 0 },
  delayMs: { min: 0 },
  bandwidthMbps: { min: 0, above: true },
  lossPercent: { min: 0, max: 100 },
  jitterMs: { min: 0 },
};

/** What is wrong with `value` for its range, e.g. `must be above 0`; undefined when it fits. */
export function outOfRange(value: number, range: ValueRange): string | undefined {
  const low = range.above ? value <= range.min : value < range.min;
  if (!low && (range.max === undefined || value <= range.max)) return undefined;
  if (range.max !== undefined) return `must be ${range.min}..${range.max}`;
  return range.above ? `must be above ${range.min}` : `must be ${range.min} or more`;
}

/** Factors a `scale` multiplies the current values by (`latencyMs` scales the delay). */
export interface ConditionFactors {
  latencyMs?: number;
  bandwidthMbps?: number;
  lossPercent?: number;
  jitterMs?: number;
}

/** What a condition event does to the links it selects. */
export type ConditionChangeSpec = { set: ConditionValues } | { scale: ConditionFactors } | { cut: true } | { restore: true } | { reset: true };
