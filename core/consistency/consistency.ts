/**
 * What a consistency check found, as recorded per phase and summed per cell, and the verdict
 * on it. The check (register-check.ts) is a per-key register check, not a linearizability
 * check: each field of each key is a register, judged on its own against the writes the
 * history shows. Pure: the workflows, the results service and the report share it.
 */
import type { YcsbSettings } from '../ycsb';

/** What checking a run phase takes (the checkConsistency activity's input besides the fleet). */
export interface PhaseCheckInput {
  runId: string;
  cellId: string;
  /** The run phase first, then its ramped clients' phases: their histories are checked as one. */
  phaseIndexes: number[];
  /** Host-clock origin of the run phase: the per-second counts are on its axis. */
  originMs: number;
  settings: YcsbSettings;
}

export const CHECK_MODEL =
  'per-key register check (each field of each key on its own), not linearizability: no order across keys or fields is checked';

/** What the check cannot see; recorded with every result and printed beside it. */
export const CANNOT_SEE: readonly string[] = [
  'a write that failed or timed out but was applied is neither acknowledged nor lost: its value, when read, is neither stale nor corrupt',
  'writes to one key whose times overlap are in no known order: a read or a final value from either counts as current',
  'values written before the history began (the load phase, an earlier phase) are all one initial value, older than every write of the history: a read of one is stale only once a write of the history was acknowledged before the read began',
  'scans and deletes are not recorded (scan rows carry no key; the core workloads delete nothing)',
  'a write acknowledged and then overwritten before the final read-back is not lost even if the overwrite was lost in turn: only the last acknowledged writes of each register can be found lost',
  'the final read-back sees the cluster as the phase left it (a partition not healed makes its reads fail: those registers are unverified, not lost)',
];

export type ConsistencyVerdict = 'no anomaly seen' | 'stale reads' | 'lost acknowledged writes' | 'corrupt reads';

/** Least serious first. */
export const CONSISTENCY_SEVERITY: readonly ConsistencyVerdict[] = ['no anomaly seen', 'stale reads', 'lost acknowledged writes', 'corrupt reads'];

export interface ConsistencyCounts {
  /** Reads that returned an answer. */
  reads: number;
  /** Acknowledged writes. */
  writes: number;
  /** Reads that returned a value older than a write acknowledged before the read began. */
  stale: number;
  /** Reads of a value no write wrote (to that key and field). */
  corrupt: number;
  /** Acknowledged writes whose value the final read-back found neither present nor overwritten by a later write. */
  lost: number;
  /** Failed reads and writes, by cause (`timeout`, `unavailable`, `CLUSTERDOWN`...). */
  failed: Record<string, number>;
  /**
   * Reads whose value could not be judged: written by a client of this phase whose history is
   * missing, or read by an operation that outlasted the longest one expected.
   */
  unjudged: number;
}

/** Per second of the phase (the samples' axis): what happened in it. Lost writes count in the second they were acknowledged. */
export interface ConsistencySecond extends ConsistencyCounts {
  elapsedS: number;
  /** Epoch ms at the end of the second. */
  time: number;
}

/** One write, as an example shows it. */
export interface WriteRef {
  id: string;
  startMs: number;
  /** When it was acknowledged; null when it failed or timed out (it may still have been applied). */
  endMs: number | null;
}

export interface ConsistencyExample {
  kind: 'stale' | 'corrupt' | 'lost';
  key: string;
  field: string;
  /** The write the read should have seen (stale), or the write found lost. */
  expected?: WriteRef;
  /** What was read: a write's id, `initial value` (before the history, or absent), or the corrupt text. */
  got: string;
  gotWrite?: WriteRef;
  /** The read that saw it (for a lost write: the final read-back's). */
  read?: { startMs: number; endMs: number };
  /** Why a value is corrupt. */
  why?: string;
}

export interface ReadBackOutcome {
  /** Keys asked for, and how many reads of them failed. */
  keys: number;
  failed: number;
  /** Registers with an acknowledged write. */
  registers: number;
  /** Of those, registers whose final value was never read (a failed read, or a key the read-back never reached). */
  unverified: number;
}

export interface HistoryOutcome {
  /** Client processes of the phase, and those whose history was not found. */
  clients: number;
  missing: string[];
  records: number;
  /** Lines that were not records (a client killed mid-line leaves one). */
  unparsable: number;
}

export interface PhaseConsistency {
  model: string;
  cannotSee: readonly string[];
  verdict: ConsistencyVerdict;
  totals: ConsistencyCounts;
  readBack: ReadBackOutcome;
  history: HistoryOutcome;
  /** The first examples of each kind, in the order found. */
  examples: ConsistencyExample[];
  /** Per second; kept in the phase's `consistency` stream until the cell is recorded. */
  seconds: ConsistencySecond[];
}

export interface CellConsistency {
  verdict: ConsistencyVerdict;
  totals: ConsistencyCounts;
  readBack: ReadBackOutcome;
  /** The phases checked. */
  phases: string[];
  examples: ConsistencyExample[];
}

/** Examples kept per kind and phase. */
export const EXAMPLES_PER_KIND = 5;

export function emptyCounts(): ConsistencyCounts {
  return { reads: 0, writes: 0, stale: 0, corrupt: 0, lost: 0, failed: {}, unjudged: 0 };
}

export function addCounts(into: ConsistencyCounts, more: ConsistencyCounts): ConsistencyCounts {
  into.reads += more.reads;
  into.writes += more.writes;
  into.stale += more.stale;
  into.corrupt += more.corrupt;
  into.lost += more.lost;
  into.unjudged += more.unjudged;
  for (const [cause, n] of Object.entries(more.failed)) into.failed[cause] = (into.failed[cause] ?? 0) + n;
  return into;
}

export const failedTotal = (counts: Pick<ConsistencyCounts, 'failed'>): number => Object.values(counts.failed).reduce((a, b) => a + b, 0);

/** The worst anomaly found: corrupt reads, then lost acknowledged writes, then stale reads. */
export function consistencyVerdict(counts: Pick<ConsistencyCounts, 'stale' | 'corrupt' | 'lost'>): ConsistencyVerdict {
  if (counts.corrupt > 0) return 'corrupt reads';
  if (counts.lost > 0) return 'lost acknowledged writes';
  if (counts.stale > 0) return 'stale reads';
  return 'no anomaly seen';
}

/** A cell's consistency over its checked phases (measured phases only: the caller leaves warm-ups out). */
export function cellConsistency(phases: { name: string; consistency?: PhaseConsistency }[]): CellConsistency | undefined {
  const checked = phases.filter((p): p is { name: string; consistency: PhaseConsistency } => p.consistency !== undefined);
  if (checked.length === 0) return undefined;
  const totals = emptyCounts();
  const readBack: ReadBackOutcome = { keys: 0, failed: 0, registers: 0, unverified: 0 };
  for (const { consistency } of checked) {
    addCounts(totals, consistency.totals);
    readBack.keys += consistency.readBack.keys;
    readBack.failed += consistency.readBack.failed;
    readBack.registers += consistency.readBack.registers;
    readBack.unverified += consistency.readBack.unverified;
  }
  return {
    verdict: consistencyVerdict(totals),
    totals,
    readBack,
    phases: checked.map((p) => p.name),
    examples: checked.flatMap((p) => p.consistency.examples),
  };
}

/**
 * The cell's consistency totals as a comparison wants them, or undefined for a cell that was not
 * checked: a plain function of the cell record (anything with the cell summary's shape).
 */
export function consistencyTotals(cell: { summary: { consistency?: CellConsistency } }):
  | (Pick<ConsistencyCounts, 'reads' | 'writes' | 'stale' | 'corrupt' | 'lost'> & {
      verdict: ConsistencyVerdict;
      failed: number;
      timeouts: number;
      unverified: number;
    })
  | undefined {
  const c = cell.summary.consistency;
  if (!c) return undefined;
  const { reads, writes, stale, corrupt, lost } = c.totals;
  return {
    verdict: c.verdict,
    reads,
    writes,
    stale,
    corrupt,
    lost,
    failed: failedTotal(c.totals),
    timeouts: c.totals.failed.timeout ?? 0,
    unverified: c.readBack.unverified,
  };
}
