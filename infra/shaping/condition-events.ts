/**
 * Network events applied to a fleet: set, scale, cut, restore or reset the links an event selects
 * (one link, a node's links, a tagged group's, all), ramps that move link values to a target over
 * a duration, trace replays that set them row by row from a file's rows, partitions and their
 * heal, and a flapping link. The event modules in
 * core/event-kinds describe them; this is where they touch the shaper.
 */
import { InputError } from '../../core/errors';
import type { Inventory } from '../../core/inventory';
import {
  conditionsBetween,
  rampFraction,
  type ConditionChangeSpec,
  type ConditionFactors,
  type ConditionValues,
  type Direction,
  type DirectionConditions,
  type DirectionOverride,
} from '../../core/link-conditions';
import {
  linksBetweenGroups,
  partitionProblem,
  selectLinks,
  valuesProblem,
  type ConditionEventInput,
  type SelectedLink,
} from '../../core/link-selection';
import { replaySchedule, targetKey, traceTargetProblems, type ReplayPace, type TraceRow } from '../../core/trace';
import { sleep } from '../../platform/wait';
import type { ConditionChange, FleetNetwork } from './fleet-network';

/** The inventory as selection sees it (tags come from the topology). */
export function selectableFleet(inventory: Inventory) {
  return { name: inventory.name, nodes: inventory.nodes, links: inventory.links };
}

export function selected(net: FleetNetwork, input: ConditionEventInput): SelectedLink[] {
  const { direction, ...selector } = input;
  const result = selectLinks(selector, direction, selectableFleet(net.inventory));
  if (typeof result === 'string') throw new InputError('network', result);
  return result;
}

/** The direction's values after a set or a scale, from where it stands now. */
export function targetOf(current: DirectionConditions, change: { set: ConditionValues } | { scale: ConditionFactors }): DirectionConditions {
  if ('set' in change) {
    const { latencyMs, delayMs, ...rest } = change.set;
    const delay = delayMs ?? (latencyMs !== undefined ? latencyMs / 2 : undefined);
    return { ...current, ...rest, ...(delay !== undefined ? { delayMs: delay } : {}) };
  }
  const f = change.scale;
  return {
    delayMs: current.delayMs * (f.latencyMs ?? 1),
    bandwidthMbps: current.bandwidthMbps === null ? null : current.bandwidthMbps * (f.bandwidthMbps ?? 1),
    lossPercent: Math.min(100, current.lossPercent * (f.lossPercent ?? 1)),
    jitterMs: current.jitterMs * (f.jitterMs ?? 1),
  };
}

/** `latencyMs` is a round trip: it cannot be given to one direction. */
/** The same check validation makes, for callers that skip the scenario (the CLI, benches). */
function checkValues(change: ConditionChangeSpec, links: SelectedLink[]): void {
  const problem = 'set' in change ? valuesProblem(change.set, links) : undefined;
  if (problem) throw new InputError('network.set', problem);
}

interface DirectionTarget {
  link: string;
  direction: Direction;
  from: DirectionConditions;
  to: DirectionConditions;
}

function targets(net: FleetNetwork, links: SelectedLink[], change: { set: ConditionValues } | { scale: ConditionFactors }): DirectionTarget[] {
  return links.flatMap((l) => {
    const now = net.conditions(l.id);
    return l.directions.map((direction) => ({ link: l.id, direction, from: now[direction], to: targetOf(now[direction], change) }));
  });
}

const overrideOf = (d: DirectionConditions): DirectionOverride => ({ ...d });

/** Applies a set, scale, cut, restore or reset at once; returns how many links it touched. */
export async function applyConditionEvent(net: FleetNetwork, input: ConditionEventInput, change: ConditionChangeSpec): Promise<number> {
  const links = selected(net, input);
  checkValues(change, links);
  if ('cut' in change || 'restore' in change) {
    for (const l of links) {
      const direction = l.directions.length === 1 ? l.directions[0] : undefined;
      if ('cut' in change) await net.cut(l.id, direction);
      else await net.restore(l.id, direction);
    }
  } else if ('reset' in change) {
    await net.resetConditions(links.map((l) => l.id));
  } else {
    await net.setConditions(
      targets(net, links, change).map((t): ConditionChange => ({ link: t.link, direction: t.direction, values: overrideOf(t.to) })),
    );
  }
  return links.length;
}

export interface RampOptions {
  overS: number;
  steps: 'linear' | 'seconds';
  /** Called at every step (a Temporal heartbeat); throwing stops the ramp where it stands. */
  onStep?: (fraction: number) => void;
}

/** How often a linear ramp updates the links: often enough that ping sees a smooth line. */
const LINEAR_STEP_MS = 100;

/**
 * Calls `step` with the share of `overS` gone (and the seconds since the start) every 0.1 s
 * (linear) or every second (seconds), until it has been called with 1: ramps and moves share it,
 * so both end exactly on their target however late a step runs. Returns when it started (the
 * clock its fractions count from) and how late each step finished after it was due, ms: each is
 * due at its place from the start, so one late step does not make the next ones late.
 */
export async function stepOver(
  overS: number,
  steps: 'linear' | 'seconds',
  step: (fraction: number, elapsedS: number) => Promise<void>,
): Promise<{ startedAt: number; latenessMs: number[] }> {
  const start = Date.now();
  const stepMs = steps === 'seconds' ? 1000 : LINEAR_STEP_MS;
  const latenessMs: number[] = [];
  for (let n = 1; ; n++) {
    const dueAt = start + n * stepMs;
    await sleep(Math.max(0, dueAt - Date.now()));
    const elapsedS = (Date.now() - start) / 1000;
    const fraction = rampFraction(elapsedS, overS, steps);
    await step(fraction, elapsedS);
    latenessMs.push(Date.now() - dueAt);
    if (fraction >= 1) return { startedAt: start, latenessMs };
  }
}

/**
 * Moves each selected direction's values from where they stand to the target over `overS`,
 * linearly or in steps of one second, and ends exactly on the target.
 */
export async function rampConditions(
  net: FleetNetwork,
  input: ConditionEventInput,
  change: { set: ConditionValues } | { scale: ConditionFactors },
  options: RampOptions,
): Promise<{ links: number; startedAt: number; latenessMs: number[] }> {
  const links = selected(net, input);
  checkValues(change, links);
  const plan = targets(net, links, change);
  const { startedAt, latenessMs } = await stepOver(options.overS, options.steps, async (fraction) => {
    await net.setConditions(
      plan.map((t) => ({ link: t.link, direction: t.direction, values: overrideOf(conditionsBetween(t.from, t.to, fraction)) })),
    );
    options.onStep?.(fraction);
  });
  return { links: links.length, startedAt, latenessMs };
}

export interface ReplayOptions extends ReplayPace {
  /** Called after each step (a Temporal heartbeat); throwing stops the replay where it stands. */
  onStep?: () => void;
}

export interface ReplayResult {
  /** Steps applied (rows due at the same time are one step). */
  steps: number;
  /** Per row applied: when the shaper had it minus when it was due, ms. */
  latenessMs: number[];
}

/** One step's rows as changes, each direction's values from where it stands (a later row wins). */
function stepChanges(net: FleetNetwork, rows: TraceRow[], selections: Map<string, SelectedLink[]>): ConditionChange[] {
  const next = new Map<string, { link: string; direction: Direction; values: DirectionConditions }>();
  for (const row of rows) {
    for (const l of selections.get(targetKey(row.target))!) {
      for (const direction of l.directions) {
        const key = `${l.id} ${direction}`;
        const current = next.get(key)?.values ?? net.conditions(l.id)[direction];
        next.set(key, { link: l.id, direction, values: targetOf(current, { set: { [row.property]: row.value } }) });
      }
    }
  }
  return [...next.values()].map((c) => ({ ...c, values: overrideOf(c.values) }));
}

/**
 * Applies a trace's rows, each at its time from the start (t / speed). Every step is due at a time
 * counted from the start, not from the step before, so a late step does not make later ones late.
 * The last values stay (like a ramp's): a `network: {reset: true}` takes them back.
 */
export async function replayTrace(net: FleetNetwork, rows: TraceRow[], options: ReplayOptions): Promise<ReplayResult> {
  // The same checks as validation, on the fleet as it is now, before the first row is due.
  const problems = traceTargetProblems(rows, selectableFleet(net.inventory), 'trace');
  if (problems.length > 0) throw new InputError('replay.rows', problems.join('; '));
  const selections = new Map(rows.map((r) => [targetKey(r.target), selected(net, r.target)]));
  const schedule = replaySchedule(rows, options);
  const latenessMs: number[] = [];
  const start = Date.now();
  for (const step of schedule) {
    await sleep(Math.max(0, start + step.atMs - Date.now()));
    let shapedAt = 0;
    await net.setConditions(stepChanges(net, step.rows, selections), { onShaped: () => (shapedAt = Date.now()) });
    const late = shapedAt - (start + step.atMs);
    for (let k = 0; k < step.rows.length; k++) latenessMs.push(late);
    options.onStep?.();
  }
  return { steps: schedule.length, latenessMs };
}

/** Cuts every link between the groups (both ways); returns the ones it cut. */
export async function partition(net: FleetNetwork, groups: string[][]): Promise<string[]> {
  const fleet = selectableFleet(net.inventory);
  const problem = partitionProblem(groups, fleet);
  if (problem) throw new InputError('partition', problem);
  return net.partition(linksBetweenGroups(groups, fleet));
}

/**
 * Cuts and restores a link every half period for `forS` seconds, and leaves it restored. Each cut
 * and restore is due at its place on a timeline fixed at the start (cycle k cuts at k periods), so
 * slow cut or restore calls make a flip late, never drop one: a flap has ceil(forS / periodS) flips.
 */
export async function flap(net: FleetNetwork, link: string, periodS: number, forS: number, onStep?: () => void): Promise<number> {
  net.link(link);
  const start = Date.now();
  const periodMs = periodS * 1000;
  const cycles = Math.ceil(forS / periodS - 1e-9);
  const until = (atMs: number) => sleep(Math.max(0, start + atMs - Date.now()));
  let flips = 0;
  try {
    for (let k = 0; k < cycles; k++) {
      await until(k * periodMs);
      await net.cut(link);
      onStep?.();
      await until(Math.min(k * periodMs + periodMs / 2, forS * 1000));
      await net.restore(link);
      flips++;
      onStep?.();
    }
    await until(forS * 1000);
  } finally {
    await net.restore(link);
  }
  return flips;
}
