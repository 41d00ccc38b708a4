/**
 * WireGuard configuration files (`wg-quick` format) rendered from the inventory: a node's
 * interface for one connection type names exactly the nodes it has a link of that type with.
 */
import type { Inventory, InventoryNode } from '../../../core/inventory';

export type MeshView = Pick<Inventory, 'nodes' | 'links'>;

export interface WireguardPeer {
  node: string;
  publicKey: string;
  allowedIps: string[];
  /** Absent when the peer has no public address: it connects to us, never the other way. */
  endpoint?: string;
}

/** Keeps a NAT mapping open from a node that has no public address of its own. */
const KEEPALIVE_S = 25;

export function wireguardPeers(mesh: MeshView, node: string, type: number, routedPrefixes: Record<string, string[]> = {}): WireguardPeer[] {
  return mesh.links
    .filter((l) => l.type === type && (l.a === node || l.b === node))
    .map((l) => {
      const [peerEnd] = l.ends.filter((e) => e.node !== node);
      const peer = findNode(mesh, peerEnd.node);
      const wg = peer.wireguard.find((w) => w.type === type);
      if (!wg?.publicKey) throw new Error(`node "${peer.name}" has no WireGuard interface (with a public key) for connection type ${type}`);
      return {
        node: peer.name,
        publicKey: wg.publicKey,
        allowedIps: [`${wg.address}/32`, ...(routedPrefixes[peer.name] ?? [])],
        ...(peer.underlayAddress ? { endpoint: peerEnd.endpoint } : {}),
      };
    });
}

export interface WireguardConfigArgs {
  mesh: MeshView;
  node: string;
  type: number;
  privateKey: string;
  routedPrefixes?: Record<string, string[]>;
  /** Peers left out, to be authorised by a later step. */
  without?: string[];
  /** Forward packets between the tunnel and the node's networks (a broker). */
  forward?: boolean;
}

export function wireguardConfig(args: WireguardConfigArgs): string {
  const self = findNode(args.mesh, args.node);
  const wg = self.wireguard.find((w) => w.type === args.type);
  if (!wg) throw new Error(`node "${args.node}" has no WireGuard interface for connection type ${args.type}`);
  const lines = [
    `# ${wg.name} of ${self.name}: connection type ${args.type}. Written by the fragbench Pulumi stack.`,
    '[Interface]',
    `PrivateKey = ${args.privateKey}`,
    `Address = ${wg.address}/32`,
    `ListenPort = ${wg.listenPort}`,
    ...(args.forward ? ['PostUp = sysctl -q -w net.ipv4.ip_forward=1'] : []),
  ];
  for (const peer of wireguardPeers(args.mesh, args.node, args.type, args.routedPrefixes)) {
    if (args.without?.includes(peer.node)) continue;
    lines.push('', `# ${peer.node}`, '[Peer]', `PublicKey = ${peer.publicKey}`, `AllowedIPs = ${peer.allowedIps.join(', ')}`);
    if (peer.endpoint) lines.push(`Endpoint = ${peer.endpoint}`);
    if (peer.endpoint && !self.underlayAddress) lines.push(`PersistentKeepalive = ${KEEPALIVE_S}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Routes for a peer added to a running interface. `wg-quick up` routes each AllowedIPs entry
 * into the interface, but `wg set` on a live one routes nothing, so the added peer's networks
 * would stay unreachable from this side until the next restart.
 */
export function peerRouteCommands(interfaceName: string, allowedIps: string[]): string[] {
  return allowedIps.map((prefix) => `ip route replace ${prefix} dev ${interfaceName}`);
}

/** Undoes peerRouteCommands; a route already gone is not an error. */
export function peerRouteRemovals(interfaceName: string, allowedIps: string[]): string[] {
  return allowedIps.map((prefix) => `ip route del ${prefix} dev ${interfaceName} 2>/dev/null || true`);
}

export function wireguardConfigPath(interfaceName: string): string {
  return `/etc/wireguard/${interfaceName}.conf`;
}

function findNode(mesh: MeshView, name: string): InventoryNode {
  const node = mesh.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node "${name}" in the mesh`);
  return node;
}
