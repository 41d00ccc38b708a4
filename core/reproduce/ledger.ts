/**
 * Resume bookkeeping for `fragbench reproduce`: what ran, kept in the reproduce directory
 * (`ledger.json`) after every run, so that `--resume <dir>` redoes only what did not finish. A
 * run is one part of one experiment in one repetition (or one re-planned cell of it); a cell is
 * finished when its record holds every phase its plan has (a cancelled or failed cell stops
 * short). Which cells are still due, re-plans included, is core/reproduce/replan.ts's
 * cellProgress. Pure: the CLI reads and writes the file.
 */
import type { ScenarioFile } from '../scenario';
import type { Verdict } from '../verdict';

export type Coordinates = Record<string, string | number>;

/** A cell's verdict as the ledger keeps it: `unjudged` when its record holds none (no telemetry). */
export type CellVerdictKind = Verdict | 'unjudged';

/** What a cell ran at: its data nodes and how many times its client load was halved (core/reproduce/replan.ts). */
export interface CellSize {
  nodes: string[];
  loadHalvings: number;
}

export interface LedgerRun {
  experiment: string;
  part: string;
  /** 1-based. */
  repetition: number;
  runId: string;
  status: 'started' | 'completed' | 'aborted' | 'failed' | 'cancelled';
  /** Cells of this run that finished (coordinates), filled in when the run ends. */
  finishedCells: Coordinates[];
  startedAt: number;
  finishedAt?: number;
  /** 1 (or absent): the plan as published here; 2..: a re-plan of one cell (core/reproduce/replan.ts). */
  attempt?: number;
  /** What a re-plan ran at; absent for the plan as published here. */
  size?: CellSize;
  /** Why this run is a re-plan: its step and the verdict that asked for it. */
  replan?: { step: string; because: string };
  /** The verdict of each finished cell, which decides whether it is re-planned. */
  verdicts?: { cell: Coordinates; verdict: CellVerdictKind; why?: string }[];
}

export interface Ledger {
  createdAt: number;
  /** Repetitions asked per experiment; a resume keeps them unless told otherwise. */
  repeat: Record<string, number>;
  runs: LedgerRun[];
}

export function emptyLedger(now: number): Ledger {
  return { createdAt: now, repeat: {}, runs: [] };
}

export const sameCell = (a: Coordinates, b: Coordinates) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** The runs of one part in one repetition, oldest first. */
export function runsOf(ledger: Ledger, experiment: string, part: string, repetition: number): LedgerRun[] {
  return ledger.runs.filter((r) => r.experiment === experiment && r.part === part && r.repetition === repetition);
}

/** Records a run (replacing an earlier entry of the same run id) and returns the new ledger. */
export function withRun(ledger: Ledger, run: LedgerRun): Ledger {
  return { ...ledger, runs: [...ledger.runs.filter((r) => r.runId !== run.runId), run] };
}

/** Whether a cell record ran every phase its plan has (ramped clients' extra records not counted). */
export function cellFinished(recordedPhaseNames: string[], plannedPhases: number): boolean {
  return recordedPhaseNames.filter((name) => !name.includes(':')).length >= plannedPhases;
}

/**
 * The scenario cut down to one cell of its matrix: every dimension keeps only that cell's value.
 * Its `reference` goes (its value may be gone); the comparison normalizes on its own.
 */
export function restrictToCell(scenario: ScenarioFile, cell: Coordinates): ScenarioFile {
  const matrix = Object.fromEntries(
    Object.entries(scenario.matrix ?? {}).map(([dimension, values]) => [
      dimension,
      values.filter((v) => (typeof v === 'object' ? v.name : v) === cell[dimension]),
    ]),
  );
  const { reference: _dropped, ...rest } = scenario;
  return { ...rest, matrix };
}
