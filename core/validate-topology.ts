import { InputError, throwIfAny } from './errors';
import { checkShape } from './schema/validator';
import { DEFAULT_DISTANCE_MODEL, haversineKm, type Position } from './site-motion';
import { resolveStack, stackProblem } from './stack';
import { DIRECTION_KEYS, RESERVED_NODE_NAMES, linkType, type Topology, type TopologyLink } from './topology';

/**
 * Checks shape (topologies/topology.schema.json) and meaning (names, references, duplicates);
 * throws InputError(s) whose field is a path into the file, e.g. `links[3].latencyMs`. Returns
 * the topology with the distance model's latency filled in where a link between two positioned
 * nodes leaves it out, so every later reader sees one latency per link.
 */
export function validateTopology(value: unknown): Topology {
  const topology = checkShape<Topology>('topology', value, (path) => path || 'topology');
  const errors: InputError[] = [];
  const names = new Set<string>();
  topology.nodes.forEach((node, i) => {
    if (names.has(node.name)) errors.push(new InputError(`nodes[${i}].name`, `duplicate node name "${node.name}"; give each node its own name`));
    if (RESERVED_NODE_NAMES.includes(node.name))
      errors.push(new InputError(`nodes[${i}].name`, `"${node.name}" is reserved by the local fleet; choose another name`));
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
    errors.push(...missingDirectionValues(link, `links[${i}]`, positioned(topology, link)));
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
  const failover = topology.failover;
  if (typeof failover === 'object' && failover.pingTimeout > failover.pingInterval) {
    // tinc 1.0 would run with pingTimeout = pingInterval and say nothing: the profile would not be what ran.
    errors.push(
      new InputError(
        'failover.pingTimeout',
        `${failover.pingTimeout} is over pingInterval (${failover.pingInterval}); tinc 1.0 uses at most pingInterval: give pingTimeout <= pingInterval`,
      ),
    );
  }
  const stackError = stackProblem(
    resolveStack(topology.stack),
    topology.nodes.map((n) => n.name),
    topology.links,
  );
  if (stackError) errors.push(new InputError('stack.overlay', stackError));
  throwIfAny(errors);
  return withModelledLatencies(topology);
}

/** A link's ends' positions, and where to place each end that has none (for messages). */
function positioned(topology: Topology, link: TopologyLink): { a?: Position; b?: Position; unplaced: string[] } {
  const at = (name: string) => topology.nodes.find((n) => n.name === name)?.position;
  const index = (name: string) => topology.nodes.findIndex((n) => n.name === name);
  // An unknown end is reported on its own (links[i].a); it has no index to place.
  const unplaced = [link.a, link.b].filter((name) => !at(name)).map((name) => (index(name) >= 0 ? `nodes[${index(name)}].position (${name})` : name));
  return { a: at(link.a), b: at(link.b), unplaced };
}

function needsModelledLatency(link: TopologyLink): boolean {
  return link.latencyMs === undefined && Object.values(DIRECTION_KEYS).some((key) => link[key]?.delayMs === undefined);
}

/** Links between positioned nodes that leave out latencyMs get base + factor x great-circle km (0.1 ms). */
function withModelledLatencies(topology: Topology): Topology {
  const model = { ...DEFAULT_DISTANCE_MODEL, ...topology.distance };
  const links = topology.links.map((link) => {
    if (!needsModelledLatency(link)) return link;
    const { a, b } = positioned(topology, link);
    const latencyMs = Math.round((model.baseMs + model.msPerKm * haversineKm(a!, b!)) * 10) / 10;
    // A modelled value is an estimate, not a measurement: inventories and reports say so.
    return { ...link, latencyMs, estimated: true };
  });
  return { ...topology, links };
}

/** Each direction needs a delay and a cap: from the link's shared value or its own (a delay may come from the ends' positions). */
function missingDirectionValues(link: TopologyLink, field: string, ends: { unplaced: string[] }): InputError[] {
  const wanted = [
    ['latencyMs', 'delayMs'],
    ['bandwidthMbps', 'bandwidthMbps'],
  ] as const;
  return wanted.flatMap(([shared, own]) => {
    if (link[shared] !== undefined) return [];
    const without = Object.values(DIRECTION_KEYS).filter((key) => link[key]?.[own] === undefined);
    if (without.length === 0) return [];
    if (shared === 'latencyMs' && ends.unplaced.length === 0) return [];
    // Half-placed: the other way to a latency is to place the rest.
    const placing = shared === 'latencyMs' && ends.unplaced.length === 1 ? `, or ${ends.unplaced[0]} so the distance model gives it` : '';
    return [
      new InputError(
        `${field}.${shared}`,
        `missing: give ${shared} for both directions, or ${own} in ${without.map((k) => `"${k}"`).join(' and ')}${placing}`,
      ),
    ];
  });
}
