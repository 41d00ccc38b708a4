/**
 * A `move` event applied to a fleet: at every step of its duration, the moving node's position
 * along its path and, from it, each of its links' round trip under the distance model
 * (core/site-motion.ts), set on both directions through the fleet network. Where the node ends is
 * kept with the network settings, so the next move starts there; the result records the per-second
 * distance and round trips the report draws beside throughput.
 */
import { InputError } from '../../core/errors';
import { DIRECTIONS, roundTripMs, type LinkConditions } from '../../core/link-conditions';
import {
  DEFAULT_DISTANCE_MODEL,
  modelLinks,
  motionAt,
  pathLengthKm,
  pathProblem,
  positionProblem,
  rttAt,
  type ModelledLink,
  type MoveInput,
  type MoveResult,
  type MoveSample,
  type Position,
} from '../../core/site-motion';
import { stepOver } from './condition-events';
import type { ConditionChange, FleetNetwork } from './fleet-network';

const where = (net: FleetNetwork, node: string) => net.settings().positions?.[node] ?? net.inventory.nodes.find((n) => n.name === node)?.position;

function unplaced(node: string): string {
  return `node "${node}" has no position: give it one in the topology (nodes[].position: {lat, lon}) and bring the fleet up again`;
}

/** The moving node's links, each with where its other end stands and its conditions now. */
function linksOf(net: FleetNetwork, node: string): { id: string; peer: Position; now: LinkConditions }[] {
  const links = net.inventory.links.filter((l) => l.a === node || l.b === node);
  if (links.length === 0) throw new InputError('move.node', `node "${node}" has no link to move along`);
  return links.map((l) => {
    const other = l.a === node ? l.b : l.a;
    const peer = where(net, other);
    if (!peer) throw new InputError('move.node', `link ${l.id}: ${unplaced(other)}; the distance model needs both ends`);
    return { id: l.id, peer, now: net.conditions(l.id) };
  });
}

function checkInput(net: FleetNetwork, input: MoveInput): Position {
  if (!net.inventory.nodes.some((n) => n.name === input.node)) {
    throw new InputError('move.node', `unknown node "${input.node}"; nodes: ${net.inventory.nodes.map((n) => n.name).join(', ')}`);
  }
  const start = where(net, input.node);
  if (!start) throw new InputError('move.node', unplaced(input.node));
  if (input.waypoints.length === 0) throw new InputError('move.to', 'give where the node goes: to: {lat, lon} or waypoints: [{lat, lon}, ...]');
  input.waypoints.forEach((p, i) => {
    const bad = positionProblem(p);
    if (bad) throw new InputError(`move.waypoints[${i}].${bad.key}`, bad.problem);
  });
  const pathIssue = pathProblem([start, ...input.waypoints]);
  if (pathIssue) throw new InputError('move.waypoints', pathIssue);
  if (!(input.overS > 0)) throw new InputError('move.over', `must be a number of seconds above 0, got ${input.overS}`);
  if (input.msPerKm !== undefined && !(input.msPerKm > 0))
    throw new InputError('move.msPerKm', `must be above 0 (e.g. 0.0135), got ${input.msPerKm}`);
  return start;
}

/**
 * Each direction keeps its own delay and moves by half the change in round trip: a symmetric
 * link gets RTT/2 each way, an asymmetric one keeps its asymmetry.
 */
function directionChanges(link: ModelledLink & { now: LinkConditions }, rttMs: number): ConditionChange[] {
  const shift = (rttMs - link.rttMs) / 2;
  return DIRECTIONS.map((direction) => ({ link: link.id, direction, values: { delayMs: Math.max(0, link.now[direction].delayMs + shift) } }));
}

/** Moves the node along its path over `overS`, updating its links each step; `onStep` heartbeats. */
export async function moveSite(net: FleetNetwork, input: MoveInput, onStep?: (fraction: number) => void): Promise<MoveResult> {
  const start = checkInput(net, input);
  const msPerKm = input.msPerKm ?? net.inventory.distance?.msPerKm ?? DEFAULT_DISTANCE_MODEL.msPerKm;
  const motion = { path: [start, ...input.waypoints], overS: input.overS, steps: input.steps };
  const current = linksOf(net, input.node);
  const links = modelLinks(
    start,
    current.map((l) => ({ id: l.id, peer: l.peer, rttMs: roundTripMs(l.now) })),
    msPerKm,
  ).map((l, i) => ({ ...l, now: current[i].now }));
  const ranges = new Map(links.map((l) => [l.id, { id: l.id, fromMs: l.rttMs, toMs: l.rttMs, minMs: l.rttMs, maxMs: l.rttMs }]));
  const samples: MoveSample[] = [{ time: Date.now(), km: 0, rttMs: Object.fromEntries(links.map((l) => [l.id, l.rttMs])) }];
  let end = start;
  await stepOver(input.overS, input.steps, async (fraction, elapsedS) => {
    const { position, travelledKm } = motionAt(motion, elapsedS);
    const rtts = links.map((l) => [l.id, rttAt(l, position, msPerKm)] as const);
    await net.setConditions(
      links.flatMap((l, i) => directionChanges(l, rtts[i][1])),
      { positions: { [input.node]: position } },
    );
    for (const [id, rtt] of rtts) {
      const r = ranges.get(id)!;
      Object.assign(r, { toMs: rtt, minMs: Math.min(r.minMs, rtt), maxMs: Math.max(r.maxMs, rtt) });
    }
    // One sample per whole second, and the last step: enough for a per-second figure.
    const last = samples[samples.length - 1];
    if (fraction >= 1 || Math.floor((Date.now() - samples[0].time) / 1000) > Math.floor((last.time - samples[0].time) / 1000)) {
      samples.push({ time: Date.now(), km: travelledKm, rttMs: Object.fromEntries(rtts) });
    }
    end = position;
    onStep?.(fraction);
  });
  return { start, end, km: pathLengthKm(motion.path), msPerKm, links: [...ranges.values()], samples };
}
