/**
 * The light stack without encryption (`encryption: off`, core/stack.ts): each node's mesh
 * interface of a connection type is a kernel VXLAN device instead of a WireGuard daemon. It sends
 * each peer's frames, as UDP from its own port, to the emulator's port for that link (the same
 * relay address a WireGuard peer's endpoint would be), and receives on that port what the emulator
 * delivers, so every datagram still crosses the emulator; no userspace process handles it on
 * either node. Peers are static: a fixed MAC per interface, a permanent neighbour entry for each
 * peer's mesh address and a forwarding entry that sends the peer's MAC to the relay.
 */
import { netnsArgv, runHost } from '../../platform/command';
import { MESH_MTU } from './overlay-cost';
import { endsFrom, type FleetPlan, type PlannedInterface, type PlannedNode } from './plan';
import { ipBatch } from './namespaces';

const hex = (n: number) => n.toString(16).padStart(2, '0');

/** A locally administered MAC, unique per node and connection type. */
export function meshMac(nodeIndex: number, type: number): string {
  return `02:fb:${hex(type)}:00:${hex(nodeIndex >> 8)}:${hex(nodeIndex & 0xff)}`;
}

/** The `ip` and `bridge` batch lines that make `iface` on `node` and point it at its peers. */
export function vxlanCommands(plan: FleetPlan, node: PlannedNode, iface: PlannedInterface): { ip: string[]; bridge: string[] } {
  const ip = [
    // The source port fixed at the listening one: the emulator accepts a link's datagrams only from
    // the address it delivers to (a VXLAN device hashes flows over [min, max), here one port).
    `link add ${iface.name} type vxlan id ${iface.type + 1} local ${node.underlayAddress} dstport ${iface.listenPort} srcport ${iface.listenPort} ${iface.listenPort + 1} nolearning`,
    `link set ${iface.name} address ${meshMac(node.index, iface.type)} mtu ${MESH_MTU}`,
    `addr add ${iface.address}/24 dev ${iface.name}`,
    `link set ${iface.name} up`,
  ];
  const bridge: string[] = [];
  for (const link of plan.links.filter((l) => l.type === iface.type && (l.a === node.name || l.b === node.name))) {
    const { near, far } = endsFrom(link, node.name);
    const peer = plan.nodes.find((n) => n.name === far.node)!;
    const mac = meshMac(peer.index, iface.type);
    const [relayIp, relayPort] = near.relayAddress.split(':');
    ip.push(`neigh add ${far.meshAddress} lladdr ${mac} dev ${iface.name} nud permanent`);
    bridge.push(`fdb add ${mac} dev ${iface.name} dst ${relayIp} port ${relayPort}`);
  }
  return { ip, bridge };
}

/** Creates one VXLAN mesh interface in the node's namespace, with its peers. */
export async function createVxlanInterface(plan: FleetPlan, node: PlannedNode, iface: PlannedInterface): Promise<void> {
  const { ip, bridge } = vxlanCommands(plan, node, iface);
  await ipBatch(ip, node.namespace);
  await runHost(['ip', 'netns', 'exec', node.namespace, 'bridge', '-batch', '-'], { input: bridge.join('\n') + '\n' }, node.namespace);
  // The inner packets' checksums are otherwise left for a NIC to fill in; here the frames reach the
  // emulator's socket through a veth and are relayed as they are, so TCP would see bad checksums
  // and drop every segment (ping, checksummed in software, still passed).
  await runHost(netnsArgv(node.namespace, ['ethtool', '-K', iface.name, 'tx', 'off']));
}
