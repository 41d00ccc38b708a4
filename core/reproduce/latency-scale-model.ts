/**
 * What the latency scale does to something that waits on round trips: one closed-loop client
 * thread's operation, or a resize's acceptance. The scale multiplies every configured round trip,
 * so it takes fixedMs + scale x msPerScale: msPerScale is the round trips it waits for at scale 1,
 * fixedMs what does not grow with latency (the nodes' processing, the client, the stack's floor).
 *
 * Two scales fix the line. A published throughput ratio between two scales then says what fixed
 * part the paper's operations needed at the same round trips: where ours is near zero and the
 * published ratio needs a large one, the difference is time the published runs spent beside the
 * round trips (their threads, client or hardware), not the network the fleet carries.
 */
import { InputError } from '../errors';

export interface ScalePoint {
  scale: number;
  /** ms it took at that scale: an operation's (1000 x threads / throughput of a closed loop), a resize's acceptance. */
  ms: number;
}

export interface ScaleLine {
  fixedMs: number;
  msPerScale: number;
}

/** The line through two scales' points; they must differ in scale. */
export function scaleLine(a: ScalePoint, b: ScalePoint): ScaleLine {
  if (a.scale === b.scale) throw new InputError('scale', `two points at the same scale (${a.scale}) do not fix a line`);
  const msPerScale = (b.ms - a.ms) / (b.scale - a.scale);
  return { fixedMs: a.ms - msPerScale * a.scale, msPerScale };
}

export function msAtScale(line: ScaleLine, scale: number): number {
  return line.fixedMs + line.msPerScale * scale;
}

/**
 * The fixed part, ms, that makes T(from)/T(to) equal `ratio` with this line's round trips:
 * (fixed + to x msPerScale) / (fixed + from x msPerScale) = ratio.
 */
export function fixedMsForRatio(line: ScaleLine, from: number, to: number, ratio: number): number {
  if (!(to > from)) throw new InputError('to', `the ratio T(${from})/T(${to}) is taken from a smaller scale to a larger one`);
  if (line.msPerScale <= 0)
    throw new InputError('msPerScale', `operations that do not slow with the scale (${line.msPerScale} ms per unit) fix no fixed part`);
  if (!(ratio > 1 && ratio <= to / from))
    throw new InputError('ratio', `${ratio} is outside (1, ${to / from}]: no fixed part of zero or more gives it`);
  return (line.msPerScale * (to - ratio * from)) / (ratio - 1);
}
