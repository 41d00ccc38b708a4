/** The local fleet's inventory: the plan with public keys, in the shape every fleet exports. */
import type { Inventory } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';
import { linkReference } from '../../core/topology';
import type { FleetPlan } from './plan';
import { TINC_PACKET_PROTECTION } from './overlay-cost';

export function localInventory(plan: FleetPlan, wireguardPublicKeys: Map<string, string>, wireguard: string, networkCpus?: string): Inventory {
  const inventory: Inventory = {
    schemaVersion: 1,
    name: plan.name,
    source: 'local',
    clientNode: plan.clientNode,
    shaping: 'emulator',
    overlay: { tinc: { ...TINC_PACKET_PROTECTION }, wireguard, failover: plan.tinc, ...(networkCpus !== undefined ? { networkCpus } : {}) },
    nodes: plan.nodes.map((n) => ({
      name: n.name,
      site: n.site,
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
        publicKey: wireguardPublicKeys.get(n.name)!,
      })),
    })),
    links: plan.links.map((l) => ({
      ...linkReference(l),
      // An end's endpoint is where its peer sends: the emulator's port on the peer's own veth.
      ends: [
        { node: l.ends[0].node, interface: l.ends[0].interface, endpoint: l.ends[1].relayAddress },
        { node: l.ends[1].node, interface: l.ends[1].interface, endpoint: l.ends[0].relayAddress },
      ],
    })),
  };
  return validateInventory(inventory, 'local inventory');
}
