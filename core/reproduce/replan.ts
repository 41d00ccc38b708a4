/**
 * A cell that was not `ok` is re-planned smaller, never silently kept (issue 16, item 2). When
 * the cell's verdict puts the cause on the host or the tool, the cell runs again one step
 * smaller: first one data node fewer of a JVM database (never below the floor its reproduction
 * part states), then half the client load (threads and target, ramped clients too). At most
 * REPLAN_POLICY.maxReplans times; a cell still not `ok` after that, or with no smaller step left,
 * is "not reproducible here" with its reason. A verdict whose cause a smaller plan cannot remove
 * (no telemetry) is reported as measured. Pure: the CLI runs the attempts and the ledger keeps them.
 */
import { eventKindOf } from '../event-kinds/registry';
import { YCSB_DEFAULTS, type CellPlan, type PhaseSpec, type RunPlan, type ScenarioFile } from '../scenario';
import type { PartRef, PartReplan, ReproductionPart } from './experiment';
import { runsOf, sameCell, type CellSize, type CellVerdictKind, type Coordinates, type Ledger } from './ledger';

export const REPLAN_POLICY = {
  /** Re-plans of one cell in one repetition, after the plan as published here. */
  maxReplans: 2,
  /** Databases whose nodes are JVMs: the first thing this 2-core host runs out of room for. */
  jvmDatabases: ['cassandra'] as readonly string[],
};

/** The client load the scenario offers before any halving. */
export interface BaseLoad {
  threads: number;
  target?: number;
}

export type ReplanDecision =
  | { kind: 'keep' }
  /** Not a cause a smaller plan removes: the figure is reported flagged, as measured. */
  | { kind: 'report'; reason: string }
  | { kind: 'replan'; size: CellSize; step: string; because: string }
  | { kind: 'not-reproducible'; reason: string };

/** What each verdict says about its cause, and so which steps may help. */
const STEPS_FOR: Record<CellVerdictKind, ('nodes' | 'load')[] | string> = {
  ok: [],
  // The host starved something: fewer JVMs first, then less load.
  'host-bound': ['nodes', 'load'],
  // The emulator missed its RTTs: the tool fell behind, which fewer processes and packets relieve.
  'network-off': ['nodes', 'load'],
  // The YCSB client saturated its core: only a smaller load relieves it.
  'client-bound': ['load'],
  unjudged: 'no telemetry was recorded, so nothing vouches for the cell; a smaller plan would not judge it either',
};

export function loadAt(base: BaseLoad, halvings: number): BaseLoad {
  const f = 2 ** halvings;
  return {
    threads: Math.max(1, Math.ceil(base.threads / f)),
    ...(base.target !== undefined ? { target: Math.max(1, Math.round(base.target / f)) } : {}),
  };
}

export function baseLoad(scenario: ScenarioFile): BaseLoad {
  return {
    threads: scenario.ycsb?.threads ?? YCSB_DEFAULTS.threads,
    ...(scenario.ycsb?.target !== undefined ? { target: scenario.ycsb.target } : {}),
  };
}

const title = (database: string) => database.charAt(0).toUpperCase() + database.slice(1);

function loadText(load: BaseLoad): string {
  return `${load.threads} thread${load.threads === 1 ? '' : 's'}${load.target !== undefined ? ` at ${load.target} ops/s` : ''}`;
}

/** "3 Cassandra nodes, 4 threads at 400 ops/s". */
export function sizeText(database: string, size: CellSize, base: BaseLoad): string {
  return `${size.nodes.length} ${title(database)} node${size.nodes.length === 1 ? '' : 's'}, ${loadText(loadAt(base, size.loadHalvings))}`;
}

/** Nodes the cell's events add or remove: the experiment is about them, so they are never dropped. */
export function eventNodes(cell: CellPlan): string[] {
  return cell.phases.flatMap((p) => (p.kind === 'run' ? p.events : [])).flatMap((e) => eventKindOf(e.action).resize?.node(e.action) ?? []);
}

export interface ReplanContext {
  database: string;
  /** Absent: the node count is what the experiment measures (a layout), so only the load shrinks. */
  policy?: PartReplan;
  base: BaseLoad;
  eventNodes: string[];
}

/** The step after `size`, of the kinds `steps` allows, or why there is none. */
function nextStep(ctx: ReplanContext, size: CellSize, steps: ('nodes' | 'load')[]): { size: CellSize; step: string } | string {
  const db = title(ctx.database);
  const floor = ctx.policy?.minDataNodes;
  if (steps.includes('nodes') && floor !== undefined && REPLAN_POLICY.jvmDatabases.includes(ctx.database) && size.nodes.length > floor) {
    const drop = [...size.nodes].reverse().find((n) => !ctx.eventNodes.includes(n));
    if (drop !== undefined) {
      const nodes = size.nodes.filter((n) => n !== drop);
      return { size: { ...size, nodes }, step: `${size.nodes.length} → ${nodes.length} ${db} nodes (${drop} left out)` };
    }
  }
  if (steps.includes('load') && loadAt(ctx.base, size.loadHalvings).threads > 1) {
    const [from, to] = [loadAt(ctx.base, size.loadHalvings), loadAt(ctx.base, size.loadHalvings + 1)];
    return { size: { ...size, loadHalvings: size.loadHalvings + 1 }, step: `client load halved: ${loadText(from)} → ${loadText(to)}` };
  }
  const nodesNote =
    floor === undefined || !REPLAN_POLICY.jvmDatabases.includes(ctx.database)
      ? 'its node count is the experiment'
      : `${floor} ${db} node${floor === 1 ? '' : 's'} is the floor (${ctx.policy!.why})`;
  return `the smallest plan ran (${sizeText(ctx.database, size, ctx.base)}: ${steps.includes('nodes') ? `${nodesNote}; ` : ''}one client thread is the least load)`;
}

/** What to do with a cell that ran at `size` and was judged `verdict` (`why`: the verdict's reasons). */
export function replanDecision(
  ctx: ReplanContext,
  size: CellSize,
  verdict: CellVerdictKind,
  why: string | undefined,
  replansSoFar: number,
): ReplanDecision {
  const steps = STEPS_FOR[verdict];
  if (verdict === 'ok') return { kind: 'keep' };
  if (typeof steps === 'string') return { kind: 'report', reason: `${verdict}: ${steps}` };
  const judged = `${verdict} at ${sizeText(ctx.database, size, ctx.base)}${why ? ` (${why})` : ''}`;
  if (replansSoFar >= REPLAN_POLICY.maxReplans)
    return { kind: 'not-reproducible', reason: `still ${judged} after ${replansSoFar} re-plans (at most ${REPLAN_POLICY.maxReplans})` };
  const next = nextStep(ctx, size, steps);
  if (typeof next === 'string') return { kind: 'not-reproducible', reason: `still ${judged}; ${next}` };
  return { kind: 'replan', size: next.size, step: next.step, because: judged };
}

/** The steps a host-bound cell would go through, for `--plan`. */
export function replanLadder(ctx: ReplanContext, base: CellSize): string[] {
  const steps: string[] = [];
  let size = base;
  for (let i = 0; i < REPLAN_POLICY.maxReplans; i++) {
    const d = replanDecision(ctx, size, 'host-bound', undefined, i);
    if (d.kind !== 'replan') break;
    steps.push(d.step);
    size = d.size;
  }
  return steps;
}

/** The scenario at a size: its database nodes replaced (when they changed) and every client's load halved `loadHalvings` times. */
export function scenarioAtSize(scenario: ScenarioFile, base: CellSize, size: CellSize): ScenarioFile {
  const nodesChanged = size.nodes.join() !== base.nodes.join();
  if (nodesChanged && !Array.isArray(scenario.database?.nodes)) {
    throw new Error(`scenario ${scenario.name}: a re-plan to fewer nodes needs the nodes listed in database.nodes, not in the matrix`);
  }
  const halve = <T extends { threads?: number; target?: number }>(spec: T): T => {
    const load = loadAt(
      { threads: spec.threads ?? YCSB_DEFAULTS.threads, ...(spec.target !== undefined ? { target: spec.target } : {}) },
      size.loadHalvings,
    );
    return {
      ...spec,
      ...(spec.threads !== undefined ? { threads: load.threads } : {}),
      ...(load.target !== undefined ? { target: load.target } : {}),
    };
  };
  const phases = scenario.phases.map((phase): PhaseSpec => {
    if (phase.phase !== 'run' || size.loadHalvings === 0) return phase;
    const events = phase.events?.map((e) => {
      const clients = (e as { clientStart?: unknown }).clientStart as Parameters<typeof halve>[0] | Parameters<typeof halve>[0][] | undefined;
      if (clients === undefined) return e;
      return { ...e, clientStart: Array.isArray(clients) ? clients.map(halve) : halve(clients) };
    });
    return { ...phase, ...(phase.ycsb ? { ycsb: halve(phase.ycsb) } : {}), ...(events ? { events } : {}) } as PhaseSpec;
  });
  const ycsb = size.loadHalvings === 0 ? scenario.ycsb : { ...scenario.ycsb, ...loadAt(baseLoad(scenario), size.loadHalvings) };
  return {
    ...scenario,
    ...(nodesChanged ? { database: { ...scenario.database!, nodes: size.nodes } } : {}),
    ...(ycsb ? { ycsb } : {}),
    phases,
  };
}

/** One finished attempt at a cell. */
export interface Attempt {
  /** 1: the plan as published here; 2..: re-plans. */
  attempt: number;
  runId: string;
  size: CellSize;
  /** Absent in ledgers written before re-planning: such a cell is taken as final. */
  verdict?: CellVerdictKind;
  why?: string;
  replan?: { step: string; because: string };
}

export interface CellProgress {
  cell: Coordinates;
  /** Finished attempts, first to last. */
  attempts: Attempt[];
  /** The attempt to run now, if any. */
  next?: { attempt: number; size: CellSize; replan?: { step: string; because: string } };
  /** What the last finished attempt's verdict decided. */
  decision?: ReplanDecision;
}

/**
 * Where each planned cell of a part's repetition stands: its finished attempts (from the ledger)
 * and the attempt still due. A resume thus runs only what is due: a cell whose re-plan finished
 * is not run again, one whose re-plan was interrupted runs that re-plan, not its first plan.
 */
export function cellProgress(
  ledger: Ledger,
  at: { experiment: string; part: string; repetition: number },
  cells: { coordinates: Coordinates; base: CellSize; context: ReplanContext }[],
): CellProgress[] {
  const runs = runsOf(ledger, at.experiment, at.part, at.repetition);
  return cells.map(({ coordinates, base, context }) => {
    const byAttempt = new Map<number, Attempt>();
    for (const run of runs) {
      if (!run.finishedCells.some((c) => sameCell(c, coordinates))) continue;
      const judged = run.verdicts?.find((v) => sameCell(v.cell, coordinates));
      const attempt = run.attempt ?? 1;
      byAttempt.set(attempt, {
        attempt,
        runId: run.runId,
        size: run.size ?? base,
        ...(judged ? { verdict: judged.verdict, ...(judged.why ? { why: judged.why } : {}) } : {}),
        ...(run.replan ? { replan: run.replan } : {}),
      });
    }
    const attempts = [...byAttempt.values()].sort((a, b) => a.attempt - b.attempt);
    const last = attempts[attempts.length - 1];
    if (!last) return { cell: coordinates, attempts, next: { attempt: 1, ...startOfRepetition(ledger, at, coordinates, base, context) } };
    if (last.verdict === undefined) return { cell: coordinates, attempts };
    const decision = replanDecision(context, last.size, last.verdict, last.why, last.attempt - 1);
    if (decision.kind !== 'replan') return { cell: coordinates, attempts, decision };
    return {
      cell: coordinates,
      attempts,
      decision,
      next: { attempt: last.attempt + 1, size: decision.size, replan: { step: decision.step, because: decision.because } },
    };
  });
}

/**
 * The first of `sharing` (parts running the same scenario, core/reproduce/catalogue.ts
 * partsSharingRuns) under which every cell of this repetition is done, in a directory being
 * resumed: the same scenario is not run twice because only one of the experiments is named this
 * time (the comparison reads that one's runs).
 */
export function finishedUnderAnother(
  ledger: Ledger,
  sharing: PartRef[],
  repetition: number,
  cells: Parameters<typeof cellProgress>[2],
): PartRef | undefined {
  return sharing.find((other) => cellProgress(ledger, { ...other, repetition }, cells).every((p) => !p.next));
}

/**
 * Where a repetition's first attempt at a cell starts: where the latest earlier repetition's
 * attempts at it ended. The figures of every repetition then come from one plan (a median across
 * 2 and 1 client threads would mean nothing), and a re-plan is not paid again in each repetition.
 */
function startOfRepetition(
  ledger: Ledger,
  at: { experiment: string; part: string; repetition: number },
  coordinates: Coordinates,
  base: CellSize,
  context: ReplanContext,
): { size: CellSize; replan?: { step: string; because: string } } {
  for (let earlier = at.repetition - 1; earlier >= 1; earlier--) {
    const ran = runsOf(ledger, at.experiment, at.part, earlier).filter((r) => r.finishedCells.some((c) => sameCell(c, coordinates)));
    if (ran.length === 0) continue;
    const ended = ran.reduce((a, b) => ((b.attempt ?? 1) > (a.attempt ?? 1) ? b : a));
    const size = ended.size ?? base;
    if (size.nodes.join() === base.nodes.join() && size.loadHalvings === base.loadHalvings) return { size: base };
    return {
      size,
      replan: {
        step: `started at ${sizeText(context.database, size, context.base)}, where repetition ${earlier} ended`,
        because: 'every repetition runs the same plan',
      },
    };
  }
  return { size: base };
}

/**
 * Which plan produced a cell's figures, for the comparison: "as planned", or the re-plans with
 * why, and "not reproducible here" when the smallest plan was still not `ok`.
 */
export function planNote(progress: Pick<CellProgress, 'attempts' | 'decision'>): string {
  const replans = progress.attempts.filter((a) => a.replan).map((a) => `${a.replan!.step}, ${a.replan!.because}`);
  const head = replans.length ? `re-planned: ${replans.join('; then ')}` : 'as planned';
  const d = progress.decision;
  if (d?.kind === 'not-reproducible') return `${head}; not reproducible here: ${d.reason}`;
  if (d?.kind === 'report') return `${head}; not re-planned: ${d.reason}`;
  if (d?.kind === 'replan') return `${head}; re-plan not run yet: ${d.step}, ${d.because}`;
  return head;
}

/** Each planned cell of a part with its first size and what its re-plans may do. */
export function replanCells(part: ReproductionPart, plan: RunPlan): { coordinates: Coordinates; base: CellSize; context: ReplanContext }[] {
  const base = baseLoad(part.scenario);
  return plan.cells.map((cell) => ({
    coordinates: cell.coordinates,
    base: { nodes: cell.nodes, loadHalvings: 0 },
    context: { database: cell.database, ...(part.replan ? { policy: part.replan } : {}), base, eventNodes: eventNodes(cell) },
  }));
}
