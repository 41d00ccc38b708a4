/**
 * `fragbench reproduce --plan`: each reproduction's deviations from the published set-up, what it
 * compares and what not (with why), and its estimated duration, from the same plan `validate`
 * prints (core/plan-view.ts) for each of its parts, touching nothing. A part that runs the same
 * scenario as a part of another selected reproduction (`sameRunsAs`) is run once, under that one,
 * and costs the other nothing; `--json` prints the suite's plan for a check to read.
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
  /** Set when this invocation runs the part under another reproduction (its `sameRunsAs`, selected too). */
  runsUnder?: { experiment: string; part: string };
}

export interface PlannedReproduction {
  reproduction: Reproduction;
  parts: PlannedPart[];
  estimate: ExperimentEstimate;
}

/** `selected`: the ids this invocation runs, whose parts a `sameRunsAs` part may share. */
export async function planReproduction(
  reproduction: Reproduction,
  repeat?: number,
  selected: string[] = [reproduction.id],
): Promise<PlannedReproduction> {
  const parts: PlannedPart[] = [];
  for (const part of reproduction.parts) {
    const { plan, fleets } = await loadScenario(part.scenario, 'offline');
    const shared = part.sameRunsAs && part.sameRunsAs.experiment !== reproduction.id && selected.includes(part.sameRunsAs.experiment);
    parts.push({
      id: part.id,
      plan,
      view: planView(plan, fleets[0].view, availableParallelism()),
      ...(shared ? { runsUnder: part.sameRunsAs } : {}),
    });
  }
  return {
    reproduction,
    parts,
    estimate: estimateExperiment(
      reproduction,
      parts.filter((p) => !p.runsUnder).map((p) => p.view),
      repeat,
    ),
  };
}

/**
 * Every selected reproduction planned; one that reads another's runs takes that one's
 * repetitions, so that every repetition it compares was run.
 */
export async function planSuite(selected: readonly Reproduction[], repeat?: number): Promise<PlannedReproduction[]> {
  const ids = selected.map((r) => r.id);
  const planned: PlannedReproduction[] = [];
  for (const r of selected) planned.push(await planReproduction(r, repeat, ids));
  for (const p of planned) {
    const owner = p.parts.find((x) => x.runsUnder)?.runsUnder?.experiment;
    const ownerRepeat = planned.find((o) => o.reproduction.id === owner)?.estimate.repeat;
    if (ownerRepeat !== undefined && ownerRepeat !== p.estimate.repeat) {
      p.estimate = estimateExperiment(
        p.reproduction,
        p.parts.filter((x) => !x.runsUnder).map((x) => x.view),
        ownerRepeat,
      );
    }
  }
  return planned;
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
  const defined = reproduction.parts.find((p) => p.id === part.id)!;
  const cells = replanCells(defined, part.plan);
  const ladders = [...new Set(cells.map((c) => replanLadder(c.context, c.base).join(', then ')))];
  const floor = defined.replan;
  const steps = ladders.map((l) => l || 'no smaller plan').join(' | ');
  return `    re-plan if host-bound: ${steps}${floor ? ` (floor ${floor.minDataNodes} data node${floor.minDataNodes === 1 ? '' : 's'}: ${floor.why})` : ''}; each re-plan reruns that cell (~${minutes(runEstimateS(part.view) / Math.max(1, part.view.cells.length))})`;
}

export function formatPlannedReproduction({ reproduction: r, parts, estimate }: PlannedReproduction): string {
  const lines = [`${r.id}: ${r.title} (${r.source})`, '  deviations from the published set-up:'];
  for (const d of r.deviations) lines.push(`    - ${d.what}: published ${d.published}; ours ${d.ours} (why: ${d.why})`);
  for (const part of parts) {
    if (part.runsUnder) {
      lines.push(`  part ${part.id}: the runs of ${part.runsUnder.experiment}'s part ${part.runsUnder.part} (the same scenario), run once`);
      continue;
    }
    const cells = part.view.cells.map((c) => `${c.database} on ${c.nodes.length} node(s)`).join(', ');
    lines.push(
      `  part ${part.id}: ${part.view.fleet.name}, ${part.view.cells.length} cell(s) (${cells}), ~${minutes(runEstimateS(part.view))} per run`,
    );
    for (const [w, n] of distinctWarnings(part.view.warnings)) lines.push(`    ! ${w}${n > 1 ? ` (in ${n} phases)` : ''}`);
    lines.push(replanLine(r, part));
  }
  lines.push(`  compares ${r.compares.length}: ${r.compares.map((c) => c.id).join(', ') || 'none'}`);
  lines.push(`  not compared ${r.notCompared.length}:`);
  for (const n of r.notCompared) lines.push(`    - ${n.id}: ${n.group}: ${n.reason}`);
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

/** The plan as `reproduce --plan --json` prints it. */
export interface SuitePlanJson {
  experiments: {
    id: string;
    estimatedMinutes: number;
    repeat: number;
    compares: string[];
    notCompared: { id: string; reason: string }[];
    deviations: { what: string; published: string; ours: string; why: string }[];
    /** Parts whose runs are another experiment's, when that one is planned too. */
    sharesRunsWith: { part: string; experiment: string }[];
  }[];
  totalMinutes: number;
}

const tenths = (s: number) => Math.round(s / 6) / 10;

export function suitePlanJson(planned: PlannedReproduction[]): SuitePlanJson {
  return {
    experiments: planned.map(({ reproduction: r, parts, estimate }) => ({
      id: r.id,
      estimatedMinutes: tenths(estimate.totalS),
      repeat: estimate.repeat,
      compares: r.compares.map((c) => c.id),
      notCompared: r.notCompared.map((n) => ({ id: n.id, reason: `${n.group}: ${n.reason}` })),
      deviations: r.deviations.map(({ what, published, ours, why }) => ({ what, published, ours, why })),
      sharesRunsWith: parts.flatMap((p) => (p.runsUnder ? [{ part: p.id, experiment: p.runsUnder.experiment }] : [])),
    })),
    totalMinutes: tenths(planned.reduce((s, p) => s + p.estimate.totalS, 0)),
  };
}
