/**
 * One reproduction against its entry in published-results.json: a row for every published figure
 * and claim, in the file's order, either judged by its comparison's rule on our figures or
 * listed as not comparable here with the reason, and the counts the table ends with. Pure: the
 * CLI gathers the figures per repetition (cli/reproduce-report.ts).
 */
import type { ComparisonSpec, DisagreementCause, NotCompared, Reproduction } from './experiment';
import type { Figure } from './figures';
import { publishedEntry, publishedIds, targetOf } from './published';
import { countAgreements, judge, type Agreement, type AgreementCounts } from './rules';

export interface ComparisonRow {
  experiment: string;
  /** The published figure's or claim's id. */
  id: string;
  /** The published value with its unit, or the claim. */
  published: string;
  /** What of ours is compared (the comparison's own words), or why nothing is. */
  rule: string;
  /** Ours as judged: an interval, or the observations. */
  ours: string;
  agreement: Agreement;
  /** Why this agreement. */
  why: string;
  /** Whether the figures it was judged on were measured `ok` (only those are used), or why none was. */
  verdict: string;
  /** The group a not-comparable row is counted in. */
  reason?: string;
  /** Our figures shown beside it (a trend), not judged. */
  beside?: string;
  /** When it disagrees: the cause measured, the one suspected, or that none was found. */
  cause?: string;
}

export interface ExperimentAgreement {
  rows: ComparisonRow[];
  counts: AgreementCounts;
}

/** Every published id of the reproduction's entry either compared or listed once, and nothing else. */
export function coverageProblems(r: Reproduction): string[] {
  const ids = publishedIds(r.id);
  const named = [...r.compares.map((c) => c.id), ...r.notCompared.map((n) => n.id)];
  const problems: string[] = [];
  for (const id of ids) if (!named.includes(id)) problems.push(`${r.id}: ${id} is neither compared nor listed as not compared`);
  for (const id of named) {
    if (!ids.includes(id)) problems.push(`${r.id}: ${id} is not in its entry of published-results.json`);
    if (named.indexOf(id) !== named.lastIndexOf(id)) problems.push(`${r.id}: ${id} is named twice`);
  }
  return [...new Set(problems)];
}

function publishedText(experiment: string, id: string, spec?: ComparisonSpec): string {
  const entry = publishedEntry(experiment, id);
  if ('claim' in entry) return `${entry.claim.claim}${spec?.target ? ` (judged against ${spec.target().text})` : ''}`;
  const target = spec?.target ? spec.target() : targetOf(entry.figure);
  return `${target.text} ${entry.figure.unit}${spec?.target ? `; printed: ${targetOf(entry.figure).text}` : ''}`;
}

function notComparedRow(experiment: string, n: NotCompared): ComparisonRow {
  return {
    experiment,
    id: n.id,
    published: publishedText(experiment, n.id),
    rule: n.reason,
    ours: '–',
    agreement: 'not comparable',
    why: `${n.group}: ${n.reason}`,
    verdict: '–',
    reason: n.group,
  };
}

function comparedRow(experiment: string, spec: ComparisonSpec, perRepetition: Figure[][]): ComparisonRow {
  const entry = publishedEntry(experiment, spec.id);
  const observed = spec.observe(perRepetition);
  const target = spec.target ? spec.target() : 'figure' in entry ? targetOf(entry.figure) : undefined;
  const j = judge(observed, target);
  const missing = observed.kind === 'missing';
  const notOk = missing && /not reproducible here/.test(observed.why);
  return {
    experiment,
    id: spec.id,
    published: publishedText(experiment, spec.id, spec),
    rule: spec.ours,
    ours: j.ours,
    agreement: j.agreement,
    why: j.why,
    verdict: missing ? (notOk ? `not ok: ${observed.why}` : '–') : 'ok',
    ...(j.agreement === 'not comparable' ? { reason: notOk ? 'not measured ok here' : 'not measured' } : {}),
    ...(spec.beside ? { beside: spec.beside(perRepetition) } : {}),
    ...(j.agreement === 'disagree' ? { cause: causeText(spec.disagreement) } : {}),
  };
}

function causeText(cause: DisagreementCause | undefined): string {
  if (!cause) return 'no cause found';
  return 'measured' in cause ? `measured: ${cause.measured}` : `suspected, not measured: ${cause.suspected}`;
}

/** `perRepetition[i]`: the reproduction's figures of repetition i + 1, every part's. */
export function compareReproduction(r: Reproduction, perRepetition: Figure[][]): ExperimentAgreement {
  const rows = publishedIds(r.id).map((id) => {
    const spec = r.compares.find((c) => c.id === id);
    if (spec) return comparedRow(r.id, spec, perRepetition);
    const listed = r.notCompared.find((n) => n.id === id);
    return listed
      ? notComparedRow(r.id, listed)
      : { ...notComparedRow(r.id, { id, group: 'not a measured result', reason: 'not listed by this reproduction' }), reason: 'not listed' };
  });
  return { rows, counts: countAgreements(rows) };
}
