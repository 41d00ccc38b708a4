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

export { prepareRun };

/** This host's clock: the origin of a run phase, on the same clock as samples and events. */
export async function readClock(): Promise<number> {
  return Date.now();
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

/** The event injector over the network and database activities it drives; each kind says which and how. */
export function eventInjector(targets: EventTargets) {
  return async function injectEvent({ fleet, database, event }: InjectEventInput): Promise<InjectedEvent> {
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
  };
}

export interface ScenarioActivities {
  prepareRun(input: PrepareRunInput): Promise<PreparedRun>;
  readClock(): Promise<number>;
  injectEvent(input: InjectEventInput): Promise<InjectedEvent>;
}
