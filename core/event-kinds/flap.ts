/**
 * `flap: {link, period, for}`: the link goes down and up every half period, `for` seconds long,
 * and is left up. The network lane is busy meanwhile (later network events wait for it).
 */
import { defineEventKind } from './event-kind';
import { needsRerouting } from './link-state';

interface FlapItem {
  link: string;
  /** Seconds for one down-and-up cycle. */
  period: number;
  /** Seconds it keeps flapping. */
  for: number;
}

export const flap = defineEventKind({
  key: 'flap',
  kind: 'link-flap',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['link', 'period', 'for'],
    properties: {
      link: { type: 'string' },
      period: { type: 'number', minimum: 0.2, description: 'seconds for one down-and-up cycle' },
      for: { type: 'number', exclusiveMinimum: 0, description: 'seconds it keeps flapping; the link is left up' },
    },
  },
  takesList: false,
  toAction: (item: FlapItem) => ({ kind: 'link-flap' as const, link: item.link, periodS: item.period, forS: item.for }),
  check: (a, st, when) => {
    if (!st.linkIds.has(a.link)) return `unknown link "${a.link}" (${when}); \`fragbench fleet status\` lists the links`;
    if (st.cut.has(a.link)) return `link "${a.link}" is cut ${when}: restore it before it can flap`;
    const refused = needsRerouting(a.link, st, 'flapping link');
    if (refused) return refused;
    if (a.periodS > a.forS) return `period ${a.periodS} s is longer than for ${a.forS} s: the link would not come back once`;
    return undefined;
  },
  plan: (a) => `link ${a.link} down and up every ${a.periodS} s for ${a.forS} s, then left up`,
  lane: 'network',
  duration: 'resize',
  lastsS: (a) => a.forS,
  apply: (a, { fleet }) => ({ activity: 'flapLink', input: { fleet, link: a.link, periodS: a.periodS, forS: a.forS } }),
  outcome: (a, result) => {
    const r = result as { appliedAt: number; completedAt: number; flips: number };
    return {
      detail: { link: a.link, periodS: a.periodS, forS: a.forS, flips: r.flips },
      times: { acceptedAt: r.appliedAt, completedAt: r.completedAt },
    };
  },
  label: (a) => `flap ${a.link}`,
  marker: { name: 'flap', color: '#17becf' },
  phrase: 'flapping links',
  doc: {
    does: 'the link goes down and up every half period for a while, and is left up',
    example: '{ at: 95, flap: { link: sydney-seoul/0, period: 4, for: 20 } }',
  },
});
