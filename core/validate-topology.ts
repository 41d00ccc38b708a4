import { InputError, throwIfAny } from './errors';
import { checkShape } from './schema/validator';
import { DIRECTION_KEYS, RESERVED_NODE_NAMES, linkType, type Topology, type TopologyLink } from './topology';

/**
 * Checks shape (topologies/topology.schema.json) and meaning (names, references, duplicates);
 * throws InputError(s) whose field is a path into the file, e.g. `links[3].latencyMs`.
 */
export function validateTopology(value: unknown): Topology {
  const topology = checkShape<Topology>('topology', value, (path) => path || 'topology');
  const errors: InputError[] = [];
  const names = new Set<string>();
  topology.nodes.forEach((node, i) => {
    if (names.has(node.name)) errors.push(new InputError(`nodes[${i}].name`, `duplicate node name "${node.name}"; give each node its own name`));
    if (RESERVED_NODE_NAMES.includes(node.name)) errors.push(new InputError(`nodes[${i}].name`, `"${node.name}" is reserved by the local fleet; choose another name`));
    names.add(node.name);
  });
  if (topology.client !== undefined && !names.has(topology.client)) {
    errors.push(new InputError('client', `"${topology.client}" is not one of the nodes`));
  }
  const seen = new Map<string, number>();
  const linked = new Set<string>();
  topology.links.forEach((link, i) => {
    for (const end of ['a', 'b'] as const) {
      if (!names.has(link[end])) errors.push(new InputError(`links[${i}].${end}`, `unknown node "${link[end]}"; declare it under nodes first`));
      linked.add(link[end]);
    }
    errors.push(...missingDirectionValues(link, `links[${i}]`));
    if (link.a === link.b) errors.push(new InputError(`links[${i}].b`, `a link joins two different nodes, not "${link.a}" to itself`));
    const key = [link.a, link.b].sort().join('~') + `/${linkType(link)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      errors.push(new InputError(`links[${i}]`, `same pair and connection type as links[${first}]; give it another "type"`));
    } else seen.set(key, i);
  });
  topology.nodes.forEach((node, i) => {
    if (!linked.has(node.name)) errors.push(new InputError(`nodes[${i}]`, `node "${node.name}" has no link; add one under links`));
  });
  throwIfAny(errors);
  return topology;
}

/** Each direction needs a delay and a cap: from the link's shared value or its own. */
function missingDirectionValues(link: TopologyLink, field: string): InputError[] {
  const wanted = [
    ['latencyMs', 'delayMs'],
    ['bandwidthMbps', 'bandwidthMbps'],
  ] as const;
  return wanted.flatMap(([shared, own]) => {
    if (link[shared] !== undefined) return [];
    const without = Object.values(DIRECTION_KEYS).filter((key) => link[key]?.[own] === undefined);
    if (without.length === 0) return [];
    return [new InputError(`${field}.${shared}`, `missing: give ${shared} for both directions, or ${own} in ${without.map((k) => `"${k}"`).join(' and ')}`)];
  });
}

