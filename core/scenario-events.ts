/**
 * A run phase's timeline: events as written (`at`, optional `every` with a list or `times`)
 * expanded into single timed actions, scaled by the scenario's time scale, in time order.
 */
import { InputError } from './errors';
import { eventKinds, eventKindOf } from './event-kinds/registry';
import type { EventAction, EventSpec, PlannedEvent } from './scenario';

/** The label figures show for an event, e.g. `LSF 0.4` or `cut sydney-pune/0`. */
export function defaultLabel(action: EventAction): string {
  return eventKindOf(action).label(action);
}

/**
 * Expands one phase's events. `durationS` is the phase's unscaled duration (undefined for a
 * phase bounded by operations only, which cannot have events); offsets must fall inside it.
 */
export function expandEvents(
  events: EventSpec[],
  phasePath: string,
  timeScale: number,
  durationS: number | undefined,
  errors: InputError[],
): PlannedEvent[] {
  const planned: PlannedEvent[] = [];
  events.forEach((event, i) => {
    const path = `${phasePath}.events[${i}]`;
    if (durationS === undefined) {
      errors.push(new InputError(path, 'events need the phase to have a duration: add `duration: <seconds>` to the phase'));
      return;
    }
    const written = event as unknown as Record<string, unknown>;
    const kinds = eventKinds().filter((k) => written[k.key] !== undefined);
    if (kinds.length !== 1) {
      errors.push(
        new InputError(
          path,
          `needs exactly one action (found ${kinds.length ? kinds.map((k) => k.key).join(', ') : 'none'}); use one of: ${eventKinds()
            .map((k) => k.key)
            .join(', ')}`,
        ),
      );
      return;
    }
    const [kind] = kinds;
    const key = kind.key;
    const value = written[key];
    // A kind whose value is itself a list (a partition's groups) takes it whole.
    const items: unknown[] | undefined = kind.takesList && Array.isArray(value) ? value : undefined;
    if (items && event.times !== undefined)
      errors.push(new InputError(`${path}.times`, `the list in \`${key}\` already says how many; remove \`times\``));
    if (event.times !== undefined && event.every === undefined)
      errors.push(new InputError(`${path}.times`, 'repeating needs `every: <seconds>` between repetitions'));
    const count = items?.length ?? event.times ?? 1;
    for (let k = 0; k < count; k++) {
      const item = items ? items[k] : value;
      const itemPath = items ? `${path}.${key}[${k}]` : `${path}.${key}`;
      const at = event.at + k * (event.every ?? 0);
      if (at >= durationS) {
        errors.push(
          new InputError(
            items || event.times ? itemPath : `${path}.at`,
            `at ${at} s is not before the phase's end (duration ${durationS} s): move it earlier or lengthen the phase`,
          ),
        );
        continue;
      }
      const unfitted = kind.toAction(item);
      // A kind that lasts is fitted to the rest of its phase, or refused when it would outlast it.
      const fitted = kind.fitPhase ? kind.fitPhase(unfitted, { remainingS: durationS - at, timeScale }) : unfitted;
      if (typeof fitted === 'string') {
        errors.push(new InputError(itemPath, fitted));
        continue;
      }
      const action = fitted as EventAction;
      planned.push({ atS: at * timeScale, label: event.label ?? defaultLabel(action), path: itemPath, action });
    }
  });
  // Stable: events at the same offset keep the order they were written in.
  return planned
    .map((e, i) => [e, i] as const)
    .sort((x, y) => x[0].atS - y[0].atS || x[1] - y[1])
    .map(([e]) => e);
}
