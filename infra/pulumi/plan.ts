/**
 * A fleet plan: every node, address, size, WireGuard interface and link of a stack, worked out
 * from its settings before any resource exists. Addresses are fixed here (not left to DHCP) so
 * routes, WireGuard configs and the inventory can be written down from the plan alone; only
 * public addresses and public keys come from the clouds and the key resources.
 */
import type { InventoryLink, NodeRole, WireguardInterface } from '../../core/inventory';
import type { DistanceModel, Position } from '../../core/site-motion';
import type { VmCloud, VmSize } from './catalog';

/** A WireGuard interface before its key exists. */
export type PlannedInterface = Omit<WireguardInterface, 'publicKey'>;

export interface PlannedNode {
  name: string;
  site: string;
  cloud: VmCloud;
  /** Azure location, for nodes in Azure. */
  location?: string;
  role: NodeRole;
  privateAddress: string;
  /** What databases bind to and clients connect to. */
  overlayAddress: string;
  size: VmSize;
  /** Root disk size to ask for where the cloud lets a VM choose (Azure). */
  diskGB?: number;
  hasPublicAddress: boolean;
  wireguard: PlannedInterface[];
  /** The topology's tags and position of the node, where it gave them: events address them, moves start there. */
  tags?: string[];
  position?: Position;
}

/** A link before its ends' endpoints are known. */
export type PlannedLink = Omit<InventoryLink, 'id' | 'ends'>;

export interface FleetPlan {
  name: string;
  nodes: PlannedNode[];
  links: PlannedLink[];
  clientNode: string;
  sshUser: string;
  /** Node through which nodes without a public address are reached over SSH. */
  jumpHost?: string;
  /** Networks reached through a node's WireGuard tunnel besides the node itself (its AllowedIPs). */
  routedPrefixes: Record<string, string[]>;
  /** The topology's distance model, where it gave one: moves follow it. */
  distance?: Partial<DistanceModel>;
}

export function plannedNode(plan: FleetPlan, name: string): PlannedNode {
  const node = plan.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node "${name}" in the plan of ${plan.name}`);
  return node;
}

/** The key pairs a plan needs, one per WireGuard interface: `<node>/<type>`. */
export function interfaceKeyNames(plan: FleetPlan): string[] {
  return plan.nodes.flatMap((n) => n.wireguard.map((w) => interfaceKey(n.name, w.type)));
}

export function interfaceKey(node: string, type: number): string {
  return `${node}/${type}`;
}
