/** What a node joining and a node leaving share: the target database and the three resize times. */
import type { ResizeTiming } from '../database';
import type { EventOutcome, EventTarget, FleetActivityName } from './event-kind';

export function resizeCall(activity: FleetActivityName, node: string, { fleet, database }: EventTarget) {
  return { activity, input: { fleet, database, node } };
}

/** The adapter stamps all three times itself: its request time replaces the injector's. */
export function resizeOutcome(node: string, result: unknown): EventOutcome {
  const resize = result as ResizeTiming;
  const { requestedAt, acceptedAt, completedAt } = resize;
  return { detail: { node }, requestedAt, times: { acceptedAt, completedAt }, resize };
}
