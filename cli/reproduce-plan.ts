/**
 * `fragbench reproduce --plan`: each reproduction's scale and estimated duration, from the same
 * plan `validate` prints (core/plan-view.ts) for each of its parts, touching nothing.
 */
import { availableParallelism } from 'node:os';
import { loadScenario } from '../operations/scenario/scenario-loader';
import { planView, type PlanView } from '../core/plan-view';
import type { RunPlan } from '../core/scenario';
import { estimateExperiment, minutes, runEstimateS, type ExperimentEstimate } from '../core/reproduce/estimate';
import { BUDGET, type Reproduction } from '../core/reproduce/experiment';
import { REPLAN_NOTE } from '../core/reproduce/comparison-text';
import { replanCells, replanLadder } from '../core/reproduce/replan';

export interface PlannedPart {
  id: string;
  plan: RunPlan;
  view: PlanView;
}

export interface PlannedReproduction {
  reproduction: Reproduction;
  parts: PlannedPart[];
  estimate: ExperimentEstimate;
}

export async function planReproduction(reproduction: Reproduction, repeat?: number): Promise<PlannedReproduction> {
  const parts: PlannedPart[] = [];
  for (const part of reproduction.parts) {
    const { plan, fleets } = await loadScenario(part.scenario, 'offline');
    parts.push({ id: part.id, plan, view: planView(plan, fleets[0].view, availableParallelism()) });
  }
  return {
    reproduction,
    parts,
    estimate: estimateExperiment(
      reproduction,
      parts.map((p) => p.view),
      repeat,
    ),
  };
}

/** plan-view says a warning per cell and phase; here each is said once with how often it applies. */
function distinctWarnings(warnings: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of warnings) {
    const message = w.replace(/^\S+ [^:]+: /, '');
    counts.set(message, (counts.get(message) ?? 0) + 1);
  }
  return counts;
}

/** The steps a host-bound cell of the part would be re-planned through, each distinct ladder once. */
function replanLine(reproduction: Reproduction, part: PlannedPart): string {
  const cells = replanCells(
    reproduction.parts.find((p) => p.id === part.id)!,
    part.plan,
  );
  const ladders = [...new Set(cells.map((c) => replanLadder(c.context, c.base).join(', then ')))];
  const floor = reproduction.parts.find((p) => p.id === part.id)!.replan;
  const steps = ladders.map((l) => l || 'no smaller plan').join(' | ');
  return `    re-plan if host-bound: ${steps}${floor ? ` (floor ${floor.minDataNodes} data node${floor.minDataNodes === 1 ? '' : 's'}: ${floor.why})` : ''}; each re-plan reruns that cell (~${minutes(runEstimateS(part.view) / Math.max(1, part.view.cells.length))})`;
}

export function formatPlannedReproduction({ reproduction: r, parts, estimate }: PlannedReproduction): string {
  const lines = [
    `${r.id}: ${r.title} (${r.source})`,
    `  scale: sites ${r.scaling.sites}`,
    `         records ${r.scaling.records}`,
    `         durations ${r.scaling.durations}`,
    `         threads ${r.scaling.threads}`,
    `  why this scale: ${r.scaling.why}`,
  ];
  for (const part of parts) {
    const cells = part.view.cells.map((c) => `${c.database} on ${c.nodes.length} node(s)`).join(', ');
    lines.push(
      `  part ${part.id}: ${part.view.fleet.name}, ${part.view.cells.length} cell(s) (${cells}), ~${minutes(runEstimateS(part.view))} per run`,
    );
    for (const [w, n] of distinctWarnings(part.view.warnings)) lines.push(`    ! ${w}${n > 1 ? ` (in ${n} phases)` : ''}`);
    lines.push(replanLine(r, part));
  }
  for (const n of r.notRunHere) lines.push(`  not run here: ${n}`);
  lines.push(
    `  estimate: ${minutes(estimate.perRepetitionS)} per repetition x ${estimate.repeat} = ${minutes(estimate.totalS)}${estimate.overBudget ? ` (! ${estimate.overBudget})` : ''}`,
  );
  return lines.join('\n');
}

/** Every reproduction's plan, then the suite's total against its budget. */
export function formatSuitePlan(planned: PlannedReproduction[]): string {
  const total = planned.reduce((s, p) => s + p.estimate.totalS, 0);
  const blocks = [...planned.map(formatPlannedReproduction), `re-plan policy: ${REPLAN_NOTE}`];
  if (planned.length > 1) {
    blocks.push(`all ${planned.length} reproductions: ~${minutes(total)} (budget ${minutes(BUDGET.suiteS)}${total > BUDGET.suiteS ? ': OVER' : ''})`);
  }
  return blocks.join('\n\n');
}
