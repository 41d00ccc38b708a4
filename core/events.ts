/**
 * Events a scenario injects into a run (latency epochs, resizes, link cuts, client ramps,
 * measurements), stamped on the same clock as the samples. The thing that injects a fault
 * records these; the thing that judges the outcome reads them with the samples.
 */
import type { EventAction } from './event-kinds/registry';

export type EventKind =
  /** The kinds a scenario asks for: one module each in core/event-kinds/. */
  | EventAction['kind']
  /** A client the tool lost (worker died, client crashed) started again where its stored samples end. */
  | 'client-restart'
  /** One of the fleet's own daemons (emulator, WireGuard, tincd) died; it was restarted with its configuration. */
  | 'tool-fault'
  /** A database member's server died without the scenario asking (a crash, an OOM kill); it was restarted in place. */
  | 'node-fault'
  | 'server-start'
  | 'server-stop';

export interface RecordedEvent {
  kind: EventKind;
  /** Short human label for figures, e.g. `cut sydney-pune/0` or `LSF 0.4`. */
  label: string;
  /** Offset into the run at which the scenario asked for it, seconds (after time scaling). */
  scheduledOffsetS: number;
  /** Epoch ms when the request was made. */
  requestedAt: number;
  /** Epoch ms when the system confirmed the request (e.g. a database accepted a resize). */
  acceptedAt?: number;
  /** Epoch ms when the effect was complete (e.g. data moved and the node serving). */
  completedAt?: number;
  /** Anything specific to the kind: node, link, factor, measured matrix... */
  detail: Record<string, unknown>;
}
