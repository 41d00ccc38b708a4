/**
 * The seed papers' published figures and claims (published-results.json, a byte-for-byte copy of
 * ../shared/reference/published-results.json), checked against their schema when first read, and
 * what a comparison needs of them: an entry by id, every id of an experiment, and a figure's
 * printed value as the set of values it allows (a value, a range, a floor or a ceiling). Nothing
 * here is retyped: every published number a comparison uses comes from this file.
 */
import { InputError } from '../errors';
import { checkShape } from '../schema/validator';
import data from './published-results.json';

export interface PublishedFigure {
  id: string;
  database: string;
  workload: string;
  quantity: string;
  value?: number;
  range?: [number, number];
  bound?: 'lower' | 'upper';
  unit: string;
  where: string;
  basis: string;
  note: string;
}

export interface PublishedClaim {
  id: string;
  claim: string;
  where: string;
  note: string;
}

export interface PublishedExperiment {
  source: { file: string; title: string; section: string; figures: string[]; tables: string[]; related?: { file: string; note: string }[] };
  publishedSetup: Record<string, string | number>;
  figures: PublishedFigure[];
  claims: PublishedClaim[];
  contradictions: { id: string; where: string; contradiction: string }[];
}

export type PublishedResults = { about: string } & Record<string, PublishedExperiment>;

export const PUBLISHED_FILE = 'core/reproduce/published-results.json';

let checked: PublishedResults | undefined;

/** The file, checked against core/reproduce/published-results.schema.json on first use. */
export function publishedResults(): PublishedResults {
  checked ??= checkShape<PublishedResults>('publishedResults', data, (p) => `${PUBLISHED_FILE}${p ? `: ${p}` : ''}`);
  return checked;
}

/** The experiment ids the file has entries for, in its order. */
export function publishedExperimentIds(): string[] {
  return Object.keys(publishedResults()).filter((k) => k !== 'about');
}

export function publishedExperiment(id: string): PublishedExperiment {
  const entry = id === 'about' ? undefined : publishedResults()[id];
  if (!entry) throw new InputError('experiment', `${PUBLISHED_FILE} has no entry "${id}"; it has: ${publishedExperimentIds().join(', ')}`);
  return entry;
}

/** Every figure and claim id of an experiment: what its comparison must either compare or say why not. */
export function publishedIds(experiment: string): string[] {
  const e = publishedExperiment(experiment);
  return [...e.figures.map((f) => f.id), ...e.claims.map((c) => c.id)];
}

/** A figure or claim of an experiment by its id; throws naming the id when there is none. */
export function publishedEntry(experiment: string, id: string): { figure: PublishedFigure } | { claim: PublishedClaim } {
  const e = publishedExperiment(experiment);
  const figure = e.figures.find((f) => f.id === id);
  if (figure) return { figure };
  const claim = e.claims.find((c) => c.id === id);
  if (claim) return { claim };
  throw new InputError(`${experiment}.${id}`, `no figure or claim "${id}" in ${experiment} of ${PUBLISHED_FILE}`);
}

export function publishedFigure(experiment: string, id: string): PublishedFigure {
  const entry = publishedEntry(experiment, id);
  if (!('figure' in entry)) throw new InputError(`${experiment}.${id}`, `"${id}" is a claim, not a figure with a value`);
  return entry.figure;
}

/** A published figure's single value, for a model line that computes with it (a range or a bound has none). */
export function publishedValue(experiment: string, id: string, usedBy: string): number {
  const { value } = publishedFigure(experiment, id);
  if (value === undefined) throw new Error(`${PUBLISHED_FILE}: ${experiment}.${id} has no single value for ${usedBy}`);
  return value;
}

/** The values a published statement allows, before any tolerance: [low, high], either end open. */
export interface Target {
  low: number;
  high: number;
  /** As printed: `1.38`, `5–6`, `≥ 4`, `≤ 65`. */
  text: string;
}

const num = (x: number) => String(Number(x.toPrecision(4)));

export function targetOf(f: Pick<PublishedFigure, 'value' | 'range' | 'bound'>): Target {
  if (f.range) return { low: f.range[0], high: f.range[1], text: `${num(f.range[0])}–${num(f.range[1])}` };
  const v = f.value!;
  if (f.bound === 'lower') return { low: v, high: Infinity, text: `≥ ${num(v)}` };
  if (f.bound === 'upper') return { low: -Infinity, high: v, text: `≤ ${num(v)}` };
  return { low: v, high: v, text: num(v) };
}

/** A target read from published figures by a stated computation (a ratio of two printed values). */
export function derivedTarget(low: number, high: number, how: string): Target {
  const ends = low === high ? num(low) : `${num(low)}–${num(high)}`;
  return { low, high, text: `${ends} (${how})` };
}
