/**
 * A reproduction: one published experiment (SPEC.md §4) scaled to fit this 2-core host, as data.
 * It is run as ordinary scenarios (its parts), each through the same workflow as `fragbench run`,
 * once per repetition. The scaling is stated beside it, with why that scale keeps the host out of
 * the way: a CPU-bound host makes every database look latency-insensitive.
 */
import type { PhaseSpec, ScenarioFile, YcsbSpec } from '../scenario';
import type { Workload } from '../ycsb';

/** How an experiment was scaled down from the published set-up, and why. */
export interface Scaling {
  sites: string;
  records: string;
  durations: string;
  threads: string;
  /** Why this scale measures the database rather than the host. */
  why: string;
}

/** How far a part's cells may shrink: what the experiment still needs to mean what it says. */
export interface PartReplan {
  /** The fewest data nodes a re-plan may leave; the part's nodes must be the scenario's own list. */
  minDataNodes: number;
  /** Why no fewer: shown with the plan. */
  why: string;
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
}

export interface Reproduction {
  /** What `fragbench reproduce <id>` takes. */
  id: string;
  title: string;
  /** Where the published experiment is described. */
  source: string;
  /** The published experiment's set-up, in a sentence, beside which the scaling is read. */
  publishedSetup: string;
  scaling: Scaling;
  /** Parts of the published experiment this host cannot run, each with why. */
  notRunHere: string[];
  /** Repetitions when `--repeat` is not given: 3 where the time budget allows. */
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
