/**
 * Cuts and restores are mirror images: the link must exist, be up before a cut and cut before a
 * restore. One factory keeps both sides of every rule in one place.
 */
import { appliedAt, defineEventKind, oneOrList, type TimelineState } from './event-kind';

interface LinkChangeSpec<Key extends string, Kind extends string> {
  key: Key;
  kind: Kind;
  cutting: boolean;
  /** What `validate` says happens to the link, e.g. `cut (both ways)`. */
  effect: string;
  marker: { name: string; color: string };
  phrase: string;
  doc: { does: string; example: string };
}

export function linkChange<const Key extends string, const Kind extends string>(spec: LinkChangeSpec<Key, Kind>) {
  return defineEventKind({
    key: spec.key,
    kind: spec.kind,
    schema: oneOrList({ type: 'string' }),
    takesList: true,
    toAction: (link: string) => ({ kind: spec.kind, link }),
    check: (a, st, when) => checkLinkChange(a.link, spec.cutting, st, when),
    plan: (a) => `link ${a.link} ${spec.effect}`,
    lane: 'network',
    duration: 'quick',
    apply: (a, { fleet }) => ({ activity: spec.cutting ? 'cutLink' : 'restoreLink', input: { fleet, link: a.link } }),
    outcome: (a, result) => appliedAt({ link: a.link }, result),
    label: (a) => `${spec.key} ${a.link}`,
    marker: spec.marker,
    phrase: spec.phrase,
    doc: spec.doc,
  });
}

/**
 * Why a fleet without an overlay cannot take an event that takes one link away, or undefined: on
 * the published stack tinc routes around the link, there the pair is simply cut off, so the event
 * would not measure what it means. A partition cuts every way between groups on either stack.
 */
export function needsRerouting(link: string, st: TimelineState, what: string): string | undefined {
  if (st.fleet.stack?.overlay !== 'none') return undefined;
  return `${what} ${link} needs an overlay that routes around it, and fleet ${st.fleet.name} runs overlay none (static routes): its pair would be cut off instead; run it on overlay tinc (fleet.stack.overlay), or use a partition`;
}

function checkLinkChange(link: string, cutting: boolean, st: TimelineState, when: string): string | undefined {
  if (!st.linkIds.has(link)) return unknownLink(link, st);
  if (cutting) {
    const refused = needsRerouting(link, st, 'cutting link');
    if (refused) return refused;
  }
  if (cutting === st.cut.has(link)) return `link "${link}" is ${cutting ? 'already cut' : 'not cut'} ${when}`;
  if (cutting) st.cut.add(link);
  else st.cut.delete(link);
  return undefined;
}

/** Says a link is unknown, and how to find the right id. */
function unknownLink(id: string, st: TimelineState): string {
  const ends = /^([a-z][a-z0-9]*)-([a-z][a-z0-9]*)\/\d+$/.exec(id);
  if (!ends) return `unknown link "${id}": link ids are written <a>-<b>/<type>, e.g. ${st.fleet.links[0]?.id ?? 'sydney-pune/0'}`;
  const [, a, b] = ends;
  const between = [...st.linkIds].filter((l) => l.startsWith(`${a}-${b}/`) || l.startsWith(`${b}-${a}/`));
  if (between.length) return `unknown link "${id}"; between ${a} and ${b} fleet ${st.fleet.name} has: ${between.join(', ')}`;
  return `unknown link "${id}": fleet ${st.fleet.name} has no link between ${a} and ${b} (\`fragbench fleet status\` lists the links)`;
}
