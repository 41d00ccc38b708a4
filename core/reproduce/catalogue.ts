/** Every reproduction `fragbench reproduce` knows, in the order of published-results.json (SPEC.md §4's, with the two of §3 and §4.4 it adds). */
import { InputError } from '../errors';
import type { PartRef, Reproduction } from './experiment';
import { bursting, distance, horizontal, vertical, vmPacking } from './hybrid';
import { latency } from './latency';
import { linkRemoval } from './link-removal';
import { offlineSizing } from './offline-sizing';
import { overlayPaths } from './overlay-paths';
import { resizeOnTheFly, singleResizeReproduction } from './resize';
import { timedEvents } from './timed-events';
import { traffic } from './traffic';

export const REPRODUCTIONS: readonly Reproduction[] = [
  latency,
  traffic,
  singleResizeReproduction,
  resizeOnTheFly,
  linkRemoval,
  overlayPaths,
  offlineSizing,
  bursting,
  distance,
  horizontal,
  vertical,
  vmPacking,
  timedEvents,
];

/**
 * The parts that run the same scenario as `of` (`sameRunsAs`, either way): the one it shares,
 * then those that share it. A resume that finds one of them finished reuses its runs, whichever
 * of the two experiments was named when they ran.
 */
export function partsSharingRuns(of: PartRef): PartRef[] {
  const own = REPRODUCTIONS.find((r) => r.id === of.experiment)?.parts.find((p) => p.id === of.part)?.sameRunsAs;
  const sharers = REPRODUCTIONS.flatMap((r) =>
    r.parts.filter((p) => p.sameRunsAs?.experiment === of.experiment && p.sameRunsAs.part === of.part).map((p) => ({ experiment: r.id, part: p.id })),
  );
  return [...(own ? [own] : []), ...sharers];
}

/** An experiment with its parts and the runs that complete each, as the durations read them (durations.ts). */
export function withSharedRuns(r: Reproduction): { id: string; parts: { id: string; sameRunsAs: PartRef[] }[] } {
  return { id: r.id, parts: r.parts.map((p) => ({ id: p.id, sameRunsAs: partsSharingRuns({ experiment: r.id, part: p.id }) })) };
}

/**
 * `all`, or one or more ids (each once, in the catalogue's order, so that a suite run in parts
 * runs as `all` would); the error lists the ids.
 */
export function selectReproductions(which: string | string[]): Reproduction[] {
  const asked = typeof which === 'string' ? [which] : which;
  if (asked.length === 0 || asked.includes('all')) {
    if (asked.length > 1) throw new InputError('experiment', `"all" runs every reproduction: give it alone, or list ids without it`);
    return [...REPRODUCTIONS];
  }
  for (const id of asked) {
    if (!REPRODUCTIONS.some((r) => r.id === id))
      throw new InputError('experiment', `no reproduction "${id}"; use all or one or more of: ${REPRODUCTIONS.map((r) => r.id).join(', ')}`);
  }
  return REPRODUCTIONS.filter((r) => asked.includes(r.id));
}
