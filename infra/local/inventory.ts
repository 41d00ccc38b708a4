/** The local fleet's inventory: the plan with public keys, in the shape every fleet exports. */
import type { Inventory } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';
import type { FleetPlan } from './plan';
import { TINC_PACKET_PROTECTION } from './overlay-cost';

/**
 * `wireguard` is the WireGuard implementation that runs the mesh, absent on a stack without
 * encryption (whose interfaces then have no keys).
 */
export function localInventory(plan: FleetPlan, wireguardPublicKeys: Map<string, string>, wireguard?: string, networkCpus?: string): Inventory {
  const tinc = plan.stack.overlay === 'tinc';
  const inventory: Inventory = {
    schemaVersion: 1,
    name: plan.name,
    source: 'local',
    clientNode: plan.clientNode,
    shaping: 'emulator',
    ...(plan.distance ? { distance: plan.distance } : {}),
    stack: plan.stack,
    overlay: {
      ...(tinc ? { tinc: { ...TINC_PACKET_PROTECTION }, failover: plan.tinc } : {}),
      ...(wireguard !== undefined ? { wireguard } : {}),
      ...(networkCpus !== undefined ? { networkCpus } : {}),
    },
    nodes: plan.nodes.map((n) => ({
      name: n.name,
      site: n.site,
      ...(n.tags ? { tags: n.tags } : {}),
      ...(n.position ? { position: n.position } : {}),
      cloud: 'local',
      role: n.role,
      overlayAddress: n.overlayAddress,
      underlayAddress: n.underlayAddress,
      exec: { transport: 'netns', namespace: n.namespace },
      wireguard: n.interfaces.map((i) => ({
        type: i.type,
        name: i.name,
        address: i.address,
        listenPort: i.listenPort,
        ...(wireguardPublicKeys.has(n.name) ? { publicKey: wireguardPublicKeys.get(n.name) } : {}),
      })),
    })),
    // A planned link is its id and reference (latency, bandwidth, loss, jitter, per-direction values) plus its ends.
    links: plan.links.map(({ index: _index, ends, ...reference }) => ({
      ...reference,
      // An end's endpoint is where its peer sends: the emulator's port on the peer's own veth.
      ends: [
        { node: ends[0].node, interface: ends[0].interface, endpoint: ends[1].relayAddress },
        { node: ends[1].node, interface: ends[1].interface, endpoint: ends[0].relayAddress },
      ],
    })),
  };
  return validateInventory(inventory, 'local inventory');
}
