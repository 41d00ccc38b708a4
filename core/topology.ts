/**
 * A topology: the fleet to build, as a user writes it (before any key, address or process exists).
 * Files live in `topologies/` (YAML or JSON, schema `topologies/topology.schema.json`); the
 * local fleet turns one into namespaces and links, and its inventory keeps the reference values.
 */
import type { FailoverProfile } from './failover';
import { linkId } from './inventory';

export interface TopologyNode {
  /**
   * Lower-case letters and digits, starting with a letter, at most 10 characters: the node's
   * WireGuard interfaces are named `fb<node>-<type>` and Linux allows 15 characters.
   */
  name: string;
  /** Where the node stands (a datacenter, a city); several nodes may share a site. */
  site: string;
  note?: string;
}

export interface TopologyLink {
  a: string;
  b: string;
  /** Connection type (0..99, default 0): a pair of nodes may have one link per type. */
  type?: number;
  /** Round-trip latency, what ping reports between the two nodes. */
  latencyMs: number;
  /** Bandwidth cap, applied in each direction. */
  bandwidthMbps: number;
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
  nodes: TopologyNode[];
  links: TopologyLink[];
}

export const NODE_NAME_PATTERN = /^[a-z][a-z0-9]{0,9}$/;
/** Names the local fleet uses for itself (the `fb-wan` namespace). */
export const RESERVED_NODE_NAMES = ['wan'];
export const MAX_CONNECTION_TYPE = 99;
/** Node i gets underlay subnet 198.18.<i>.0/24 and mesh address 198.19.<type>.<i>. */
export const MAX_NODES = 250;

/** A link's id and reference values, as plans and inventories carry them. */
export function linkReference(link: { a: string; b: string; type: number; latencyMs: number; bandwidthMbps: number; estimated?: boolean }) {
  const { a, b, type, latencyMs, bandwidthMbps } = link;
  return { id: linkId(a, b, type), a, b, type, latencyMs, bandwidthMbps, ...(link.estimated ? { estimated: true } : {}) };
}

export function linkType(link: TopologyLink): number {
  return link.type ?? 0;
}

export function clientOf(topology: Topology): string {
  return topology.client ?? topology.nodes[0].name;
}
