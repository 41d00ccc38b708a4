/**
 * The scenario engine's own activities: preparing a run (operations/scenario/scenario-loader.ts),
 * reading this host's clock, and injecting a timeline event (the nemesis: it stamps request,
 * acceptance and completion times on the same clock as the samples, and leaves judging the
 * outcome to the report).
 */
import type { RecordedEvent } from '../core/events';
import type { FleetActivityName } from '../core/event-kinds/event-kind';
import { eventKindOf } from '../core/event-kinds/registry';
import type { PlannedEvent } from '../core/scenario';
import type { FleetRef } from '../core/fleet-ref';
import type { DatabaseActivities, DatabaseName, NetworkActivities, ResizeTiming, RttMatrix, TrafficMatrix } from './contracts';
import { prepareRun, type PrepareRunInput, type PreparedRun } from '../operations/scenario/scenario-loader';
import * as networkActivities from './network';
import * as databaseActivities from './database';

export { prepareRun };

/** This host's clock: the origin of a run phase, on the same clock as samples and events. */
export function readClock(): Promise<number> {
  // An activity returns a promise; reading the clock has nothing to wait for.
  return Promise.resolve(Date.now());
}

export interface InjectEventInput {
  fleet: FleetRef;
  database: DatabaseName;
  event: PlannedEvent;
}

export interface InjectedEvent {
  event: RecordedEvent;
  rtt?: RttMatrix;
  traffic?: TrafficMatrix;
  resize?: ResizeTiming;
}

export type EventTargets = Pick<NetworkActivities & DatabaseActivities, FleetActivityName>;

/** The fleet operations an event may apply: the network and database activities, called in-process. */
const FLEET_TARGETS: EventTargets = { ...networkActivities, ...databaseActivities };

/** Injects one timeline event: its kind says which fleet operation to call and with what. */
export function injectEvent(input: InjectEventInput): Promise<InjectedEvent> {
  return injectEventInto(FLEET_TARGETS, input);
}

/** injectEvent over the given operations (tests pass their own). */
export async function injectEventInto(targets: EventTargets, { fleet, database, event }: InjectEventInput): Promise<InjectedEvent> {
  const requestedAt = Date.now();
  const kind = eventKindOf(event.action);
  const call = kind.apply(event.action, { fleet, database });
  const result = call ? await (targets[call.activity] as (input: unknown) => Promise<unknown>)(call.input) : undefined;
  const outcome = kind.outcome(event.action, result);
  return {
    event: {
      kind: event.action.kind,
      label: event.label,
      scheduledOffsetS: event.atS,
      requestedAt: outcome.requestedAt ?? requestedAt,
      ...outcome.times,
      detail: outcome.detail,
    },
    ...(outcome.rtt && { rtt: outcome.rtt }),
    ...(outcome.traffic && { traffic: outcome.traffic }),
    ...(outcome.resize && { resize: outcome.resize }),
  };
}

export interface ScenarioActivities {
  prepareRun(input: PrepareRunInput): Promise<PreparedRun>;
  readClock(): Promise<number>;
  injectEvent(input: InjectEventInput): Promise<InjectedEvent>;
}

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ prepareRun, readClock, injectEvent }) satisfies ScenarioActivities;
