/**
 * Which links, and which of their directions, a network event addresses: one link, all of a node's
 * links ("site X goes behind a satellite uplink"), all links touching a tagged group of nodes, or
 * every link. Used alike by validation (core) and by the activity that applies the event, so the
 * two can never disagree on what an event touches.
 */
import type { ConditionValues, Direction } from './link-conditions';

/** Exactly one of these says where an event applies. */
export interface LinkSelector {
  link?: string;
  node?: string;
  tag?: string;
  all?: true;
}

/**
 * For one link: `a->b`, `b->a` or `both`. For a node or a tag: `out` (what its nodes send), `in`
 * (what they receive) or `both`. For all links: `both`. Absent: `both`.
 */
export type DirectionWord = 'a->b' | 'b->a' | 'out' | 'in' | 'both';

export interface ConditionEventInput extends LinkSelector {
  direction?: DirectionWord;
}

export interface SelectedLink {
  id: string;
  directions: Direction[];
}

/** What selection needs to know of a fleet. */
export interface SelectableFleet {
  name: string;
  nodes: { name: string; tags?: string[] }[];
  links: { id: string; a?: string; b?: string }[];
}

export const SELECTOR_KEYS = ['link', 'node', 'tag', 'all'] as const;

/** The links and directions an event addresses, or the problem with its selector (naming the fix). */
export function selectLinks(selector: LinkSelector, direction: DirectionWord | undefined, fleet: SelectableFleet): SelectedLink[] | string {
  const given = SELECTOR_KEYS.filter((k) => selector[k] !== undefined);
  if (given.length !== 1) return `give exactly one of link, node, tag or all (got ${given.length ? given.join(', ') : 'none'})`;
  const word = direction ?? 'both';
  if (selector.link !== undefined) {
    const link = fleet.links.find((l) => l.id === selector.link);
    if (!link) return `unknown link "${selector.link}" in fleet ${fleet.name} (\`fragbench fleet status\` lists the links)`;
    if (word === 'out' || word === 'in') return `direction "${word}" is for a node or a tag; for a link write a->b, b->a or both`;
    return [{ id: link.id, directions: word === 'a->b' ? ['ab'] : word === 'b->a' ? ['ba'] : ['ab', 'ba'] }];
  }
  if (word === 'a->b' || word === 'b->a') return `direction "${word}" is for one link; for a node, a tag or all write out, in or both`;
  if (selector.all) {
    if (word !== 'both') return `direction "${word}" needs a node or a tag to be relative to; with all, leave it out`;
    return fleet.links.map((l) => ({ id: l.id, directions: ['ab', 'ba'] }));
  }
  const members = selector.node !== undefined ? nodeGroup(selector.node, fleet) : tagGroup(selector.tag!, fleet);
  if (typeof members === 'string') return members;
  const selected = fleet.links.flatMap((l): SelectedLink[] => {
    const directions = groupDirections(l, members, word);
    return directions.length ? [{ id: l.id, directions }] : [];
  });
  if (selected.length === 0) return `no link of fleet ${fleet.name} touches ${selector.node ?? `tag ${selector.tag}`}`;
  return selected;
}

function nodeGroup(name: string, fleet: SelectableFleet): Set<string> | string {
  if (!fleet.nodes.some((n) => n.name === name)) return `unknown node "${name}"; nodes: ${fleet.nodes.map((n) => n.name).join(', ')}`;
  return new Set([name]);
}

function tagGroup(tag: string, fleet: SelectableFleet): Set<string> | string {
  const members = fleet.nodes.filter((n) => n.tags?.includes(tag)).map((n) => n.name);
  if (members.length === 0) {
    const known = [...new Set(fleet.nodes.flatMap((n) => n.tags ?? []))];
    return `no node of fleet ${fleet.name} has tag "${tag}"; ${known.length ? `tags: ${known.join(', ')}` : 'give nodes tags in the topology (nodes[].tags)'}`;
  }
  return new Set(members);
}

/** The directions of a link leaving (out) or entering (in) the group; a link inside the group goes both ways. */
function groupDirections(link: { a?: string; b?: string }, members: Set<string>, word: DirectionWord): Direction[] {
  const aIn = link.a !== undefined && members.has(link.a);
  const bIn = link.b !== undefined && members.has(link.b);
  if (!aIn && !bIn) return [];
  if (word === 'both' || (aIn && bIn)) return ['ab', 'ba'];
  const sending: Direction = aIn ? 'ab' : 'ba';
  if (word === 'out') return [sending];
  return [sending === 'ab' ? 'ba' : 'ab'];
}

/** Every link between two different groups of a partition (nodes in no group are left alone). */
export function linksBetweenGroups(groups: string[][], fleet: SelectableFleet): string[] {
  const groupOf = new Map(groups.flatMap((g, i) => g.map((n) => [n, i] as const)));
  return fleet.links
    .filter((l) => {
      const [ga, gb] = [groupOf.get(l.a ?? ''), groupOf.get(l.b ?? '')];
      return ga !== undefined && gb !== undefined && ga !== gb;
    })
    .map((l) => l.id);
}

/** The problem with a partition's groups, if any: nodes unknown or in two groups, fewer than two groups. */
export function partitionProblem(groups: string[][], fleet: SelectableFleet): string | undefined {
  if (groups.length < 2) return 'a partition needs two groups or more, e.g. [[alpha, bravo], [charlie]]';
  const seen = new Set<string>();
  for (const name of groups.flat()) {
    if (!fleet.nodes.some((n) => n.name === name)) return `unknown node "${name}"; nodes: ${fleet.nodes.map((n) => n.name).join(', ')}`;
    if (seen.has(name)) return `node "${name}" is in two groups; a node belongs to one side`;
    seen.add(name);
  }
  if (linksBetweenGroups(groups, fleet).length === 0) return `no link of fleet ${fleet.name} joins these groups: the partition would cut nothing`;
  return undefined;
}

/** What is wrong with values set on these links, if anything: a round trip cannot go to one direction. */
export function valuesProblem(values: ConditionValues | undefined, links: SelectedLink[]): string | undefined {
  if (values?.latencyMs !== undefined && values.delayMs !== undefined) return 'give latencyMs (round trip) or delayMs (one way), not both';
  if (values?.latencyMs !== undefined && links.some((l) => l.directions.length === 1))
    return 'latencyMs is a round trip and this event sets one direction: give delayMs (one way)';
  return undefined;
}
