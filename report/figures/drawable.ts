/**
 * The last check before a figure goes in the report: every mark has rows to draw, and every
 * quantitative field it plots has at least one finite value. Vega draws such a figure anyway,
 * empty, with "Infinite extent" warnings; builders avoid it themselves, and this catches what
 * they miss so a reader gets a note instead of an empty frame.
 */
import type { Figure } from './figure';

type Row = Record<string, unknown>;

interface Unit {
  data?: { values?: Row[] };
  layer?: Unit[];
  /** Panels stacked on one axis (each with its own rows). */
  vconcat?: Unit[];
  spec?: Unit;
  mark?: unknown;
  transform?: unknown[];
  encoding?: Record<string, { field?: string; type?: string } | undefined>;
}

/** Positional channels whose second end shares the first's (quantitative) scale. */
const SECOND_ENDS = new Set(['x2', 'y2']);

function problemIn(unit: Unit, inherited: Row[] | undefined): string | undefined {
  const rows = unit.data?.values ?? inherited;
  for (const child of [...(unit.layer ?? []), ...(unit.vconcat ?? [])]) {
    const problem = problemIn(child, rows);
    if (problem) return problem;
  }
  if (unit.spec) return problemIn(unit.spec, rows);
  if (unit.mark === undefined) return undefined;
  if (!rows || rows.length === 0) return 'a mark has no rows';
  // Rows a transform filters cannot be judged here without evaluating it; its builder checks them.
  if (unit.transform && unit.transform.length > 0) return undefined;
  for (const [channel, encoding] of Object.entries(unit.encoding ?? {})) {
    const field = encoding?.field;
    if (!field || (encoding.type !== 'quantitative' && !SECOND_ENDS.has(channel))) continue;
    if (!rows.some((row) => typeof row[field] === 'number' && Number.isFinite(row[field]))) return `no finite value of "${field}"`;
  }
  return undefined;
}

/** Why the figure cannot be drawn, or undefined when it can. */
export function undrawable(figure: Figure): string | undefined {
  return problemIn(figure.spec as Unit, undefined);
}
