/**
 * A scenario: one experiment as a user writes it (YAML in `scenarios/`, schema
 * `scenarios/scenario.schema.json`), and the plan the engine runs after validation, matrix
 * expansion and time scaling. Times in a scenario file are seconds.
 */
import type { FleetRef } from './fleet-ref';
import type { ClusterSettings, DatabaseName } from './database';
import type { Workload, YcsbSettings } from './ycsb';
import type { EventAction, WrittenAction } from './event-kinds/registry';
import type { StackChoice } from './stack';

// ------------------------------------------------------------------- as written

/** Where the fleet comes from. Relative paths are resolved against the project root. */
export type FleetSpec =
  /** The local emulated fleet, which must be up with this topology (`fragbench fleet up <name>`). */
  | {
      local: string;
      /** The network stack this run's fleet runs, over the topology's (core/stack.ts). */
      stack?: StackChoice;
    }
  | { inventoryFile: string }
  | { pulumiStack: string; cwd?: string };

export interface DatabaseSpec {
  name?: DatabaseName;
  /** Cluster members at the start of each cell: node names, or `all` for every data node. */
  nodes?: string[] | 'all';
  replication?: number;
  options?: Record<string, string | number | boolean>;
  /** CPU cores each node's server may use, as on a small VM (a cgroup cap; local fleets only). */
  cpus?: number;
}

/** Run phases set maxSeconds themselves, from their duration. */
export type YcsbSpec = Partial<Omit<YcsbSettings, 'maxSeconds'>>;

/** When an event fires and how it is shown; its action keys come from the event kinds (core/event-kinds/). */
export interface EventTiming {
  /** Seconds from the start of the phase. */
  at: number;
  /** Repeat every this many seconds: once per list item of the action, or `times` times. */
  every?: number;
  times?: number;
  label?: string;
}

/** One timed action in a run phase; exactly one action key per event. */
export type EventSpec = EventTiming & WrittenAction;

export type { ClientSpec } from './event-kinds/event-kind';

export type Measurement = 'rtt' | 'traffic';

export type PhaseSpec =
  | { phase: 'flush' }
  | { phase: 'load'; ycsb?: YcsbSpec }
  | {
      phase: 'run';
      label?: string;
      /** Seconds; the phase ends then or when `operations` are done, whichever first. */
      duration?: number;
      operations?: number;
      /** A warm-up phase: recorded and shown, left out of summaries, ratios and verdicts. */
      warmup?: boolean;
      /** Keep the workload running past `duration` until every resize the phase requested completed. */
      waitForResizes?: boolean;
      ycsb?: YcsbSpec;
      /** Taken just before the workload starts and just after it ends. */
      measure?: Measurement[];
      events?: EventSpec[];
    };

/** What a matrix value may change, besides its own coordinate. */
export interface CellOverrides {
  fleet?: FleetSpec;
  database?: DatabaseSpec;
  client?: string;
  ycsb?: YcsbSpec;
}

/** A scalar for a known dimension; an object with a name and overrides for any dimension. */
export type MatrixValue = string | number | ({ name: string } & CellOverrides);

export const KNOWN_DIMENSIONS = ['database', 'workload', 'latencyScale', 'bandwidthScale'] as const;
export type KnownDimension = (typeof KNOWN_DIMENSIONS)[number];

export interface ScenarioFile extends CellOverrides {
  name: string;
  /** A title in the user's words; the report shows it and chooses nothing by it. */
  experiment: string;
  description?: string;
  fleet: FleetSpec;
  matrix?: Record<string, MatrixValue[]>;
  /** The cell each cell is normalized by: dimension -> value, e.g. { latencyScale: 1 }. */
  reference?: Record<string, string | number>;
  /** Multiplies every interval (offsets, durations); 0.1 rehearses a 6000 s run in 600 s. */
  timeScale?: number;
  /** Starts every link's loss and jitter draws at each cell's start; a run without one picks one and records it. */
  lossSeed?: number;
  /** Removed (each client runs as one process for its whole phase); rejected with that message. */
  windowSeconds?: unknown;
  phases: PhaseSpec[];
}

// ------------------------------------------------------------------- as run

export type { EventAction } from './event-kinds/registry';

export interface PlannedEvent {
  /** Seconds from the start of the phase, after time scaling. */
  atS: number;
  label: string;
  /** Where it came from in the scenario file, for messages. */
  path: string;
  action: EventAction;
}

export type PlannedPhase =
  | { kind: 'flush'; name: string; /** Tables are re-made for this record shape. */ fieldCount: number }
  | { kind: 'load'; name: string; ycsb: YcsbSettings }
  | {
      kind: 'run';
      name: string;
      durationS?: number;
      operations?: number;
      ycsb: YcsbSettings;
      warmup: boolean;
      waitForResizes: boolean;
      measure: Measurement[];
      /** Sorted by atS. */
      events: PlannedEvent[];
    };

export interface CellPlan {
  /** Unique in the run and usable as a file name, e.g. `c03-redis-a-lsf0.4`. */
  cellId: string;
  coordinates: Record<string, string | number>;
  fleet: FleetRef;
  database: DatabaseName;
  nodes: string[];
  client: string;
  settings: ClusterSettings;
  latencyScale?: number;
  bandwidthScale?: number;
  phases: PlannedPhase[];
  /** Every link's loss and jitter draws start from this seed when the cell resets the network (the run's seed). */
  lossSeed?: number;
  /** The cell this one is normalized by (itself for a reference cell); absent without a reference. */
  referenceCellId?: string;
}

export interface RunPlan {
  scenario: string;
  experiment: string;
  timeScale: number;
  /** The scenario's lossSeed; absent: the run picks one (prepareRun) and gives it to every cell. */
  lossSeed?: number;
  /** Reference cells come before the cells normalized by them. */
  cells: CellPlan[];
}

export { DEFAULT_PING_COUNT } from './event-kinds/measure-rtt';

/** YCSB settings a scenario need not repeat. The hybrid works used 10 x 8-byte fields instead. */
export const YCSB_DEFAULTS: Omit<YcsbSettings, 'workload'> & { workload: Workload } = {
  workload: 'a',
  recordCount: 10_000,
  operationCount: 100_000,
  threads: 10,
  fieldCount: 10,
  fieldLength: 100,
  timeoutMs: 2_000,
  retries: 0,
};

/** Phases whose name a run record carries, e.g. `run` or `run:extra` for a ramped client. */
export function clientPhaseName(phase: string, client?: string): string {
  return client ? `${phase}:${client}` : phase;
}

/** The run phase a ramped client's phase ran inside (`run` for `run:extra`); undefined for a run phase. */
export function runPhaseOf(phaseName: string): string | undefined {
  const colon = phaseName.indexOf(':');
  return colon > 0 ? phaseName.slice(0, colon) : undefined;
}
