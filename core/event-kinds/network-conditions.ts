/**
 * `network:` and `ramp:` events: set, scale, cut, restore or reset the links an event selects (one
 * link, a node's links, a tagged group's, all; one direction or both), at once or, for a ramp,
 * gradually over a duration while the workload runs. One factory keeps the selector, its checks and
 * its wording the same in both.
 */
import { CONDITION_VALUE_RANGES, type ConditionChangeSpec, type ConditionFactors, type ConditionValues, type ValueRange } from '../link-conditions';
import { selectLinks, valuesProblem, type ConditionEventInput, type SelectedLink } from '../link-selection';
import { appliedAt, defineEventKind, type JsonSchema, type TimelineState } from './event-kind';
import type { Lateness } from '../trace';

const VALUE_DESCRIPTIONS: Partial<Record<keyof ConditionValues, string>> = {
  latencyMs: 'round trip, split over both directions (both directions only)',
  delayMs: 'one-way delay of each selected direction',
};

/** A range as JSON schema: the same bounds a trace's rows are checked against. */
function rangeSchema(key: keyof ConditionValues, range: ValueRange): JsonSchema {
  return {
    type: 'number',
    ...(range.above ? { exclusiveMinimum: range.min } : { minimum: range.min }),
    ...(range.max !== undefined && { maximum: range.max }),
    ...(VALUE_DESCRIPTIONS[key] && { description: VALUE_DESCRIPTIONS[key] }),
  };
}

const VALUES: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: Object.fromEntries(
    Object.entries(CONDITION_VALUE_RANGES).map(([key, range]) => [key, rangeSchema(key as keyof ConditionValues, range)]),
  ),
};

const FACTORS: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: Object.fromEntries(['latencyMs', 'bandwidthMbps', 'lossPercent', 'jitterMs'].map((k) => [k, { type: 'number', exclusiveMinimum: 0 }])),
};

const SELECTOR_PROPERTIES: JsonSchema = {
  link: { type: 'string', description: 'one link, <a>-<b>/<type>' },
  node: { $ref: '#/definitions/nodeName', description: "all of the node's links" },
  tag: { type: 'string', description: 'all links touching a node with this tag (topology nodes[].tags)' },
  all: { const: true, description: 'every link' },
  direction: { enum: ['a->b', 'b->a', 'out', 'in', 'both'], description: 'a->b / b->a for a link; out / in for a node or tag; default both' },
};

const CHANGE_KEYS = ['set', 'scale', 'cut', 'restore', 'reset'] as const;
const RAMP_KEYS = ['to', 'scale'] as const;

/** Which of `keys` an item gives: exactly one is checked with the rest of the timeline, where the message can say what to do. */
function givenOf(item: object, keys: readonly string[]): string[] {
  return keys.filter((k) => (item as Record<string, unknown>)[k] !== undefined);
}

function exactlyOne(given: string[], keys: readonly string[]): string | undefined {
  if (given.length === 1) return undefined;
  return `give exactly one of ${keys.join(', ')} (got ${given.length ? given.join(', ') : 'none'})`;
}

export interface NetworkItem extends ConditionEventInput {
  set?: ConditionValues;
  scale?: ConditionFactors;
  cut?: true;
  restore?: true;
  reset?: true;
}

export interface RampItem extends ConditionEventInput {
  to?: ConditionValues;
  scale?: ConditionFactors;
  /** Seconds from the event to the target. */
  over: number;
  steps?: 'linear' | 'seconds';
}

function targetOf(item: ConditionEventInput): ConditionEventInput {
  const { link, node, tag, all, direction } = item;
  return {
    ...(link !== undefined && { link }),
    ...(node !== undefined && { node }),
    ...(tag !== undefined && { tag }),
    ...(all && { all }),
    ...(direction && { direction }),
  };
}

function rampChangeOf(item: RampItem): { set: ConditionValues } | { scale: ConditionFactors } {
  return item.to ? { set: item.to } : { scale: item.scale! };
}

function changeOf(item: NetworkItem): ConditionChangeSpec {
  if (item.set) return { set: item.set };
  if (item.scale) return { scale: item.scale };
  if (item.cut) return { cut: true };
  if (item.restore) return { restore: true };
  return { reset: true };
}

/** `link sydney-pune/0 (a->b)`, `node sydney (out)`, `tag mobile`, `all links`. */
export function describeTarget(t: ConditionEventInput): string {
  const where =
    t.link !== undefined
      ? `link ${t.link}`
      : t.node !== undefined
        ? `node ${t.node}'s links`
        : t.tag !== undefined
          ? `links of tag ${t.tag}`
          : 'all links';
  return t.direction && t.direction !== 'both' ? `${where} (${t.direction})` : where;
}

function describeChange(change: ConditionChangeSpec): string {
  if ('set' in change) return `set ${pairs(change.set)}`;
  if ('scale' in change) return `scaled ${pairs(change.scale, 'x')}`;
  if ('cut' in change) return 'cut';
  if ('restore' in change) return 'restored';
  return 'back to reference';
}

function pairs(values: object, prefix = ''): string {
  return Object.entries(values)
    .map(([k, v]) => `${k} ${prefix}${v}`)
    .join(', ');
}

/** What the selector touches on this fleet, or why it touches nothing. */
function checkSelection(target: ConditionEventInput, st: TimelineState): SelectedLink[] | string {
  const { direction, ...selector } = target;
  return selectLinks(selector, direction, st.fleet);
}

/** A both-ways cut or restore of whole links keeps the timeline's cut set true for later `restore:` checks. */
function trackCuts(change: ConditionChangeSpec, links: SelectedLink[], st: TimelineState): void {
  for (const l of links.filter((x) => x.directions.length === 2)) {
    if ('cut' in change) st.cut.add(l.id);
    if ('restore' in change || 'reset' in change) st.cut.delete(l.id);
  }
}

export const networkConditions = defineEventKind({
  key: 'network',
  kind: 'link-conditions',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...SELECTOR_PROPERTIES,
      set: VALUES,
      scale: FACTORS,
      cut: { const: true },
      restore: { const: true },
      reset: { const: true, description: 'back to the reference values (what network events set is dropped)' },
    },
  },
  takesList: false,
  toAction: (item: NetworkItem) => ({
    kind: 'link-conditions' as const,
    target: targetOf(item),
    change: changeOf(item),
    given: givenOf(item, CHANGE_KEYS),
  }),
  check: (a, st, when) => {
    const one = exactlyOne(a.given, CHANGE_KEYS);
    if (one) return one;
    const links = checkSelection(a.target, st);
    if (typeof links === 'string') return `${links} (${when})`;
    const problem = valuesProblem('set' in a.change ? a.change.set : undefined, links);
    if (problem) return problem;
    trackCuts(a.change, links, st);
    return undefined;
  },
  plan: (a) => `${describeTarget(a.target)} ${describeChange(a.change)}`,
  lane: 'network',
  duration: 'quick',
  apply: (a, { fleet }) => ({ activity: 'changeLinkConditions', input: { fleet, target: a.target, change: a.change } }),
  outcome: (a, result) => appliedAt({ ...a.target, ...a.change, links: (result as { links: number }).links }, result),
  label: (a) => `${describeTarget(a.target)} ${describeChange(a.change)}`,
  marker: { name: 'link conditions', color: '#8c564b' },
  phrase: 'link condition changes',
  doc: {
    does: "a link's, node's, tag's or every link's latency, delay, bandwidth, loss or jitter set, scaled, cut, restored or reset, per direction if asked",
    example: '{ at: 30, network: { node: sydney, direction: out, set: { bandwidthMbps: 5, lossPercent: 2 } } }',
  },
});

export const rampConditions = defineEventKind({
  key: 'ramp',
  kind: 'link-ramp',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['over'],
    properties: {
      ...SELECTOR_PROPERTIES,
      to: VALUES,
      scale: FACTORS,
      over: { type: 'number', exclusiveMinimum: 0, description: 'seconds from the event to the target' },
      steps: { enum: ['linear', 'seconds'], description: 'linear (default; updated every 0.1 s) or steps of one second' },
    },
  },
  takesList: false,
  toAction: (item: RampItem) => ({
    kind: 'link-ramp' as const,
    target: targetOf(item),
    change: rampChangeOf(item),
    overS: item.over,
    steps: item.steps ?? ('linear' as const),
    given: givenOf(item, RAMP_KEYS),
  }),
  check: (a, st, when) => {
    const one = exactlyOne(a.given, RAMP_KEYS);
    if (one) return one;
    const links = checkSelection(a.target, st);
    if (typeof links === 'string') return `${links} (${when})`;
    return valuesProblem('set' in a.change ? a.change.set : undefined, links);
  },
  plan: (a) =>
    `${describeTarget(a.target)} ramped to ${'set' in a.change ? pairs(a.change.set) : pairs(a.change.scale, 'x')} over ${a.overS} s (${a.steps})`,
  lane: 'network',
  // It runs for its whole duration and heartbeats, like a resize.
  duration: 'resize',
  lastsS: (a) => a.overS,
  apply: (a, { fleet }) => ({ activity: 'rampLinkConditions', input: { fleet, target: a.target, change: a.change, overS: a.overS, steps: a.steps } }),
  outcome: (a, result) => {
    const r = result as { appliedAt: number; completedAt: number; links: number; latenessMs?: Lateness };
    return {
      // Workflows started before the steps' lateness was reported have none.
      detail: { ...a.target, ...a.change, overS: a.overS, steps: a.steps, links: r.links, ...(r.latenessMs ? { latenessMs: r.latenessMs } : {}) },
      times: { acceptedAt: r.appliedAt, completedAt: r.completedAt },
    };
  },
  label: (a) => `ramp ${describeTarget(a.target)} over ${a.overS} s`,
  marker: { name: 'link ramp', color: '#bcbd22' },
  phrase: 'link ramps',
  doc: {
    does: 'conditions moved to a target linearly (or a step a second) over a span',
    example: '{ at: 60, ramp: { link: pune-seoul/0, to: { latencyMs: 200 }, over: 60 } }',
  },
});
