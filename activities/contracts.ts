/**
 * The activities workflows call, by group. Each group is implemented in its own module
 * (activities/network.ts, activities/database.ts, activities/load.ts) and the worker registers
 * them all. Workflows import only these types.
 */
import type { FleetRef } from '../core/fleet-ref';
import type { ClusterInfo, ClusterSettings, DatabaseName, ResizeTiming } from '../core/database';
import type { RttMatrix, TrafficMatrix } from '../core/network';
import type { ConditionChangeSpec, ConditionFactors, ConditionValues } from '../core/link-conditions';
import type { ConditionEventInput } from '../core/link-selection';
import type { Lateness, ReplayInput, ReplayReport } from '../core/trace';
import type { YcsbSettings } from '../core/ycsb';
import type { MoveInput, MoveResult } from '../core/site-motion';

// The domain types live in core/; they are re-exported here for the activities that speak them.
export type { ClusterInfo, ClusterSettings, DatabaseName, ResizeTiming } from '../core/database';
export type { RttMatrix, TrafficMatrix } from '../core/network';
export type { Workload, YcsbSettings } from '../core/ycsb';
import type { RunSeries } from '../core/samples';

// ---------------------------------------------------------------- network (activities/network.ts)

export interface NetworkActivities {
  /** Sets every link's latency to reference * scale (bandwidth unchanged). */
  applyLatencyEpoch(input: { fleet: FleetRef; scale: number }): Promise<{ appliedAt: number }>;
  /** Sets every link's bandwidth cap to reference * scale (latency unchanged). */
  applyBandwidthEpoch(input: { fleet: FleetRef; scale: number }): Promise<{ appliedAt: number }>;
  cutLink(input: { fleet: FleetRef; link: string }): Promise<{ appliedAt: number }>;
  restoreLink(input: { fleet: FleetRef; link: string }): Promise<{ appliedAt: number }>;
  /** A network event: set, scale, cut, restore or reset the selected links (directions). */
  changeLinkConditions(input: {
    fleet: FleetRef;
    target: ConditionEventInput;
    change: ConditionChangeSpec;
  }): Promise<{ appliedAt: number; links: number }>;
  /** Moves the selected links' values to a target over `overS` seconds, linearly or by whole seconds. */
  rampLinkConditions(input: {
    fleet: FleetRef;
    target: ConditionEventInput;
    change: { set: ConditionValues } | { scale: ConditionFactors };
    overS: number;
    steps: 'linear' | 'seconds';
  }): Promise<{ appliedAt: number; startedAt: number; completedAt: number; links: number; latenessMs: Lateness }>;
  /** Moves a positioned node along its path over `overS` seconds; its links' delays follow the distance model. */
  moveSite(input: { fleet: FleetRef } & MoveInput): Promise<{ appliedAt: number; completedAt: number } & MoveResult>;
  /** Cuts every link between the groups; `healPartition` restores exactly those. */
  partitionLinks(input: { fleet: FleetRef; groups: string[][] }): Promise<{ appliedAt: number; cut: string[] }>;
  healPartition(input: { fleet: FleetRef }): Promise<{ appliedAt: number; restored: string[] }>;
  /** Cuts and restores a link every half period for `forS` seconds; leaves it restored. */
  flapLink(input: {
    fleet: FleetRef;
    link: string;
    periodS: number;
    forS: number;
  }): Promise<{ appliedAt: number; completedAt: number; flips: number }>;
  /**
   * Sets the rows' values, each at t / speed from the start (looped until `untilS` seconds when
   * `loop`); lateness is each row's applied minus due time, ms.
   */
  replayLinkTrace(input: { fleet: FleetRef } & ReplayInput): Promise<ReplayReport>;
  /** Restores every cut link and sets every link back to its reference values. */
  resetNetwork(input: { fleet: FleetRef; lossSeed?: number }): Promise<{ appliedAt: number }>;
  /** Ping between the given nodes (all data nodes when omitted) over the overlay. */
  measureRtt(input: { fleet: FleetRef; nodes?: string[]; count: number }): Promise<RttMatrix>;
  measureBandwidth(input: { fleet: FleetRef; from: string; to: string; seconds: number; bitrateMbps?: number }): Promise<{ mbps: number }>;
  /** Cumulative bytes per node pair from the WireGuard transfer counters. */
  readTraffic(input: { fleet: FleetRef }): Promise<TrafficMatrix>;
  /** The nodes a packet from `from` to `to` passes through on the overlay, ends included. */
  overlayRoute(input: { fleet: FleetRef; from: string; to: string }): Promise<{ hops: string[] }>;
}

// --------------------------------------------------------------- databases (activities/database.ts)

export interface DatabaseActivities {
  startCluster(input: { fleet: FleetRef; database: DatabaseName; nodes: string[]; settings?: ClusterSettings }): Promise<ClusterInfo>;
  addNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming>;
  removeNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming>;
  clusterStatus(input: { fleet: FleetRef; database: DatabaseName }): Promise<{ members: string[]; healthy: boolean }>;
  /** Crashes a member's server on purpose (SIGKILL); it stays a member, down, until revived. */
  killNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }>;
  /** Starts a killed (or crashed) member's server again in place; resolves once it serves. */
  reviveNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }>;
  /** Stops every database process this fleet runs for that database (idempotent). */
  stopCluster(input: { fleet: FleetRef; database: DatabaseName }): Promise<void>;
}

// ---------------------------------------------------------------------- load (activities/load.ts)

export interface LoadActivities {
  /** Empties the database (YCSB flush phase); tables are re-made for the record shape's field count. */
  flushDatabase(input: { fleet: FleetRef; database: DatabaseName; fieldCount?: number }): Promise<void>;
  ycsbLoad(input: { fleet: FleetRef; database: DatabaseName; settings: YcsbSettings; phaseIndex?: number }): Promise<RunSeries>;
  /**
   * One client for a whole run phase: stores each second as it arrives, heartbeats the latest,
   * resumes from the stored seconds when retried; returns the totals, not the samples.
   */
  ycsbRun(
    input: { fleet: FleetRef; database: DatabaseName } & import('../core/ycsb').PhaseClientInput,
  ): Promise<import('../core/ycsb').PhaseClientResult>;
  /**
   * Host telemetry and in-run RTT probes for a phase, stored beside its samples every second,
   * until cancelled (activities/monitor.ts).
   */
  monitorPhase(input: import('../core/telemetry').MonitorInput): Promise<void>;
  /**
   * A checked run phase's consistency (ycsb.check), once its clients are done: their histories
   * checked, every key written read back; per second into the phase's `consistency` stream, the
   * rest returned for the phase's record.
   */
  checkConsistency(
    input: { fleet: FleetRef; database: DatabaseName } & import('../core/consistency/consistency').PhaseCheckInput,
  ): Promise<import('../core/consistency/consistency').PhaseConsistency>;
}

// ------------------------------------------------------------- results (activities/results.ts)

export interface ResultsActivities {
  /** Creates the run's directory and writes run.json (status running). */
  recordRunStart(input: { record: import('../core/run-record').RunRecord }): Promise<{ dir: string }>;
  /**
   * Adds samples to phase `phaseIndex`'s stream (the load phase's, which its activity returns), so
   * that recordCell's input does not grow with the phase. Storing a second again replaces it.
   */
  recordSamples(input: { runId: string; cellId: string; phaseIndex: number; samples: import('../core/samples').Sample[] }): Promise<void>;
  /**
   * Writes one finished cell: its phases joined with the samples, telemetry and probes streamed
   * while it ran; computes and returns the cell's summary (against the reference cell's, if given).
   */
  recordCell(input: {
    runId: string;
    cell: Omit<import('../core/run-record').CellRecord, 'summary'>;
    reference?: Pick<import('../core/run-record').CellSummary, 'throughputOpsPerS' | 'bytesTransferred'>;
  }): Promise<import('../core/run-record').CellSummary>;
  /** Marks the run finished and renders its report; returns the report's path. */
  finishRun(input: { runId: string; status: 'completed' | 'failed' | 'cancelled'; finishedAt: number }): Promise<{ reportPath: string }>;
}
