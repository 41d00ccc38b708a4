/**
 * How a comparison reads our figures: per repetition, the `ok` figures it names, turned into
 * samples of a value or observations of whether a stated ordering held. A figure that is missing
 * or not `ok` stops that repetition's sample with the reason (a figure not `ok` is never used);
 * when no repetition gives one, the comparison is not comparable here with the first reason. An
 * ordering between figures measured with different client threads is not judged (its reason
 * says so): closed-loop throughput grows with threads.
 */
import { InputError } from '../errors';
import { notReproducible } from './aggregate';
import { OPERATIONS_MEASURED, THROUGHPUT_ERROR, type Figure } from './figures';
import { ratioNoise } from './statistics';
import type { Observation, Observed, Sample } from './rules';

/** Which figure: every field given must match (a RegExp the whole of it for cell and phase). */
export interface FigureQuery {
  database?: string;
  cell?: string | RegExp;
  phase: string | RegExp;
  measure: string;
  pair?: string;
}

/** Thrown inside a reading when a figure it needs is missing or not ok: the repetition gives nothing. */
export class NotObserved extends Error {}

/** What a model refuses in a repetition's figures (two points at one abscissa, a flat line): nothing observed there, with why. */
export function fromModel<T>(compute: () => T): T {
  try {
    return compute();
  } catch (e) {
    if (e instanceof InputError) throw new NotObserved(e.problem);
    throw e;
  }
}

const matches = (v: string, want: string | RegExp | undefined) => want === undefined || (typeof want === 'string' ? v === want : want.test(v));

const describe = (q: FigureQuery) =>
  [q.database, q.cell instanceof RegExp ? undefined : q.cell, String(q.phase), q.measure, q.pair].filter(Boolean).join(' · ');

/** The figures of one repetition a reading may ask for. */
export class RepetitionFigures {
  constructor(
    readonly figures: Figure[],
    /** `r1`, `r2`. */
    readonly label: string,
  ) {}

  /** Every figure matching, ok or not. */
  all(q: FigureQuery): Figure[] {
    return this.figures.filter(
      (f) =>
        matches(f.phase, q.phase) &&
        f.measure === q.measure &&
        matches(f.cell, q.cell) &&
        (q.database === undefined || f.database === q.database) &&
        (q.pair === undefined || f.pair === q.pair),
    );
  }

  /** The one figure matching, which must be `ok`; else the repetition gives nothing, with why. */
  figure(q: FigureQuery): Figure {
    const found = this.all(q);
    if (found.length === 0) throw new NotObserved(`not measured: ${describe(q)}`);
    const f = found[0];
    if (f.verdict !== 'ok')
      throw new NotObserved(`${describe(q)}: ${notReproducible([{ repetition: 0, verdict: f.verdict, ...(f.why ? { why: f.why } : {}) }])}`);
    return f;
  }

  value(q: FigureQuery): number {
    return this.figure(q).value;
  }

  /** The figures, which must share one client thread count: an ordering across them is judged only then. */
  sameThreads(...figures: Figure[]): void {
    const counts = [...new Set(figures.map((f) => f.threads).filter((t) => t !== undefined))];
    if (counts.length > 1)
      throw new NotObserved(
        `different client threads (${figures.map((f) => `${f.database} ${f.threads ?? '?'}`).join(', ')}): an ordering is judged only between runs with the same threads`,
      );
  }
}

function readings<T>(perRepetition: Figure[][], read: (r: RepetitionFigures) => T[]): { values: T[]; whyNot: string[] } {
  const values: T[] = [];
  const whyNot: string[] = [];
  perRepetition.forEach((figures, i) => {
    try {
      values.push(...read(new RepetitionFigures(figures, `r${i + 1}`)));
    } catch (e) {
      if (!(e instanceof NotObserved)) throw e;
      whyNot.push(`r${i + 1} ${e.message}`);
    }
  });
  return { values, whyNot };
}

const missing = (whyNot: string[]): Observed => ({ kind: 'missing', why: whyNot[0] ?? 'no repetition has run' });

/** Where a throughput figure is: its database, cell and phase. */
export type ThroughputAt = Omit<FigureQuery, 'measure' | 'pair'>;

/**
 * T(a)/T(b) of one repetition as a sample that carries its own noise, from each throughput's
 * relative error and the operations it counted (figures.ts), so that a ratio over a few operations
 * is not taken for a decided one.
 */
export function throughputRatio(r: RepetitionFigures, a: ThroughputAt, b: ThroughputAt, from: string): Sample {
  const part = (at: ThroughputAt) => ({
    value: r.value({ ...at, measure: 'throughput' }),
    relativeError: r.value({ ...at, measure: THROUGHPUT_ERROR }),
    counted: r.value({ ...at, measure: OPERATIONS_MEASURED }),
  });
  const [top, bottom] = [part(a), part(b)];
  return { value: top.value / bottom.value, from, noise: ratioNoise([top, bottom]) };
}

/** One sample per repetition. */
export function valuePerRepetition(perRepetition: Figure[][], unit: string, read: (r: RepetitionFigures) => number): Observed {
  return valuesPerEvent(perRepetition, unit, (r) => [{ value: read(r), from: r.label }]);
}

/** Samples per event (each removal, each join), from every repetition. */
export function valuesPerEvent(perRepetition: Figure[][], unit: string, read: (r: RepetitionFigures) => Sample[]): Observed {
  const { values, whyNot } = readings(perRepetition, read);
  return values.length === 0 ? missing(whyNot) : { kind: 'values', samples: values, unit };
}

/** Observations per repetition or per event, from every repetition. */
export function holdsIn(perRepetition: Figure[][], read: (r: RepetitionFigures) => Observation[]): Observed {
  const { values, whyNot } = readings(perRepetition, read);
  return values.length === 0 ? missing(whyNot) : { kind: 'holds', observations: values };
}

export const fmt = (x: number) => {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(2);
};

/** `a > b` as an observation, with the two figures shown. */
export function greater(from: string, what: string, a: number, b: number): Observation {
  return { holds: a > b, from, shows: `${what}: ${fmt(a)} vs ${fmt(b)}` };
}

/** A ratio's median per repetition across several figures, for a line beside a row. */
export function besideLine(
  perRepetition: Figure[][],
  items: { label: string; read: (r: RepetitionFigures) => number; show?: (x: number) => string }[],
): string {
  return items
    .map(({ label, read, show = fmt }) => {
      const { values, whyNot } = readings(perRepetition, (r) => [read(r)]);
      return values.length === 0 ? `${label}: ${whyNot[0] ?? 'not run'}` : `${label}: ${values.map(show).join(', ')}`;
    })
    .join('; ');
}
