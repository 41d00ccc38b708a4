/** Every reproduction `fragbench reproduce` knows, in SPEC.md §4's order. */
import { InputError } from '../errors';
import type { Reproduction } from './experiment';
import { bursting, distance, horizontal, vertical, vmPacking } from './hybrid';
import { latency } from './latency';
import { linkRemoval } from './link-removal';
import { resizeOnTheFly, singleResizeReproduction } from './resize';
import { timedEvents } from './timed-events';
import { traffic } from './traffic';

export const REPRODUCTIONS: readonly Reproduction[] = [
  latency,
  traffic,
  singleResizeReproduction,
  resizeOnTheFly,
  linkRemoval,
  bursting,
  distance,
  horizontal,
  vertical,
  vmPacking,
  timedEvents,
];

/** `all` or one id; the error lists the ids. */
export function selectReproductions(which: string): Reproduction[] {
  if (which === 'all') return [...REPRODUCTIONS];
  const found = REPRODUCTIONS.find((r) => r.id === which);
  if (!found) throw new InputError('experiment', `no reproduction "${which}"; use all or one of: ${REPRODUCTIONS.map((r) => r.id).join(', ')}`);
  return [found];
}
