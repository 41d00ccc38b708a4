/**
 * A topology: the fleet to build, as a user writes it (before any key, address or process exists).
 * Files live in `topologies/` (YAML or JSON, schema `topologies/topology.schema.json`); the
 * local fleet turns one into namespaces and links, and its inventory keeps the reference values.
 */
import type { FailoverProfile } from './failover';
import { linkId } from './inventory';
import type { Direction, DirectionOverride, LinkReferenceConditions } from './link-conditions';
import type { DistanceModel, Position } from './site-motion';
import type { StackChoice } from './stack';

export interface TopologyNode {
  /**
   * Lower-case letters and digits, starting with a letter, at most 10 characters: the node's
   * WireGuard interfaces are named `fb<node>-<type>` and Linux allows 15 characters.
   */
  name: string;
  /** Where the node stands (a datacenter, a city); several nodes may share a site. */
  site: string;
  /** Groups a scenario's network events can address at once, e.g. `mobile`. */
  tags?: string[];
  /** Where the node stands on the globe: links to other positioned nodes may take their latency
   *  from the distance model, and `move` events move it. */
  position?: Position;
  note?: string;
}

export interface TopologyLink {
  a: string;
  b: string;
  /** Connection type (0..99, default 0): a pair of nodes may have one link per type. */
  type?: number;
  /** Round-trip latency, what ping reports between the two nodes (split evenly over the two
   *  directions). May be left out when both directions give their own `delayMs`, or when both
   *  nodes have a position: the distance model then gives it (see `distance`). */
  latencyMs?: number;
  /** Bandwidth cap, applied in each direction. May be left out when both directions give their own. */
  bandwidthMbps?: number;
  /** Random loss in each direction, 0..100 (default 0). */
  lossPercent?: number;
  /** Standard deviation of each direction's one-way delay (default 0); packets keep their order. */
  jitterMs?: number;
  /** What the a -> b direction does differently: its one-way `delayMs`, `bandwidthMbps`, `lossPercent`, `jitterMs`. */
  'a->b'?: DirectionOverride;
  /** The same for b -> a. */
  'b->a'?: DirectionOverride;
  /** True when a value is an estimate rather than a measurement (say which in `note`). */
  estimated?: boolean;
  note?: string;
}

export interface Topology {
  name: string;
  description?: string;
  /** Where the numbers come from. */
  source?: string;
  /** The node that runs the load client; the first node when omitted. */
  client?: string;
  /** How fast the overlay re-routes around a dead link (see FailoverProfile). */
  failover?: FailoverProfile;
  /** How latency follows distance between positioned nodes (defaults: DEFAULT_DISTANCE_MODEL). */
  distance?: Partial<DistanceModel>;
  /** The network stack between the nodes (core/stack.ts); the published one when omitted. */
  stack?: StackChoice;
  nodes: TopologyNode[];
  links: TopologyLink[];
}

export const NODE_NAME_PATTERN = /^[a-z][a-z0-9]{0,9}$/;
/** Names the local fleet uses for itself (the `fb-wan` namespace). */
export const RESERVED_NODE_NAMES = ['wan'];
export const MAX_CONNECTION_TYPE = 99;
/** Node i gets underlay subnet 198.18.<i>.0/24 and mesh address 198.19.<type>.<i>. */
export const MAX_NODES = 250;

/** The topology's key for each direction of a link. */
export const DIRECTION_KEYS: Record<Direction, 'a->b' | 'b->a'> = { ab: 'a->b', ba: 'b->a' };

/**
 * A link's reference conditions as inventories keep them: the round trip is the sum of the two
 * directions' delays, the bandwidth the shared cap (or, with only per-direction caps, the smaller).
 * `validateTopology` has made sure every direction has a delay and a cap.
 */
export function linkConditionsOf(link: TopologyLink): LinkReferenceConditions {
  const ab = link['a->b'];
  const ba = link['b->a'];
  const half = (link.latencyMs ?? 0) / 2;
  const latencyMs = (ab?.delayMs ?? half) + (ba?.delayMs ?? half);
  const caps = [ab?.bandwidthMbps ?? link.bandwidthMbps, ba?.bandwidthMbps ?? link.bandwidthMbps].filter(
    (c): c is number => c !== undefined && c !== null,
  );
  // With per-direction values each direction keeps its own delay: the shared latencyMs becomes
  // the sum, so half of it is no longer either direction's delay.
  const directions = { ab: { ...ab, delayMs: ab?.delayMs ?? half }, ba: { ...ba, delayMs: ba?.delayMs ?? half } };
  return {
    latencyMs,
    bandwidthMbps: link.bandwidthMbps ?? Math.min(...caps),
    ...(link.lossPercent ? { lossPercent: link.lossPercent } : {}),
    ...(link.jitterMs ? { jitterMs: link.jitterMs } : {}),
    ...(ab || ba ? { directions } : {}),
  };
}

/** A link's id and reference values, as plans and inventories carry them. */
export function linkReference(link: TopologyLink & { type: number }) {
  const { a, b, type } = link;
  return { id: linkId(a, b, type), a, b, type, ...linkConditionsOf(link), ...(link.estimated ? { estimated: true } : {}) };
}

export function linkType(link: TopologyLink): number {
  return link.type ?? 0;
}

export function clientOf(topology: Topology): string {
  return topology.client ?? topology.nodes[0].name;
}
