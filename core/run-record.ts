/**
 * What a scenario run leaves behind, as stored on disk by services/results/results-store.ts:
 *   <resultsDir>/<runId>/run.json            RunRecord (no samples)
 *   <resultsDir>/<runId>/cells/<cellId>.json CellRecord (with its samples and events)
 *   <resultsDir>/<runId>/cells/<cellId>.parts/<phase>.<stream>.jsonl samples, telemetry and probes
 *                                            streamed second by second while the cell runs; joined
 *                                            into the cell's record, removed when the run finishes
 *   <resultsDir>/<runId>/cells/<cellId>.history/<phase>.<client>.jsonl.gz a checked phase's history,
 *                                            one file per client process (ycsb.check), kept
 *   <resultsDir>/<runId>/report/index.html   the report, and one PNG per figure beside it
 * resultsDir is $FRAGBENCH_RESULTS_DIR, or ./results in the working directory.
 */
import type { Inventory } from './inventory';
import type { RecordedEvent } from './events';
import type { RunTotals, Sample } from './samples';
import type { TelemetrySample } from './telemetry';
import type { CellVerdict, PhaseVerdict, RttProbe } from './verdict';
import type { ResizeTiming } from './database';
import type { RttMatrix, TrafficMatrix } from './network';
import type { PathChange } from './overlay-path';
import type { CellConsistency, PhaseConsistency } from './consistency/consistency';

export interface RunRecord {
  runId: string;
  /**
   * The scenario workflow's id (the run id is made from it, see workflows/definitions.ts
   * `runIdFor`): how `fragbench runs`, `runs show` and `follow` find the workflow. Absent in
   * older runs and runs recorded without a workflow; the run id stands in for it there.
   */
  workflowId?: string;
  /** Scenario name, e.g. `latency-epochs`. */
  scenario: string;
  /**
   * The scenario's title for its experiment: free text (older runs hold one of the shipped
   * names, e.g. `latency-epochs`). Shown in the report; it chooses nothing: the report picks its
   * figures and words from what the cells recorded.
   */
  experiment: string;
  startedAt: number;
  finishedAt?: number;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  /** The scenario as run (after defaults and time scaling), for reproducing it. */
  settings: Record<string, unknown>;
  /** Settings that differ from the databases' defaults: shown next to every figure. */
  nonDefaultSettings: Record<string, string>;
  /** Software versions: database, YCSB, fragbench, WireGuard, tinc... */
  versions: Record<string, string>;
  inventory: Inventory;
  cellIds: string[];
  /**
   * The seed every link's loss and jitter draws started from at each cell's start (the scenario's
   * `lossSeed`, or picked for the run): give it as the scenario's lossSeed to repeat the drops.
   * The local fleet's emulator draws from it; netem on VMs draws its own. Absent in older runs.
   */
  lossSeed?: number;
}

export interface PhaseRecord {
  /** e.g. `load`, `run`. */
  name: string;
  samples: Sample[];
  /** A warm-up phase: recorded and shown, but left out of summaries and ratios. */
  warmup?: boolean;
  /** Host telemetry, one sample a second while the phase's workload ran. */
  telemetry?: TelemetrySample[];
  /** In-run RTT probes, a few node pairs a second. */
  probes?: RttProbe[];
  /** The local overlay's path for every pair at the phase's start, then each change (after network changes). */
  paths?: PathChange[];
  /** Whether the tool stayed out of the way, judged from the two above and the samples. */
  verdict?: PhaseVerdict;
  /** YCSB's final summary for the phase (summed over windows/clients where it was split). */
  totals?: RunTotals;
  /** A checked run phase (ycsb.check): what its history and final read-back showed, per second and in all. */
  consistency?: PhaseConsistency;
  events: RecordedEvent[];
  rtt: RttMatrix[];
  traffic: TrafficMatrix[];
  resizes: ResizeTiming[];
}

export interface CellSummary {
  throughputOpsPerS: number;
  /** throughput / throughput of the matrix's reference cell (e.g. LSF 1.0 = 5X), where defined. */
  normalizedThroughput?: number;
  okOps: number;
  failedOps: number;
  errorPercent: number;
  /** Average latency per operation type, microseconds. */
  avgLatencyUs: Record<string, number>;
  /** Seconds of the run with no successful operation. */
  zeroSeconds: number;
  /**
   * Seconds after each resize until throughput settled, by event label: how the workload
   * recovered, which is not when the resize completed (see `resizes`).
   */
  settleSeconds: Record<string, number>;
  /** Each resize's acceptance and completion, seconds after its request. */
  resizes?: ResizeSummary[];
  /** The worst verdict of the measured phases, with every reason: a result not `ok` is flagged, never dropped. */
  verdict?: CellVerdict;
  bytesTransferred?: number;
  normalizedBytes?: number;
  /** Over the measured phases that were checked: stale, corrupt and lost counts, and the verdict on them. */
  consistency?: CellConsistency;
}

export interface ResizeSummary {
  /** The event's label, made unique within the cell. */
  label: string;
  acceptedAfterS?: number;
  /** Data moved and the node serving (or gone); absent when it never completed. */
  completedAfterS?: number;
  /** The workload ended this many seconds into its phase while the resize was still moving data. */
  stillMovingAtPhaseEndS?: number;
}

export interface CellRecord {
  cellId: string;
  /**
   * Database and version this cell ran, its settings that differ from the database's defaults,
   * and the settings that decide what it keeps and what reads see (absent in older runs).
   */
  cluster?: { database: string; version: string; nonDefaultSettings: Record<string, string>; consistency?: Record<string, string> };
  /** The matrix coordinates of this cell, e.g. { database: 'redis', workload: 'a', latencyScale: 0.2 }. */
  coordinates: Record<string, string | number>;
  phases: PhaseRecord[];
  summary: CellSummary;
}
