/**
 * How every benchmark judges its targets: one line per target,
 * `target <name>: <measured> against <target>: met|MISSED`, then `targets: N met, M missed` as the
 * benchmark's last line, and a non-zero exit when any was missed.
 *
 * Targets of correctness (accuracy, verdicts that must or must not fire, nothing lost) are judged in
 * every mode; a looser bound in `--short` is given with its reason and printed. Targets of this
 * machine's speed (CPU per operation, formation times) are judged in full mode only: in `--short`
 * they print `(speed: not judged in short mode)`, so CI does not depend on the machine's speed
 * while the figure stays visible.
 */
import { SHORT } from './args';

export type TargetKind = 'correctness' | 'speed';

export interface TargetOptions {
  /** `speed` targets are printed but not judged in `--short` (default: correctness). */
  kind?: TargetKind;
  /** Printed after the verdict: why a short-mode bound is looser, what the figure counts. */
  note?: string;
  /** Printed after the verdict only on a miss: the evidence that says why (which items, by how much), for CI's summary. */
  onMiss?: string;
}

export interface Judgement {
  name: string;
  measured: string;
  against: string;
  met: boolean | 'not judged';
}

const fmt = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : String(value));

export class Targets {
  private readonly judged: Judgement[] = [];

  constructor(
    private readonly print: (line: string) => void = (line) => console.log(line),
    private readonly short = SHORT,
  ) {}

  /** Judges one target whose outcome the caller computed; `measured` and `against` are shown as given. */
  judge(name: string, measured: string, against: string, met: boolean, options: TargetOptions = {}): boolean {
    const notJudged = options.kind === 'speed' && this.short;
    const judgement: Judgement = { name, measured, against, met: notJudged ? 'not judged' : met };
    this.judged.push(judgement);
    const verdict = notJudged ? '(speed: not judged in short mode)' : met ? 'met' : 'MISSED';
    const notes = [options.note, !met && !notJudged ? options.onMiss : undefined].filter(Boolean);
    this.print(`target ${name}: ${measured} against ${against}: ${verdict}${notes.map((n) => ` (${n})`).join('')}`);
    return notJudged || met;
  }

  /** `measured <= bound` (a value that is not a number misses). */
  atMost(name: string, measured: number, bound: number, unit = '', options: TargetOptions & { digits?: number } = {}): boolean {
    const d = options.digits ?? 2;
    return this.judge(name, `${fmt(measured, d)}${unit}`, `<= ${fmt(bound, d)}${unit}`, measured <= bound, options);
  }

  /** `measured >= bound` (a value that is not a number misses). */
  atLeast(name: string, measured: number, bound: number, unit = '', options: TargetOptions & { digits?: number } = {}): boolean {
    const d = options.digits ?? 2;
    return this.judge(name, `${fmt(measured, d)}${unit}`, `>= ${fmt(bound, d)}${unit}`, measured >= bound, options);
  }

  /** `measured < bound`. */
  below(name: string, measured: number, bound: number, unit = '', options: TargetOptions & { digits?: number } = {}): boolean {
    const d = options.digits ?? 2;
    return this.judge(name, `${fmt(measured, d)}${unit}`, `< ${fmt(bound, d)}${unit}`, measured < bound, options);
  }

  /** A count of passing items out of all, judged against the count that must pass (all, by default). */
  count(name: string, passing: number, total: number, needed = total, options: TargetOptions = {}): boolean {
    const against = needed === total ? `${total}/${total}` : `>= ${needed}/${total}`;
    return this.judge(name, `${passing}/${total}`, against, total > 0 && passing >= needed, options);
  }

  /** Something that must hold (a verdict that must fire, nothing lost): shown as what was seen. */
  holds(name: string, seen: string, expected: string, met: boolean, options: TargetOptions = {}): boolean {
    return this.judge(name, seen, expected, met, options);
  }

  get missed(): Judgement[] {
    return this.judged.filter((j) => j.met === false);
  }

  /** Prints `targets: N met, M missed` (and how many were not judged), and sets a failing exit code on a miss. */
  finish(): number {
    const met = this.judged.filter((j) => j.met === true).length;
    const notJudged = this.judged.length - met - this.missed.length;
    this.print(`targets: ${met} met, ${this.missed.length} missed${notJudged > 0 ? ` (${notJudged} speed targets not judged in short mode)` : ''}`);
    if (this.missed.length > 0 || this.judged.length === 0) process.exitCode = 1;
    return this.missed.length;
  }
}

/**
 * Runs a benchmark's `main`, then judges its targets (`targets.finish()` prints the last line); an
 * error fails the benchmark with its name and stack. Every benchmark ends with this call.
 */
export function runBenchmark(name: string, main: () => Promise<void>, targets?: Targets): void {
  main().then(
    () => targets?.finish(),
    (err: unknown) => {
      console.error(`bench:${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      // At once: a fleet's child processes or a Temporal connection must not keep a failed benchmark alive.
      process.exit(1);
    },
  );
}
