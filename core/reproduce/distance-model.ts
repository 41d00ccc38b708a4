/**
 * What the public region's round trip alone makes one closed-loop client thread's operation cost,
 * for one layout run in several regions. Each operation waits for the node that holds its key; the
 * keys and the layout are the same in every region, so the same share of operations (the public
 * node's keys, weighted by how often the workload asks for each) crosses to the public side, and
 * the rest stays private: ms an operation = localMs + publicShare x the public round trip.
 *
 * Two regions fix the line and a third tests it. A published throughput ratio then says which
 * public round trip the line needs to give it: where the published ratio and ours differ while the
 * line holds, the difference is in the configured latencies, not in how the fleet carries them.
 */
import { InputError } from '../errors';

export interface RegionPoint {
  /** The public node's configured round trip from the client, ms. */
  rttMs: number;
  /** ms an operation: 1000 x threads / throughput of a closed loop. */
  opMs: number;
}

export interface OperationLine {
  /** ms an operation would cost with the public node next door: the private side's share and every operation's own processing. */
  localMs: number;
  /** The share of an operation's time that each ms of public round trip adds: the share of operations that cross. */
  publicShare: number;
}

/** The line through two regions' points; they must differ in round trip. */
export function lineThrough(a: RegionPoint, b: RegionPoint): OperationLine {
  if (a.rttMs === b.rttMs) throw new InputError('rttMs', `two regions with the same round trip (${a.rttMs} ms) do not fix a line`);
  const publicShare = (b.opMs - a.opMs) / (b.rttMs - a.rttMs);
  return { localMs: a.opMs - publicShare * a.rttMs, publicShare };
}

export function opMsAt(line: OperationLine, rttMs: number): number {
  return line.localMs + line.publicShare * rttMs;
}

/** The public round trip at which the line costs `opMs` an operation. */
export function rttForOpMs(line: OperationLine, opMs: number): number {
  if (line.publicShare <= 0)
    throw new InputError('publicShare', `operations that do not slow with distance (share ${line.publicShare}) fix no round trip`);
  return (opMs - line.localMs) / line.publicShare;
}
