/**
 * What one kind of timed event knows about itself, in one object: how a scenario writes it, what
 * it must not contradict, what `validate` says it will do, which fleet activity applies it, and
 * how the live view and the report show it. Everything here is pure data and pure functions: the
 * workflows import it, so it may do no I/O and read no clock.
 */
import type { DatabaseName, ResizeTiming } from '../database';
import type { FleetRef } from '../fleet-ref';
import type { RttMatrix, TrafficMatrix } from '../network';
import type { DistanceModel, Position } from '../site-motion';
import type { Stack } from '../stack';

/** A JSON schema fragment (draft-07), as it appears in scenarios/scenario.schema.json. */
export type JsonSchema = Record<string, unknown>;

/** Events in one lane fire in order; lanes run side by side, so a slow resize never delays a cut. */
export type EventLane = 'cluster' | 'network' | 'clients' | 'measure';

/** How long applying it may take, which picks its activity timeout and retries (workflows/activities.ts). */
export type EventDuration = 'resize' | 'measurement' | 'quick';

/** A measurement a run phase can also take before and after its workload (`measure: [rtt]`). */
export type PhaseMeasurement = 'rtt' | 'traffic';

/** A YCSB client a run phase starts part-way through. */
export interface ClientSpec {
  name: string;
  threads?: number;
  target?: number;
}

/** Fleet and database activities an event may drive; the injector (activities/scenario.ts) calls them. */
export type FleetActivityName =
  | 'applyLatencyEpoch'
  | 'applyBandwidthEpoch'
  | 'cutLink'
  | 'restoreLink'
  | 'measureRtt'
  | 'readTraffic'
  | 'addNode'
  | 'removeNode'
  | 'killNode'
  | 'reviveNode'
  | 'changeLinkConditions'
  | 'rampLinkConditions'
  | 'partitionLinks'
  | 'healPartition'
  | 'flapLink'
  | 'replayLinkTrace'
  | 'moveSite';

/** Which activity applies an event, with which input: a description, so deciding it stays deterministic. */
export interface ActivityCall {
  activity: FleetActivityName;
  input: Record<string, unknown>;
}

/** Where an event is applied. */
export interface EventTarget {
  fleet: FleetRef;
  database: DatabaseName;
}

/** What an applied event records, from the activity's result (times on the activity host's clock). */
export interface EventOutcome {
  detail: Record<string, unknown>;
  /** When the request was really made, where the activity knows better than the injector. */
  requestedAt?: number;
  times?: { acceptedAt?: number; completedAt?: number };
  rtt?: RttMatrix;
  traffic?: TrafficMatrix;
  resize?: ResizeTiming;
}

/**
 * The state a phase's events change, walked in time order during validation: cluster members, cut
 * links, ramped clients, and what the fleet has. A kind's `check` reads it and applies its change.
 */
export interface TimelineState {
  members: Set<string>;
  cut: Set<string>;
  clients: Set<string>;
  linkIds: Set<string>;
  /** Members a `kill` event took down and no `revive` has brought back yet. */
  down: Set<string>;
  nodeNames: string[];
  dataNodes: string[];
  /** Where moved nodes stand after the moves so far; the others stand where the fleet places them. */
  positions: Map<string, Position>;
  fleet: {
    name: string;
    nodes: { name: string; tags?: string[]; position?: Position }[];
    links: { id: string; a?: string; b?: string; latencyMs?: number }[];
    distance?: Partial<DistanceModel>;
    /** The fleet's network stack where known; absent: the published one (tinc re-routes). */
    stack?: Stack;
  };
}

/** A resize: it moves data, so the workflow can wait for it and `validate` estimates its length. */
export interface ResizeRole<Action> {
  node(action: Action): string;
  /** Cluster members it adds (1) or takes away (-1). */
  delta: 1 | -1;
}

export interface EventKindModule<Key extends string = string, Item = unknown, Action extends { kind: string } = { kind: string }> {
  /** The key a scenario writes, e.g. `cut` in `{ at: 30, cut: sydney-pune/0 }`. */
  key: Key;
  /** The kind recorded with the event and shown in results, e.g. `link-cut`. */
  kind: Action['kind'];
  /** The value's JSON schema as written under `key` (a list form included where it takes one). */
  schema: JsonSchema;
  /** Named schema definitions the value refers to that belong to this kind alone. */
  definitions?: Record<string, JsonSchema>;
  /** Whether a list under `key` means one event per item (`every` apart). */
  takesList: boolean;

  /** One written item (a list's element, or the value itself) as the action the engine runs. */
  toAction(item: Item): Action;
  /** What it contradicts in the timeline so far, if anything; otherwise applies its change to `state`. */
  check?(action: Action, state: TimelineState, when: string): string | undefined;
  /** `validate`'s line: what it changes, e.g. `link sydney-pune/0 cut (both ways)`. */
  plan(action: Action): string;

  /**
   * For a kind that lasts and knows how long from its action alone (a trace replay): the action
   * fitted to its phase, or why it does not fit. `remainingS` is what is left of the phase when it
   * fires, in the scenario's seconds; `timeScale` is the run's, which the kind's own clock follows.
   */
  fitPhase?(action: Action, phase: { remainingS: number; timeScale: number }): Action | string;

  lane: EventLane;
  duration: EventDuration;
  /** For a kind that runs for a span (a ramp, a replay): its seconds on the run's clock, so its activity's timeout outlasts it. */
  lastsS?(action: Action): number;
  /** The activity that applies it; none for an event the workflow itself carries out (client ramps). */
  apply(action: Action, target: EventTarget): ActivityCall | undefined;
  /** What the recorded event says, from the activity's result (undefined when nothing was called). */
  outcome(action: Action, result: unknown): EventOutcome;
  resize?: ResizeRole<Action>;
  /** The client it starts or stops: the workflow runs ramped clients itself. */
  startsClient?(action: Action): ClientSpec;
  stopsClient?(action: Action): string;
  /** Set for a measurement: recorded like any event, but it does not disturb the workload. */
  measures?: PhaseMeasurement;

  /** The short label the live view and the figures show, e.g. `cut sydney-pune/0`. */
  label(action: Action): string;
  /** The report's timeline marker: legend name and colour, kept the same in every figure. */
  marker: { name: string; color: string };
  /** The plural a sentence lists it by, e.g. `link cuts` in the report's question. */
  phrase: string;
  /**
   * For the reader of the event language (the README's table, scripts/event-table.ts): what it
   * does, in a line, and one event written with it (checked against the scenario schema).
   */
  doc: { does: string; example: string };
}

/** Keeps a module's literal key and types while checking it against the interface. */
export function defineEventKind<const Key extends string, Item, const Action extends { kind: string }>(
  module: EventKindModule<Key, Item, Action>,
): EventKindModule<Key, Item, Action> {
  return module;
}

/** A value written once, or as a list of one or more (one event per item). */
export function oneOrList(item: JsonSchema): JsonSchema {
  return { anyOf: [item, { type: 'array', minItems: 1, items: item }] };
}

/** The outcome of a shaping change: effective as soon as the activity says it applied it. */
export function appliedAt(detail: Record<string, unknown>, result: unknown): EventOutcome {
  const { appliedAt: at } = result as { appliedAt: number };
  return { detail, times: { acceptedAt: at, completedAt: at } };
}
