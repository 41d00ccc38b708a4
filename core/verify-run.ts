/**
 * Checks of a stored run (`fragbench results verify`): every phase's per-second samples form one
 * unbroken series (a missing second is a gap, unless the run itself recorded why: a client that
 * restarted says how long it was gone), every value is a number a second can hold, and every
 * line of a stream that is still on disk parses. Pure: the store reads, this judges.
 */
import type { RecordedEvent } from './events';
import type { Sample } from './samples';

export interface Gap {
  /** The last second present before the gap and the first after it. */
  afterS: number;
  beforeS: number;
  /** A client-restart event that accounts for it, if the run recorded one. */
  explainedBy?: string;
}

export interface PhaseCheck {
  cellId: string;
  phase: string;
  seconds: number;
  gaps: Gap[];
  /** Seconds stored more than once with different contents. */
  duplicates: number[];
  /** Seconds with a value that is not a finite number at or above zero. */
  badValues: number[];
  /** Line numbers (1-based) of stream lines that do not parse; a torn last line is one a crash left. */
  unparsableLines: { stream: string; line: number; last: boolean }[];
}

const validCount = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;

function badValue(s: Sample): boolean {
  if (!validCount(s.okPerS) || !validCount(s.failedPerS) || !validCount(s.time)) return true;
  return Object.values(s.ops).some((op) => !op || !validCount(op.ok) || !validCount(op.failed));
}

/**
 * When a client-restart says the client was gone, the seconds it covers are explained. A second
 * is placed by rounding, so the last one stored may lie up to half a second after the death.
 */
function explanation(gap: Gap, events: RecordedEvent[]): string | undefined {
  const restart = events.find((e) => {
    if (e.kind !== 'client-restart') return false;
    const last = Number(e.detail.lastStoredElapsedS);
    return Number.isFinite(last) && last <= gap.afterS + 1 && e.scheduledOffsetS >= gap.afterS - 1;
  });
  return restart ? `${restart.label} at ${restart.scheduledOffsetS.toFixed(0)} s` : undefined;
}

export function checkPhase(cellId: string, phase: string, samples: Sample[], events: RecordedEvent[] = []): PhaseCheck {
  const bySecond = new Map<number, string>();
  const duplicates: number[] = [];
  const badValues: number[] = [];
  for (const s of samples) {
    const seen = bySecond.get(s.elapsedS);
    const text = JSON.stringify(s);
    // The same second stored twice alike is a retried write; with other contents it is two runs mixed.
    if (seen !== undefined && seen !== text) duplicates.push(s.elapsedS);
    bySecond.set(s.elapsedS, text);
    if (badValue(s)) badValues.push(s.elapsedS);
  }
  const seconds = [...bySecond.keys()].sort((a, b) => a - b);
  const gaps: Gap[] = [];
  for (let i = 1; i < seconds.length; i++) {
    if (seconds[i] - seconds[i - 1] > 1) {
      const gap: Gap = { afterS: seconds[i - 1], beforeS: seconds[i] };
      gap.explainedBy = explanation(gap, events);
      gaps.push(gap);
    }
  }
  return { cellId, phase, seconds: seconds.length, gaps, duplicates: [...new Set(duplicates)], badValues, unparsableLines: [] };
}

/** Problems that make the stored run untrustworthy: unexplained gaps, mixed duplicates, bad values, corrupt lines (a torn last line is not one). */
export function problemsOf(check: PhaseCheck): string[] {
  const where = `${check.cellId} ${check.phase}`;
  return [
    ...check.gaps.filter((g) => !g.explainedBy).map((g) => `${where}: no sample from ${g.afterS + 1} s to ${g.beforeS - 1} s`),
    ...check.duplicates.map((s) => `${where}: second ${s} stored twice with different values`),
    ...check.badValues.map((s) => `${where}: second ${s} holds a value that is not a count`),
    ...check.unparsableLines.filter((l) => !l.last).map((l) => `${where}: ${l.stream} line ${l.line} does not parse`),
  ];
}
