/**
 * Moving sites: where a node stands (latitude, longitude), how far apart two nodes are, where a
 * moving node is a given fraction of the way along its path, and what the round trip of each of
 * its links is there. Pure (no I/O, no clock): validation, the shaping service and the report
 * all compute the same numbers from here.
 */
import { rampFraction } from './link-conditions';

/** Degrees: latitude -90..90 (north positive), longitude -180..180 (east positive). */
export interface Position {
  lat: number;
  lon: number;
}

/**
 * How a link's round trip follows distance: RTT = baseMs + msPerKm × great-circle km.
 *
 * The default 0.0135 ms/km comes from /work/shared/reference/hybrid-regions.json: the one measured
 * long path there, Adelaide - Azure East US, gave ~225 ms RTT over 16671 km, i.e. 0.01 ms/km (light
 * in fibre, there and back) times 1.35 of route inflation (225 / 16671 = 0.01350). datacenters-8.json
 * cannot give the figure: it lists measured latencies per pair but no coordinates or distances.
 * topologies/derive.ts estimates the hybrid regions' latencies with the same factor.
 * baseMs stands for what distance does not explain (last-mile hops, switching); 1 ms is a guess of
 * the order of the intra-cloud RTTs measured there (0.5-1.4 ms).
 */
export interface DistanceModel {
  msPerKm: number;
  baseMs: number;
}

export const DEFAULT_DISTANCE_MODEL: DistanceModel = { msPerKm: 0.0135, baseMs: 1 };

/** The IUGG mean Earth radius: haversine on a sphere is within ~0.5 % of the ellipsoid's distances. */
export const EARTH_RADIUS_KM = 6371.0088;

const rad = (deg: number) => (deg * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** Which coordinate of a position is out of range and why, or undefined. */
export function positionProblem(p: Position): { key: 'lat' | 'lon'; problem: string } | undefined {
  if (!Number.isFinite(p.lat) || p.lat < -90 || p.lat > 90)
    return { key: 'lat', problem: `latitude must be -90..90 degrees (north positive), got ${p.lat}` };
  if (!Number.isFinite(p.lon) || p.lon < -180 || p.lon > 180)
    return { key: 'lon', problem: `longitude must be -180..180 degrees (east positive), got ${p.lon}` };
  return undefined;
}

/** The central angle between two positions, radians (haversine: stable for short distances too). */
function centralAngle(a: Position, b: Position): number {
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lon - a.lon) / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Great-circle distance, km. */
export function haversineKm(a: Position, b: Position): number {
  return EARTH_RADIUS_KM * centralAngle(a, b);
}

type Vector = [number, number, number];

function toVector(p: Position): Vector {
  const [lat, lon] = [rad(p.lat), rad(p.lon)];
  return [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
}

function fromVector([x, y, z]: Vector): Position {
  return { lat: deg(Math.atan2(z, Math.hypot(x, y))), lon: deg(Math.atan2(y, x)) };
}

/**
 * The point `fraction` of the way from a to b on the great circle through them (spherical linear
 * interpolation). Great-circle rather than linear in lat/lon: it is the shortest path at every
 * length, and it crosses the antimeridian and passes near the poles without special cases.
 */
export function greatCirclePoint(a: Position, b: Position, fraction: number): Position {
  const angle = centralAngle(a, b);
  if (angle < 1e-12) return { ...a };
  const [va, vb] = [toVector(a), toVector(b)];
  const wa = Math.sin((1 - fraction) * angle) / Math.sin(angle);
  const wb = Math.sin(fraction * angle) / Math.sin(angle);
  return fromVector([0, 1, 2].map((i) => wa * va[i] + wb * vb[i]) as Vector);
}

/** A leg this close to half the globe has no single great circle: the way round is undefined. */
const ANTIPODAL_KM = EARTH_RADIUS_KM * Math.PI - 10;

/** Why a path cannot be followed (a leg between antipodes), or undefined. */
export function pathProblem(path: Position[]): string | undefined {
  for (let i = 1; i < path.length; i++) {
    if (haversineKm(path[i - 1], path[i]) > ANTIPODAL_KM)
      return `leg ${i} joins two (nearly) antipodal points, which no single great circle joins: add a waypoint between them`;
  }
  return undefined;
}

/** Kilometres along a path of great-circle legs. */
export function pathLengthKm(path: Position[]): number {
  let km = 0;
  for (let i = 1; i < path.length; i++) km += haversineKm(path[i - 1], path[i]);
  return km;
}

/** Where a traveller stands `fraction` (0..1) of the path's length along it, at constant speed. */
export function positionAlong(path: Position[], fraction: number): Position {
  const total = pathLengthKm(path);
  if (path.length === 1 || total === 0) return { ...path[0] };
  let left = Math.min(1, Math.max(0, fraction)) * total;
  for (let i = 1; i < path.length; i++) {
    const leg = haversineKm(path[i - 1], path[i]);
    if (left <= leg || i === path.length - 1) return greatCirclePoint(path[i - 1], path[i], leg === 0 ? 1 : Math.min(1, left / leg));
    left -= leg;
  }
  return { ...path[path.length - 1] };
}

/** A link of the moving node: the other end's position and the link's round trip at the start. */
export interface LinkAtStart {
  id: string;
  peer: Position;
  rttMs: number;
}

/** A link under the distance model: its base is what the round trip has beyond distance. */
export interface ModelledLink extends LinkAtStart {
  baseMs: number;
}

/** The round trip the model gives at a distance: base + factor × km, never below zero. */
export function modelledRttMs(km: number, model: DistanceModel): number {
  return Math.max(0, model.baseMs + model.msPerKm * km);
}

/**
 * A link's base, derived so that the model reproduces the round trip it has at the start: moves
 * then change latency relative to a measured (or already modelled) start, never replace it.
 */
export function derivedBaseMs(rttMs: number, km: number, msPerKm: number): number {
  return rttMs - msPerKm * km;
}

export function modelLinks(start: Position, links: LinkAtStart[], msPerKm: number): ModelledLink[] {
  return links.map((l) => ({ ...l, baseMs: derivedBaseMs(l.rttMs, haversineKm(start, l.peer), msPerKm) }));
}

/** A modelled link's round trip with the moving node at `position`. */
export function rttAt(link: ModelledLink, position: Position, msPerKm: number): number {
  return modelledRttMs(haversineKm(position, link.peer), { baseMs: link.baseMs, msPerKm });
}

/** A move as events give it: the path (start first), its duration, and how it steps. */
export interface Motion {
  path: Position[];
  overS: number;
  steps: 'linear' | 'seconds';
}

/** Where the moving node is `elapsedS` into the move, and how far it has come along its path. */
export function motionAt(motion: Motion, elapsedS: number): { fraction: number; position: Position; travelledKm: number } {
  const fraction = rampFraction(elapsedS, motion.overS, motion.steps);
  return { fraction, position: positionAlong(motion.path, fraction), travelledKm: fraction * pathLengthKm(motion.path) };
}

/** Points a path is sampled at to find a link's lowest and highest round trip along it. */
const RANGE_SAMPLES = 200;

/** A link's round trip at the start and end of the move and its extremes along the path (sampled). */
export interface RttRange {
  id: string;
  fromMs: number;
  toMs: number;
  minMs: number;
  maxMs: number;
}

export function rttRangeAlong(path: Position[], link: ModelledLink, msPerKm: number): RttRange {
  const values = Array.from({ length: RANGE_SAMPLES + 1 }, (_, i) => rttAt(link, positionAlong(path, i / RANGE_SAMPLES), msPerKm));
  return { id: link.id, fromMs: values[0], toMs: values[values.length - 1], minMs: Math.min(...values), maxMs: Math.max(...values) };
}

/** A move as the activity applies it. */
export interface MoveInput {
  node: string;
  /** Where it goes: one point (a straight move) or several in order; it starts where it stands. */
  waypoints: Position[];
  overS: number;
  steps: 'linear' | 'seconds';
  /** Ms of RTT per km for this move; else the topology's, else the default. */
  msPerKm?: number;
}

/** One second of a move: how far the node has come along its path and each link's round trip. */
export interface MoveSample {
  /** Epoch ms, the clock samples and events share. */
  time: number;
  km: number;
  rttMs: Record<string, number>;
}

export interface MoveResult {
  start: Position;
  end: Position;
  /** Length of the path travelled. */
  km: number;
  msPerKm: number;
  links: RttRange[];
  samples: MoveSample[];
}
