/**
 * How long a reproduction takes here: plan-view's lower bound for each run (cluster formation,
 * loads, phases) plus what it leaves out, measured on this host, times the repetitions.
 */
import type { PlanView } from '../plan-view';
import { BUDGET, type Reproduction } from './experiment';

/**
 * Per run: starting the workflow, validating against the running fleet, recording, writing the
 * report and taking the fleet down (~25 s). Per run phase: a YCSB JVM to its first operation
 * (~3 s). Per cell: network reset and cluster stop (~8 s).
 */
export const OVERHEAD_S = { run: 25, runPhase: 3, cell: 8 };

export function runEstimateS(view: PlanView): number {
  const runPhases = view.cells.reduce((n, c) => n + c.phases.filter((p) => p.kind === 'run').length, 0);
  return Math.round(view.expectedDurationS + OVERHEAD_S.run + runPhases * OVERHEAD_S.runPhase + view.cells.length * OVERHEAD_S.cell);
}

export interface ExperimentEstimate {
  id: string;
  /** One repetition: every part once. */
  perRepetitionS: number;
  repeat: number;
  totalS: number;
  /** Set when the total exceeds the per-experiment budget. */
  overBudget?: string;
}

/**
 * Repetitions: the asked number, or the reproduction's default cut to what fits the budget (at
 * least one).
 */
export function estimateExperiment(reproduction: Reproduction, partViews: PlanView[], asked?: number): ExperimentEstimate {
  const perRepetitionS = partViews.reduce((s, v) => s + runEstimateS(v), 0);
  const fits = Math.max(1, Math.floor(BUDGET.perExperimentS / perRepetitionS));
  const repeat = asked ?? Math.min(reproduction.defaultRepeat, fits);
  const totalS = perRepetitionS * repeat;
  const estimate: ExperimentEstimate = { id: reproduction.id, perRepetitionS, repeat, totalS };
  if (totalS > BUDGET.perExperimentS) estimate.overBudget = `${minutes(totalS)} is over the ${minutes(BUDGET.perExperimentS)} budget per experiment`;
  return estimate;
}

export function minutes(s: number): string {
  return `${(s / 60).toFixed(1)} min`;
}
