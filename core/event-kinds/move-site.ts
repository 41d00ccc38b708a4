/**
 * `move: {node, to | waypoints, over, steps?, msPerKm?}`: a positioned node travels in a straight
 * line (a great circle) or along waypoints over `over` seconds, and the round trip of each of its
 * links follows the distance model (core/site-motion.ts) as it goes: a ship, a train, a site
 * whose traffic is re-homed. The network lane is busy meanwhile; the next move starts where this
 * one ends.
 */
import {
  DEFAULT_DISTANCE_MODEL,
  haversineKm,
  modelLinks,
  pathLengthKm,
  pathProblem,
  rttRangeAlong,
  type LinkAtStart,
  type MoveResult,
  type Position,
  type RttRange,
} from '../site-motion';
import { defineEventKind, type JsonSchema, type TimelineState } from './event-kind';

const POSITION: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['lat', 'lon'],
  properties: {
    lat: { type: 'number', minimum: -90, maximum: 90, description: 'latitude in degrees, north positive' },
    lon: { type: 'number', minimum: -180, maximum: 180, description: 'longitude in degrees, east positive' },
  },
};

interface MoveItem {
  node: string;
  to?: Position;
  waypoints?: Position[];
  /** Seconds from the start to the last point, at constant speed. */
  over: number;
  steps?: 'linear' | 'seconds';
  msPerKm?: number;
}

/** What validation worked out from the fleet, for `validate`'s line (absent until checked). */
interface MovePreview {
  km: number;
  links: RttRange[];
}

const TARGET_KEYS = ['to', 'waypoints'] as const;

const fixed = (ms: number) => ms.toFixed(1);

function describeLinks(links: RttRange[]): string {
  return links.map((l) => `${l.id} ${fixed(l.fromMs)}->${fixed(l.toMs)} ms (${fixed(l.minMs)}-${fixed(l.maxMs)})`).join(', ');
}

/** Where a node stands at this point of the timeline: after its last move, else where the fleet places it. */
function positionOf(name: string, st: TimelineState): Position | undefined {
  return st.positions.get(name) ?? st.fleet.nodes.find((n) => n.name === name)?.position;
}

const unplaced = (name: string) => `node "${name}" has no position: give it one in the topology (nodes[].position: {lat, lon})`;

/**
 * Each link's round trip at the move's start: its reference, carried by the topology's factor from
 * where the ends stood at the start of the run to where they stand now (other events left aside).
 */
function linksAtStart(node: string, st: TimelineState): LinkAtStart[] | string {
  const msPerKm = st.fleet.distance?.msPerKm ?? DEFAULT_DISTANCE_MODEL.msPerKm;
  const reference = (name: string) => st.fleet.nodes.find((n) => n.name === name)?.position;
  const links = st.fleet.links.filter((l) => l.a === node || l.b === node);
  if (links.length === 0) return `node "${node}" has no link whose latency could follow it`;
  const result: LinkAtStart[] = [];
  for (const l of links) {
    const peerName = l.a === node ? l.b! : l.a!;
    const peer = positionOf(peerName, st);
    if (!peer) return `link ${l.id}: ${unplaced(peerName)}; the distance model needs both ends`;
    // An inventory always has the reference; a view without one has nothing to preview.
    if (l.latencyMs === undefined) continue;
    const movedKm = haversineKm(positionOf(node, st)!, peer) - haversineKm(reference(node)!, reference(peerName)!);
    result.push({ id: l.id, peer, rttMs: l.latencyMs + msPerKm * movedKm });
  }
  return result;
}

export const moveSite = defineEventKind({
  key: 'move',
  kind: 'site-move',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['node', 'over'],
    properties: {
      node: { $ref: '#/definitions/nodeName', description: 'a node with a position in the topology' },
      to: { ...POSITION, description: 'where it goes, in a straight line (a great circle)' },
      waypoints: { type: 'array', minItems: 1, items: POSITION, description: 'the points it passes, in order, the last one where it stops' },
      over: { type: 'number', exclusiveMinimum: 0, description: 'seconds from the start to the last point, at constant speed' },
      steps: { enum: ['linear', 'seconds'], description: 'linear (default; links updated every 0.1 s) or steps of one second' },
      msPerKm: {
        type: 'number',
        exclusiveMinimum: 0,
        description: "ms of RTT per km for this move (default: the topology's distance.msPerKm, else 0.0135)",
      },
    },
  },
  takesList: false,
  toAction: (item: MoveItem) => ({
    kind: 'site-move' as const,
    node: item.node,
    waypoints: item.to ? [item.to] : (item.waypoints ?? []),
    overS: item.over,
    steps: item.steps ?? ('linear' as const),
    ...(item.msPerKm !== undefined ? { msPerKm: item.msPerKm } : {}),
    given: TARGET_KEYS.filter((k) => item[k] !== undefined),
    preview: undefined as MovePreview | undefined,
  }),
  check: (a, st, when) => {
    if (a.given.length !== 1)
      return `give exactly one of to ({lat, lon}) or waypoints ([{lat, lon}, ...]) (got ${a.given.length ? a.given.join(', ') : 'none'})`;
    if (!st.fleet.nodes.some((n) => n.name === a.node)) return `unknown node "${a.node}"; nodes: ${st.fleet.nodes.map((n) => n.name).join(', ')}`;
    const start = positionOf(a.node, st);
    if (!start) return unplaced(a.node);
    const path = [start, ...a.waypoints];
    const problem = pathProblem(path);
    if (problem) return `${problem} (${when})`;
    const links = linksAtStart(a.node, st);
    if (typeof links === 'string') return links;
    const msPerKm = a.msPerKm ?? st.fleet.distance?.msPerKm ?? DEFAULT_DISTANCE_MODEL.msPerKm;
    // The plan line needs the fleet, which only the check sees: it leaves what it found on the action.
    Object.assign(a, { preview: { km: pathLengthKm(path), links: modelLinks(start, links, msPerKm).map((l) => rttRangeAlong(path, l, msPerKm)) } });
    st.positions.set(a.node, path[path.length - 1]);
    return undefined;
  },
  plan: (a) => {
    const how = `over ${a.overS} s (${a.steps}${a.msPerKm !== undefined ? `, ${a.msPerKm} ms/km` : ''})`;
    if (!a.preview) return `node ${a.node} moves through ${a.waypoints.length} point(s) ${how}`;
    return `node ${a.node} moves ${a.preview.km.toFixed(0)} km ${how}; RTT ${describeLinks(a.preview.links)}`;
  },
  lane: 'network',
  // It runs for its whole duration and heartbeats, like a resize.
  duration: 'resize',
  lastsS: (a) => a.overS,
  apply: (a, { fleet }) => ({
    activity: 'moveSite',
    input: {
      fleet,
      node: a.node,
      waypoints: a.waypoints,
      overS: a.overS,
      steps: a.steps,
      ...(a.msPerKm !== undefined ? { msPerKm: a.msPerKm } : {}),
    },
  }),
  outcome: (a, result) => {
    const r = result as { appliedAt: number; completedAt: number } & MoveResult;
    return {
      detail: {
        node: a.node,
        overS: a.overS,
        steps: a.steps,
        start: r.start,
        end: r.end,
        km: r.km,
        msPerKm: r.msPerKm,
        links: r.links,
        samples: r.samples,
      },
      times: { acceptedAt: r.appliedAt, completedAt: r.completedAt },
    };
  },
  label: (a) => `move ${a.node}`,
  marker: { name: 'site move', color: '#d95f02' },
  phrase: 'moving sites',
  doc: {
    does: "a node with a position moves along great circles; its links' RTT follows the distance",
    example: '{ at: 15, move: { node: ship, to: { lat: 38.7, lon: -9.6 }, over: 60 } }',
  },
});
