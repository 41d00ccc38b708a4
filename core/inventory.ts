/**
 * The inventory: the fleet as workflows and activities see it. A Pulumi stack exports it as its
 * `inventory` output; the local emulator writes the same shape to its state directory.
 * It never holds a private key: only public keys and addresses.
 * The JSON schema for it is `core/inventory.schema.json`; `validateInventory` checks both.
 */

import type { PathChange } from './overlay-path';
import type { Stack } from './stack';
import type { TincTimers } from './failover';
import type { Direction, DirectionOverride } from './link-conditions';
import type { DistanceModel, Position } from './site-motion';

export type Cloud = 'local' | 'openstack' | 'azure';
export type NodeRole = 'data' | 'client' | 'broker' | 'manager';

/** How to run a command on a node. */
export type ExecTarget =
  | { transport: 'netns'; namespace: string }
  | {
      transport: 'ssh';
      host: string;
      user: string;
      port?: number;
      /** Nodes without a public address are reached through this host (the broker / VM manager). */
      jump?: { host: string; user: string; port?: number };
    };

/** One WireGuard interface on a node: one per connection type it takes part in. */
export interface WireguardInterface {
  /** Connection type this interface carries (see InventoryLink.type). */
  type: number;
  /** Interface name; unique across the host for userspace WireGuard. */
  name: string;
  /** Mesh address of the node on this connection type, e.g. 198.19.0.3. */
  address: string;
  listenPort: number;
  /** WireGuard's public key; absent where the mesh runs without encryption (VXLAN, `stack.encryption: off`). */
  publicKey?: string;
}

export interface InventoryNode {
  /** Lower-case letters and digits, starting with a letter (it becomes part of interface names). */
  name: string;
  site: string;
  /** Groups a scenario's network events can address at once (from the topology). */
  tags?: string[];
  /** Where the node stands at the start (from the topology); `move` events change it at run time. */
  position?: Position;
  cloud: Cloud;
  role: NodeRole;
  /** Address of the node on the tinc overlay: what databases bind to and clients connect to. */
  overlayAddress: string;
  /** Address the node's WireGuard endpoints are reached at (public IP on VMs, veth address locally). */
  underlayAddress?: string;
  /** Cloud-private address, where there is one. */
  privateAddress?: string;
  exec: ExecTarget;
  wireguard: WireguardInterface[];
  /** VM size or flavor, where there is one. */
  size?: string;
  vcpus?: number;
  memoryGiB?: number;
}

export interface LinkEnd {
  node: string;
  /** WireGuard interface carrying this link on that node. */
  interface: string;
  /** Where the peer sends to reach this end, host:port. */
  endpoint: string;
}

export interface InventoryLink {
  /** `<a>-<b>/<type>`, e.g. `sydney-pune/0`. */
  id: string;
  a: string;
  b: string;
  /** Connection type: a pair of nodes may have several links, one per type. */
  type: number;
  /** Reference round-trip latency (what ping reports), before any scaling. */
  latencyMs: number;
  /** Reference bandwidth, before any scaling. */
  bandwidthMbps: number;
  /** Reference random loss per direction, 0..100 (absent: none). */
  lossPercent?: number;
  /** Reference jitter per direction, ms (absent: none). */
  jitterMs?: number;
  /** What one direction has of its own (one-way delay, cap, loss, jitter); `latencyMs` is then the
   *  sum of the two directions' delays. */
  directions?: Partial<Record<Direction, DirectionOverride>>;
  /** True when the reference value is an estimate rather than a measurement. */
  estimated?: boolean;
  ends: [LinkEnd, LinkEnd];
}

export interface Inventory {
  schemaVersion: 1;
  /** Topology or stack name, e.g. `fhc-8dc` or `hybrid-virginia`. */
  name: string;
  source: 'local' | 'pulumi' | 'file';
  nodes: InventoryNode[];
  links: InventoryLink[];
  /** Name of the node that runs the load client. */
  clientNode: string;
  /** How link shaping is done on this fleet. */
  shaping: 'emulator' | 'tc';
  /**
   * What that shaping cannot apply, one sentence each: the VM-shaped local nodes' kernel has no
   * netem, so their tc back end caps rates and cuts links but applies no delay, loss or jitter.
   * Results carry it with the inventory, and the report says it.
   */
  shapingLimits?: string[];
  /** How the overlay is set up where it differs from the published stack's defaults. */
  overlay?: OverlaySettings;
  /** The network stack between the nodes (core/stack.ts); absent: the published one, tinc over WireGuard. */
  stack?: Stack;
  /** The topology's distance model, where it gave one: moves use its ms of RTT per km. */
  distance?: Partial<DistanceModel>;
}

/**
 * The overlay's settings that a result must carry. The local fleet turns tinc's own encryption
 * off (WireGuard underneath already encrypts and authenticates the same packets), which makes its
 * per-packet cost lower than that of the published set-up; absent means tinc's defaults.
 */
export interface OverlaySettings {
  /** tinc's packet protection; absent on a stack without tinc (`stack.overlay: none`). */
  tinc?: { cipher: string; digest: string; macLength: number; compression: number };
  /** The WireGuard implementation and version, where it is a userspace one (e.g. "boringtun 0.7.1"). */
  wireguard?: string;
  /** tinc's failure-detection timers (s): how soon the overlay re-routes around a dead link. */
  failover?: TincTimers;
  /**
   * The CPUs (taskset list) the local fleet's network daemons were pinned to; absent: not pinned.
   * Results carry it: the stack's latency and CPU figures depend on it.
   */
  networkCpus?: string;
  /**
   * The path each pair's packets took when the inventory was taken (a run's start on the local
   * fleet; a run's phases record each change after). Absent: not read (VM fleets, Pulumi stacks).
   */
  paths?: PathChange[];
}

export function linkId(a: string, b: string, type: number): string {
  return `${a}-${b}/${type}`;
}

export function findNode(inventory: Inventory, name: string): InventoryNode {
  const node = inventory.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node named "${name}" in inventory ${inventory.name}`);
  return node;
}

export function findLink(inventory: Inventory, id: string): InventoryLink {
  const link = inventory.links.find((l) => l.id === id);
  if (!link) throw new Error(`no link "${id}" in inventory ${inventory.name}`);
  return link;
}

export function dataNodes(inventory: Inventory): InventoryNode[] {
  return inventory.nodes.filter((n) => n.role === 'data');
}
