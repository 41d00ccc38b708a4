/**
 * The local fleet's plan: every name, address and port derived from a topology, before anything
 * is created. Pure, so the address plan is tested without root and `up` and `down` agree on names.
 *
 * Node i (1-based, topology order) lives in namespace `fb-<node>`, reached from the WAN namespace
 * over a veth pair: node side 198.18.<i>.2/24 (`fb-wan`), WAN side 198.18.<i>.1/24 (`fb-<node>`).
 * Its WireGuard interface for connection type t is `fb<node>-<t>` at 198.19.<t>.<i>/24, and its
 * tinc overlay address is 198.19.100.<i>/24.
 */
import { InputError } from '../../core/errors';
import { tincTimers, type TincTimers } from '../../core/failover';
import { resolveStack, stackProblem, type Stack, type StackChoice } from '../../core/stack';
import { clientOf, linkReference, linkType, type Topology } from '../../core/topology';
import type { InventoryLink } from '../../core/inventory';
import type { DistanceModel, Position } from '../../core/site-motion';

/**
 * FRAGBENCH_NETNS_TAG (one lower-case letter, optional) sets this host's local fleets apart from
 * another's running beside them (CI's parallel lanes): namespaces `fb-<tag>-<node>` and
 * `fb-<tag>-wan`, WireGuard interfaces `fb<tag><node>-<type>` (their UAPI sockets share one
 * directory host-wide), and a marker of its own so that one fleet's teardown never takes the
 * other's namespaces. Read once, when the module loads: a process drives one fleet.
 */
export const NETNS_TAG_VARIABLE = 'FRAGBENCH_NETNS_TAG';
export function netnsTag(value = process.env[NETNS_TAG_VARIABLE]): string {
  if (value === undefined || value === '') return '';
  if (!/^[a-z]$/.test(value))
    throw new InputError(NETNS_TAG_VARIABLE, `must be one lower-case letter (it goes into 15-character interface names), got "${value}"`);
  return value;
}
export const NETNS_TAG = netnsTag();
export const NAMESPACE_PREFIX = NETNS_TAG ? `fb-${NETNS_TAG}-` : 'fb-';
export const WAN_NAMESPACE = `${NAMESPACE_PREFIX}wan`;
/** Node-side name of the veth to the WAN namespace (each node namespace has its own). */
export const NODE_UPLINK = 'fb-wan';
export const OVERLAY_INTERFACE = 'fb-overlay';
export const OVERLAY_PREFIX = 24;
export const TINC_PORT = 655;
const WIREGUARD_BASE_PORT = 51820;
const EMULATOR_BASE_PORT = 40000;
const OVERLAY_NET = 100;

export interface PlannedInterface {
  type: number;
  name: string;
  address: string;
  listenPort: number;
}

export interface PlannedNode {
  name: string;
  site: string;
  tags?: string[];
  position?: Position;
  role: 'data' | 'client';
  index: number;
  namespace: string;
  /** Node side of the veth pair (in the node's namespace). */
  underlayAddress: string;
  /** WAN side of the veth pair (in fb-wan), where the emulator listens for this node's links. */
  wanAddress: string;
  /** Name of the WAN-side veth, inside fb-wan. */
  wanInterface: string;
  overlayAddress: string;
  interfaces: PlannedInterface[];
}

export interface PlannedEnd {
  node: string;
  interface: string;
  /** This end's mesh address on the link's connection type. */
  meshAddress: string;
  /** The emulator's address:port on this end's veth: this node sends here to reach the other end. */
  relayAddress: string;
  /** This end's WireGuard address:port, where the emulator delivers. */
  wireguardAddress: string;
}

export interface PlannedLink extends Omit<InventoryLink, 'ends'> {
  /** Position in the topology's link list: the source of every per-link number (port, tc ids). */
  index: number;
  ends: [PlannedEnd, PlannedEnd];
}

export interface FleetPlan {
  name: string;
  /** The network stack between the nodes (core/stack.ts): tinc over WireGuard unless a lighter one was asked for. */
  stack: Stack;
  /** tinc's failure-detection timers, from the topology's failover profile. */
  tinc: TincTimers;
  /** The topology's distance model, carried to the inventory for moves. */
  distance?: Partial<DistanceModel>;
  clientNode: string;
  nodes: PlannedNode[];
  links: PlannedLink[];
}

export function interfaceName(node: string, type: number): string {
  return `fb${NETNS_TAG}${node}-${type}`;
}

export function namespaceOf(node: string): string {
  return `${NAMESPACE_PREFIX}${node}`;
}

/** The plan of `topology`'s fleet; `stack` is a run's choice of network stack over the topology's. */
export function planFleet(topology: Topology, stack?: StackChoice): FleetPlan {
  const resolved = resolveStack(topology.stack, stack);
  const problem = stackProblem(
    resolved,
    topology.nodes.map((n) => n.name),
    topology.links,
  );
  if (problem) throw new InputError('stack.overlay', `${topology.name}: ${problem}`);
  const client = clientOf(topology);
  const typesOf = new Map<string, Set<number>>(topology.nodes.map((n) => [n.name, new Set<number>()]));
  for (const l of topology.links) {
    typesOf.get(l.a)?.add(linkType(l));
    typesOf.get(l.b)?.add(linkType(l));
  }
  const nodes: PlannedNode[] = topology.nodes.map((n, i) => {
    const index = i + 1;
    return {
      name: n.name,
      site: n.site,
      ...(n.tags?.length ? { tags: n.tags } : {}),
      ...(n.position ? { position: n.position } : {}),
      role: n.name === client ? 'client' : 'data',
      index,
      namespace: namespaceOf(n.name),
      underlayAddress: `198.18.${index}.2`,
      wanAddress: `198.18.${index}.1`,
      wanInterface: namespaceOf(n.name),
      overlayAddress: `198.19.${OVERLAY_NET}.${index}`,
      interfaces: [...(typesOf.get(n.name) ?? [])]
        .sort((x, y) => x - y)
        .map((type) => ({
          type,
          name: interfaceName(n.name, type),
          address: `198.19.${type}.${index}`,
          listenPort: WIREGUARD_BASE_PORT + type,
        })),
    };
  });
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const links: PlannedLink[] = topology.links.map((l, index) => {
    const type = linkType(l);
    const port = EMULATOR_BASE_PORT + index;
    const end = (name: string): PlannedEnd => {
      const node = byName.get(name)!;
      const iface = node.interfaces.find((f) => f.type === type)!;
      return {
        node: name,
        interface: iface.name,
        meshAddress: iface.address,
        relayAddress: `${node.wanAddress}:${port}`,
        wireguardAddress: `${node.underlayAddress}:${iface.listenPort}`,
      };
    };
    return { ...linkReference({ ...l, type }), index, ends: [end(l.a), end(l.b)] };
  });
  return {
    name: topology.name,
    stack: resolved,
    clientNode: client,
    nodes,
    links,
    tinc: tincTimers(topology.failover),
    ...(topology.distance ? { distance: topology.distance } : {}),
  };
}

export function planNode(plan: FleetPlan, name: string): PlannedNode {
  const node = plan.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name} in fleet ${plan.name}`);
  return node;
}

/** The far end of a link as seen from `node`, and the near one. */
export function endsFrom(link: PlannedLink, node: string): { near: PlannedEnd; far: PlannedEnd } {
  const [a, b] = link.ends;
  return a.node === node ? { near: a, far: b } : { near: b, far: a };
}
