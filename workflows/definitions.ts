/**
 * What the outside world exchanges with the scenario workflows: their input (one JSON object, as
 * the Temporal UI's Start Workflow form sends it), their results, the `progress` query and the
 * `abort` signal. Clients (the CLI, tests) import this module; it holds no workflow logic.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { CellSummary } from '../core/run-record';
import type { Sample } from '../core/samples';
import type { FleetMode } from '../core/fleet-lease';
import type { CellPlan } from '../core/scenario';
import { LIVE_SAMPLES_SIGNAL, type LiveSamples } from '../core/live-samples';

export const TASK_QUEUE_DEFAULT = 'fragbench';

/**
 * What the Temporal UI's list of runs filters by (e.g. `FragbenchDatabase = 'redis'`): set by
 * the scenario workflow where the namespace has them (`fragbench dev` registers them on the dev
 * server it starts; on a cluster, `temporal operator search-attribute create`). A run may cover
 * several databases or fleets, so those two are keyword lists (a filter on one value finds every
 * run that has it).
 */
export const SEARCH_ATTRIBUTES = {
  scenario: defineSearchAttributeKey('FragbenchScenario', SearchAttributeType.KEYWORD),
  database: defineSearchAttributeKey('FragbenchDatabase', SearchAttributeType.KEYWORD_LIST),
  topology: defineSearchAttributeKey('FragbenchTopology', SearchAttributeType.KEYWORD_LIST),
  verdict: defineSearchAttributeKey('FragbenchVerdict', SearchAttributeType.KEYWORD),
};

export interface ScenarioInput {
  /** The scenario file's content as JSON. Either this or `scenarioFile`. */
  scenario?: unknown;
  /** A scenario file the worker reads, relative to the project root, e.g. `scenarios/quickstart.yaml`. */
  scenarioFile?: string;
  options?: {
    /** Overrides the scenario's timeScale (0.1 rehearses ten times faster). */
    timeScale?: number;
  };
  /**
   * The local fleet: `auto` (default) brings the scenario's topology up when it is not up, and
   * takes it down at the end; a fleet already up with that topology is used and left up.
   * `existing` requires it up.
   */
  fleet?: FleetMode;
  /** Leave a fleet this run brought up running at the end, for inspection (`fragbench fleet down` removes it). */
  keepFleet?: boolean;
  /** When another run holds the fleet, wait for it (asking again every few seconds) instead of failing. */
  waitForFleet?: boolean;
}

export interface CellInput {
  runId: string;
  cell: CellPlan;
  /** The reference cell's summary, when it ran before this one. */
  reference?: Pick<CellSummary, 'throughputOpsPerS' | 'bytesTransferred'>;
  /**
   * How many updates that only bring new live seconds the cell may pass on to its run (each is
   * a signal in the run's history, which Temporal caps); the cell's own progress always has
   * them. Absent: no limit.
   */
  liveSampleForwards?: number;
}

export type CellStatus = 'completed' | 'aborted' | 'failed' | 'cancelled';

export interface CellResult {
  cellId: string;
  coordinates: Record<string, string | number>;
  status: CellStatus;
  summary?: CellSummary;
  error?: string;
}

export interface RunSummary {
  runId: string;
  scenario: string;
  status: 'completed' | 'aborted' | 'failed';
  cells: CellResult[];
  reportPath?: string;
}

/** What a cell is doing now. */
export interface CellProgress {
  cellId: string;
  /** Grows by one with every update: a reader keeps the newest and never goes back. */
  seq: number;
  /** e.g. `start cluster`, `load`, `run` */
  step: string;
  /** The last event that finished, with its label and requested time. */
  lastEvent?: { label: string; requestedAt: number };
  /** Events requested and not finished yet (a resize can take minutes). */
  running?: string[];
  /** The next event due, with its offset into the run phase. */
  nextEvent?: { label: string; atS: number };
  /** Host-clock start of the current run phase (the origin of its samples' elapsedS). */
  phaseStartedAt?: number;
  phaseDurationS?: number;
  /**
   * The newest seconds of the phase that runs now (never an earlier phase's), newest last: sent
   * by its running clients every few seconds (core/live-samples.ts) and returned by them at
   * their end.
   */
  latestSamples: Sample[];
}

export interface RunProgress {
  runId: string;
  scenario?: string;
  status: 'preparing' | 'waiting for the fleet' | 'bringing the fleet up' | 'running' | 'cleaning up' | 'finished';
  /** While waiting for the fleet: who holds it (the "fleet busy" message). */
  waitingFor?: string;
  cellIndex?: number;
  cellCount?: number;
  /** Workflow id of the running cell, for reading its live heartbeats. */
  cellWorkflowId?: string;
  cell?: CellProgress;
  cellsDone: CellResult[];
  aborted: boolean;
}

export const progressQuery = defineQuery<RunProgress | CellProgress>('progress');
/** Stops gracefully: the clients stop, no further event or cell starts, cleanup runs, results are kept. */
export const abortSignal = defineSignal<[reason?: string]>('abort');
/** A cell tells its run what it is doing, so the run's `progress` query shows it. */
export const cellProgressSignal = defineSignal<[CellProgress]>('cellProgress');
/** A running load client's latest seconds, to its cell (activities/live-samples.ts sends it). */
export const liveSamplesSignal = defineSignal<[LiveSamples]>(LIVE_SAMPLES_SIGNAL);

/** A workflow id made into a run id (a directory name): letters, digits, `.`, `-`, `_`. */
export function runIdFor(workflowId: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (safe || 'run').slice(0, 128);
}
