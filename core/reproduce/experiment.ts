/**
 * A reproduction: one published experiment (SPEC.md §4) on this 2-core host, as data. It is run
 * as ordinary scenarios (its parts), each through the same workflow as `fragbench run`, once per
 * repetition. Beside it: each deviation from the published set-up with why (a CPU-bound host makes
 * every database look latency-insensitive), and for every published figure and claim of its entry
 * in published-results.json either the rule it is compared by or why it is not.
 */
import type { PhaseSpec, ScenarioFile, YcsbSpec } from '../scenario';
import type { Figure } from './figures';
import type { Target } from './published';
import type { Observed } from './rules';
import type { Workload } from '../ycsb';

/** One way the set-up here differs from the published one: none may remove the phenomenon the figure is about. */
export interface Deviation {
  what: string;
  published: string;
  ours: string;
  why: string;
}

/** How far a part's cells may shrink: what the experiment still needs to mean what it says. */
export interface PartReplan {
  /** The fewest data nodes a re-plan may leave; the part's nodes must be the scenario's own list. */
  minDataNodes: number;
  /** Why no fewer: shown with the plan. */
  why: string;
}

/** A part of a reproduction, named as the ledger names it. */
export interface PartRef {
  experiment: string;
  part: string;
}

/** One scenario of a reproduction; a reproduction may need several (a fleet per region, a latency per database). */
export interface ReproductionPart {
  /** Unique in the reproduction, a path segment: `redis`, `sydney`. */
  id: string;
  scenario: ScenarioFile;
  /**
   * How few data nodes a cell that is not `ok` may be re-planned to (core/reproduce/replan.ts).
   * Absent: the node count is what the experiment measures (a layout), or the database is not a
   * JVM one; only the client load is then made smaller.
   */
  replan?: PartReplan;
  /**
   * The part of another reproduction that runs the same scenario (apart from its name): when both
   * are in one `reproduce` invocation the runs are made once, under that reproduction, and read
   * by both. A unit test holds the two scenarios equal.
   */
  sameRunsAs?: PartRef;
}

/** Why a published figure or claim is not compared here: the group its count falls in, and the reason. */
export type NotComparedGroup =
  | 'database not runnable here'
  | 'absolute value on other hardware'
  | 'set-up not emulated here'
  | 'not run here (time budget)'
  | 'ambiguous in the paper'
  | 'not a measured result'
  | 'judged under another id';

export interface NotCompared {
  id: string;
  group: NotComparedGroup;
  reason: string;
}

/** A published figure or claim compared with ours by a stated rule (core/reproduce/rules.ts). */
export interface ComparisonSpec {
  /** The figure's or claim's id in published-results.json. */
  id: string;
  /** What of ours is set against it, in words. */
  ours: string;
  /**
   * The published value a `values` observation is judged against: by default the figure's own
   * (its value, range or bound); a computation on printed figures where the comparison needs one.
   */
  target?: () => Target;
  observe: (perRepetition: Figure[][]) => Observed;
  /** Our figures shown beside the row (a trend over node counts, a model of the round trips), not judged. */
  beside?: (perRepetition: Figure[][]) => string;
  /**
   * Why ours differs from the published figure, as runs here showed it (measured: the line beside
   * the row or docs/reproduce-results.md holds the figures) or as suspected and not yet measured.
   * Printed only when the row disagrees; a row that disagrees without it says no cause was found.
   */
  disagreement?: DisagreementCause;
}

export type DisagreementCause = { measured: string } | { suspected: string };

export interface Reproduction {
  /** What `fragbench reproduce <id>` takes; also its entry in published-results.json. */
  id: string;
  title: string;
  /** Where the published experiment is described: SPEC.md's section; the paper's is in published-results.json. */
  source: string;
  /** Each way the set-up here differs from the published one, with why. */
  deviations: Deviation[];
  /** The published figures and claims compared, each by its rule. */
  compares: ComparisonSpec[];
  /** The others, each with why not. */
  notCompared: NotCompared[];
  /** Repetitions when `--repeat` is not given, cut to what fits the budget. */
  defaultRepeat: number;
  parts: ReproductionPart[];
  /**
   * Set where the clients' targets are the load offered (an open-loop ramp, a resize's background
   * load), which the figure follows by design: a figure at its target is then the result, not a
   * ceiling reached.
   */
  targetsAreOfferedLoad?: true;
}

/** The budgets the whole suite is planned against (issue 16). */
export const BUDGET = { perExperimentS: 30 * 60, suiteS: 3 * 60 * 60 };

/** A run phase's label for one workload at one latency scale, e.g. `a-lsf0p2` (labels take no dots). */
export function epochLabel(workload: Workload, scale: number): string {
  return `${workload}-lsf${String(scale).replace('.', 'p')}`;
}

/**
 * Latency epochs inside one cell: a run phase per workload and scale, each setting its latency at
 * its start. One cluster and one load serve every epoch, where a matrix over scales would form a
 * cluster per cell (a minute per Cassandra cell). The YCSB client starts after the change (a JVM
 * takes over a second to its first operation), and the figure leaves out the first seconds anyway.
 */
export function epochPhases(
  workloads: Workload[],
  scales: number[],
  seconds: number,
  extra: Partial<Extract<PhaseSpec, { phase: 'run' }>> = {},
): PhaseSpec[] {
  return workloads.flatMap((workload) =>
    scales.map((scale): PhaseSpec => ({
      phase: 'run',
      label: epochLabel(workload, scale),
      duration: seconds,
      ycsb: { workload },
      events: [{ at: 0, latency: scale }],
      ...extra,
    })),
  );
}

/** A Cassandra warm-up: its JIT compilers hold a cold node back for the first minutes (bench:db). */
export function warmup(seconds: number, ycsb: YcsbSpec = {}): PhaseSpec {
  return { phase: 'run', label: 'warm-up', duration: seconds, warmup: true, ycsb };
}

/**
 * A reproduction's load: set-up, not measured, so it runs 16 threads, that a WAN's round trips do
 * not stretch it into minutes (1,000 Cassandra records over 229.5 ms links took 122 s and 186 s
 * with a run's 2 threads), under a ceiling of 2,000 records a second, that a LAN load does not pin
 * the host the next phase is judged on.
 */
export const LOAD_PHASE: PhaseSpec = { phase: 'load', ycsb: { threads: 16, target: 2000 } };

/** YCSB settings every reproduction shares: the fragmented work's record shape, short timeouts, one retry. */
export const REPRODUCTION_YCSB: YcsbSpec = { fieldCount: 10, fieldLength: 100, timeoutMs: 10_000, retries: 1 };
/** The hybrid works' record shape: 10 fields of 8 bytes. */
export const HYBRID_YCSB: YcsbSpec = { fieldCount: 10, fieldLength: 8, timeoutMs: 10_000, retries: 1 };
