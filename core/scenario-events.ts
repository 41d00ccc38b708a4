/**
 * A run phase's timeline: events as written (`at`, optional `every` with a list or `times`)
 * expanded into single timed actions, scaled by the scenario's time scale, in time order.
 */
import { InputError } from './errors';
import { DEFAULT_PING_COUNT, type ClientSpec, type EventAction, type EventSpec, type PlannedEvent } from './scenario';

const ACTION_KEYS = ['latency', 'bandwidth', 'add', 'remove', 'cut', 'restore', 'clientStart', 'clientStop', 'measureRtt', 'measureTraffic'] as const;
type ActionKey = (typeof ACTION_KEYS)[number];

function toAction(key: ActionKey, value: unknown): EventAction {
  switch (key) {
    case 'latency':
      return { kind: 'latency-epoch', scale: value as number };
    case 'bandwidth':
      return { kind: 'bandwidth-epoch', scale: value as number };
    case 'add':
      return { kind: 'resize-add', node: value as string };
    case 'remove':
      return { kind: 'resize-remove', node: value as string };
    case 'cut':
      return { kind: 'link-cut', link: value as string };
    case 'restore':
      return { kind: 'link-restore', link: value as string };
    case 'clientStart':
      return { kind: 'client-start', client: value as ClientSpec };
    case 'clientStop':
      return { kind: 'client-stop', name: value as string };
    case 'measureRtt': {
      const m = value as { nodes?: string[]; count?: number };
      return { kind: 'measure-rtt', nodes: m.nodes, count: m.count ?? DEFAULT_PING_COUNT };
    }
    case 'measureTraffic':
      return { kind: 'measure-traffic' };
  }
}

/** The label figures show for an event, e.g. `LSF 0.4` or `cut sydney-pune/0`. */
export function defaultLabel(action: EventAction): string {
  switch (action.kind) {
    case 'latency-epoch':
      return `LSF ${action.scale}`;
    case 'bandwidth-epoch':
      return `BSF ${action.scale}`;
    case 'resize-add':
      return `add ${action.node}`;
    case 'resize-remove':
      return `remove ${action.node}`;
    case 'link-cut':
      return `cut ${action.link}`;
    case 'link-restore':
      return `restore ${action.link}`;
    case 'client-start':
      return `start client ${action.client.name}`;
    case 'client-stop':
      return `stop client ${action.name}`;
    case 'measure-rtt':
      return 'ping matrix';
    case 'measure-traffic':
      return 'traffic counters';
  }
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
    const keys = ACTION_KEYS.filter((k) => event[k] !== undefined);
    if (keys.length !== 1) {
      errors.push(new InputError(path, `needs exactly one action (found ${keys.length ? keys.join(', ') : 'none'}); use one of: ${ACTION_KEYS.join(', ')}`));
      return;
    }
    const key = keys[0];
    const value = event[key];
    const items = Array.isArray(value) ? value : undefined;
    if (items && event.times !== undefined) errors.push(new InputError(`${path}.times`, `the list in \`${key}\` already says how many; remove \`times\``));
    if (event.times !== undefined && event.every === undefined) errors.push(new InputError(`${path}.times`, 'repeating needs `every: <seconds>` between repetitions'));
    const count = items?.length ?? event.times ?? 1;
    for (let k = 0; k < count; k++) {
      const item = items ? items[k] : value;
      const itemPath = items ? `${path}.${key}[${k}]` : `${path}.${key}`;
      const at = event.at + k * (event.every ?? 0);
      if (at >= durationS) {
        errors.push(new InputError(items || event.times ? itemPath : `${path}.at`, `at ${at} s is not before the phase's end (duration ${durationS} s): move it earlier or lengthen the phase`));
        continue;
      }
      const action = toAction(key, item);
      planned.push({ atS: at * timeScale, label: event.label ?? defaultLabel(action), path: itemPath, action });
    }
  });
  // Stable: events at the same offset keep the order they were written in.
  return planned.map((e, i) => [e, i] as const).sort((x, y) => x[0].atS - y[0].atS || x[1] - y[1]).map(([e]) => e);
}
