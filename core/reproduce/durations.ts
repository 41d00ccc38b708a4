/**
 * How long each experiment really took, from the ledgers of reproduce directories: for each
 * experiment, its newest complete run (every part of every repetition it asked for completed),
 * timed as the time its runs were running in that directory, re-plans and interrupted runs
 * included: the union of the runs' spans, so that the hours between an interrupted invocation and
 * its `--resume`, when nothing of it ran, are not counted.
 * This is the figure the 30-minute and 3-hour budgets are judged on (`fragbench reproduce
 * --durations`). Pure: the CLI reads the files and plans the estimates.
 */
import { BUDGET } from './experiment';
import { minutes } from './estimate';
import type { PartRef } from './experiment';
import type { Ledger } from './ledger';

export interface LedgerIn {
  /** The reproduce directory (its name is shown). */
  directory: string;
  ledger: Ledger;
}

/** An experiment's part, and the parts of other experiments that run the same scenario (their runs complete it too). */
export interface DurationPart {
  id: string;
  sameRunsAs?: PartRef[];
}

export interface ExperimentDuration {
  experiment: string;
  directory: string;
  repeat: number;
  startedAt: number;
  finishedAt: number;
  /** While its runs ran: less than finishedAt - startedAt when an invocation was interrupted and resumed later. */
  realS: number;
  /** Runs beyond one per part and repetition: the re-plans of cells that were not `ok`. */
  replans: number;
  /** Every part of every repetition has a completed run; an incomplete one is shown only when no complete one exists. */
  complete: boolean;
}

/** Seconds covered by the spans [start, end] together (overlaps counted once). */
function coveredS(spans: [number, number][]): number {
  let total = 0;
  let reached = -Infinity;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (end <= reached) continue;
    total += end - Math.max(start, reached);
    reached = end;
  }
  return total / 1000;
}

function durationIn(directory: string, ledger: Ledger, experiment: string, parts: DurationPart[]): ExperimentDuration | undefined {
  const runs = ledger.runs.filter((r) => r.experiment === experiment);
  const repeat = ledger.repeat[experiment] ?? (runs.length > 0 ? Math.max(...runs.map((r) => r.repetition)) : 0);
  // A shared part runs once, under whichever experiment ran first (a resume reuses it): its time
  // is counted there, and it completes both.
  const completedRuns = (part: DurationPart, repetition: number) =>
    [{ experiment, part: part.id }, ...(part.sameRunsAs ?? [])].flatMap((ref) =>
      ledger.runs.filter((r) => r.experiment === ref.experiment && r.part === ref.part && r.repetition === repetition && r.status === 'completed'),
    );
  const repetitions = Array.from({ length: repeat }, (_, i) => i + 1);
  const complete = repeat > 0 && repetitions.every((rep) => parts.every((part) => completedRuns(part, rep).length > 0));
  // An experiment whose every part ran under another (traffic reads latency's runs) took no time of its own.
  const spanned = runs.length > 0 ? runs : complete ? repetitions.flatMap((rep) => parts.flatMap((part) => completedRuns(part, rep))) : [];
  if (spanned.length === 0) return undefined;
  return {
    experiment,
    directory,
    repeat,
    startedAt: Math.min(...spanned.map((r) => r.startedAt)),
    finishedAt: Math.max(...spanned.map((r) => r.finishedAt ?? r.startedAt)),
    realS: coveredS(runs.map((r) => [r.startedAt, r.finishedAt ?? r.startedAt])),
    replans: runs.filter((r) => (r.attempt ?? 1) > 1).length,
    complete,
  };
}

/** Per experiment (catalogue order): its newest complete run across the ledgers, else its newest incomplete one, else none. */
export function experimentDurations(
  ledgers: LedgerIn[],
  experiments: { id: string; parts: DurationPart[] }[],
): Map<string, ExperimentDuration | undefined> {
  const newest = (a: ExperimentDuration | undefined, b: ExperimentDuration | undefined) => {
    if (!a || !b) return a ?? b;
    if (a.complete !== b.complete) return a.complete ? a : b;
    return a.finishedAt >= b.finishedAt ? a : b;
  };
  return new Map(
    experiments.map(({ id, parts }) => [
      id,
      ledgers.map(({ directory, ledger }) => durationIn(directory, ledger, id, parts)).reduce(newest, undefined),
    ]),
  );
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * A table of real against planned minutes per experiment and the suite's sum, each against its
 * budget; experiments with no complete run say so, and the sum then covers only those that have one.
 */
export function formatDurations(durations: Map<string, ExperimentDuration | undefined>, plannedS: Map<string, number>): string {
  const rows = [['experiment', 'planned', 'real', 'repeat', 're-plans', 'ran (UTC)', 'directory']];
  const notes: string[] = [];
  let suiteS = 0;
  let suitePlannedS = 0;
  let counted = 0;
  for (const [id, d] of durations) {
    const planned = plannedS.get(id);
    if (!d) {
      rows.push([id, planned === undefined ? '-' : minutes(planned), 'not run', '', '', '', '']);
      continue;
    }
    const over = d.realS > BUDGET.perExperimentS ? ` (over ${minutes(BUDGET.perExperimentS)})` : '';
    rows.push([
      id,
      planned === undefined ? '-' : minutes(planned),
      `${minutes(d.realS)}${over}${d.complete ? '' : ' (incomplete)'}`,
      String(d.repeat),
      String(d.replans),
      `${day(d.startedAt)} to ${day(d.finishedAt).slice(11)}`,
      d.directory,
    ]);
    if (d.complete) {
      suiteS += d.realS;
      suitePlannedS += planned ?? 0;
      counted++;
    } else notes.push(`${id}: its newest run did not complete every part of every repetition; not in the sum`);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const table = rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd(),
  );
  const missing = durations.size - counted;
  const scope = missing === 0 ? 'every experiment' : `${counted} of ${durations.size} experiments (the others have no complete run here)`;
  const over = suiteS > BUDGET.suiteS ? `: OVER the ${minutes(BUDGET.suiteS)} budget` : ` (budget ${minutes(BUDGET.suiteS)})`;
  return [...table, '', `suite, ${scope}: ${minutes(suiteS)} real against ${minutes(suitePlannedS)} planned${over}`, ...notes].join('\n');
}
