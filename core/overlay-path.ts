/**
 * The path one pair's packets take on the overlay, as tinc forwards them, and a run's record of
 * those paths over time: each pair's path at a phase's start, then every change.
 */

/** The way one node's packets take to another: the nodes in turn and the link between each two. */
export interface OverlayPath {
  from: string;
  to: string;
  hops: string[];
  /** Link id between hops i and i+1; `?` where the pair has no meta connection right now. */
  links: string[];
}

/** A pair's path from `time` (epoch ms) on. */
export interface PathChange extends OverlayPath {
  time: number;
}

/** `pa =pa-pc/1=> pc`, or `unreachable`. */
export function formatPath(path: OverlayPath): string {
  if (path.hops.length === 0) return 'unreachable';
  return path.hops.map((hop, i) => (i === 0 ? hop : `=${path.links[i - 1]}=> ${hop}`)).join(' ');
}

/** `a-b`, the key of a pair whichever way it is named. */
export const pairName = (path: Pick<OverlayPath, 'from' | 'to'>) => `${path.from}-${path.to}`;

/** The paths that differ from `before` (every path when `before` is empty), stamped with `time`. */
export function pathChanges(before: Map<string, string>, now: OverlayPath[], time: number): PathChange[] {
  return now.filter((p) => before.get(pairName(p)) !== formatPath(p)).map((p) => ({ time, ...p }));
}
