/**
 * The stack's `inventory` output: the plan plus what only the clouds and key resources know
 * (public addresses, WireGuard public keys). Public keys only: private keys never reach it.
 */
import * as pulumi from '@pulumi/pulumi';
import { linkId, type ExecTarget, type Inventory, type InventoryNode } from '../../core/inventory';
import { interfaceKey, plannedNode, type FleetPlan, type PlannedNode } from './plan';

export interface ResolvedFleet {
  /** Public address per node that has one. */
  publicAddresses: Record<string, string>;
  /** WireGuard public key per `<node>/<type>`. */
  publicKeys: Record<string, string>;
}

export function buildInventory(plan: FleetPlan, resolved: ResolvedFleet): Inventory {
  const nodes = plan.nodes.map((n) => inventoryNode(plan, n, resolved));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const end = (name: string, type: number) => {
    const node = byName.get(name) as InventoryNode;
    const wg = plannedNode(plan, name).wireguard.find((w) => w.type === type);
    if (!wg) throw new Error(`node "${name}" has no WireGuard interface for connection type ${type}`);
    // A node without a public address is not reachable from outside: its peers wait for it to
    // connect first (see wireguardConfig), and this endpoint is only where it listens.
    return { node: name, interface: wg.name, endpoint: `${node.underlayAddress ?? node.privateAddress}:${wg.listenPort}` };
  };
  return {
    schemaVersion: 1,
    name: plan.name,
    source: 'pulumi',
    nodes,
    // Everything a planned link has is its reference (latency, bandwidth, loss, jitter, per-direction values).
    links: plan.links.map(({ a, b, type, ...reference }) => ({
      id: linkId(a, b, type),
      a,
      b,
      type,
      ...reference,
      ends: [end(a, type), end(b, type)],
    })),
    clientNode: plan.clientNode,
    shaping: 'tc',
    ...(plan.distance ? { distance: plan.distance } : {}),
  };
}

function inventoryNode(plan: FleetPlan, n: PlannedNode, resolved: ResolvedFleet): InventoryNode {
  const publicAddress = resolved.publicAddresses[n.name];
  if (n.hasPublicAddress && !publicAddress) throw new Error(`node "${n.name}" should have a public address and has none`);
  return {
    name: n.name,
    site: n.site,
    ...(n.tags ? { tags: n.tags } : {}),
    ...(n.position ? { position: n.position } : {}),
    cloud: n.cloud,
    role: n.role,
    overlayAddress: n.overlayAddress,
    ...(publicAddress ? { underlayAddress: publicAddress } : {}),
    privateAddress: n.privateAddress,
    exec: execTarget(plan, n, resolved),
    wireguard: n.wireguard.map((w) => {
      const publicKey = resolved.publicKeys[interfaceKey(n.name, w.type)];
      if (!publicKey) throw new Error(`no public key for ${interfaceKey(n.name, w.type)}`);
      return { ...w, publicKey };
    }),
    size: n.size.name,
    vcpus: n.size.vcpus,
    memoryGiB: n.size.memoryGiB,
  };
}

function execTarget(plan: FleetPlan, n: PlannedNode, resolved: ResolvedFleet): ExecTarget {
  const publicAddress = resolved.publicAddresses[n.name];
  if (publicAddress) return { transport: 'ssh', host: publicAddress, user: plan.sshUser };
  const jump = plan.jumpHost && resolved.publicAddresses[plan.jumpHost];
  if (!jump) throw new Error(`node "${n.name}" has no public address and the plan has no jump host with one`);
  return { transport: 'ssh', host: n.privateAddress, user: plan.sshUser, jump: { host: jump, user: plan.sshUser } };
}

/** Resolves the plan's public addresses and keys (Pulumi outputs) into the inventory. */
export function inventoryOutput(
  plan: FleetPlan,
  publicAddresses: Record<string, pulumi.Input<string>>,
  publicKeys: Record<string, pulumi.Input<string>>,
): pulumi.Output<Inventory> {
  return pulumi
    .all([pulumi.all(publicAddresses), pulumi.all(publicKeys)])
    .apply(([addresses, keys]) => buildInventory(plan, { publicAddresses: addresses, publicKeys: keys }));
}

/**
 * The inventory as published: only once the given resources (the commands that configure the
 * VMs) exist, so a scenario reading the stack output never finds a fleet still being set up.
 */
export function inventoryAfter(inventory: pulumi.Output<Inventory>, resources: pulumi.CustomResource[]): pulumi.Output<Inventory> {
  return pulumi.all([inventory, pulumi.all(resources.map((r) => r.id))]).apply(([published]) => published);
}
