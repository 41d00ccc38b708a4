/**
 * The root scripts of the hybrid tunnel's steps (components/hybrid-tunnel.ts), rendered from the
 * inventory and the keys. The stack sends them to the brokers (remote.ts); the VM-shaped local
 * nodes run the same scripts through the SSH executor (test/netns/vm-hybrid-tunnel.test.ts).
 */
import type { Inventory } from '../../../core/inventory';
import { HYBRID_NODES } from '../plan-hybrid';
import { writeFilesScript, type FileSpec } from './files-script';
import {
  peerRouteCommands,
  peerRouteRemovals,
  wireguardConfig,
  wireguardConfigPath,
  wireguardPeers,
  type MeshView,
  type WireguardPeer,
} from './wireguard';

const { consumer, donor } = HYBRID_NODES;
export const TUNNEL_INTERFACE = 'wg0';
export const TUNNEL_TYPE = 0;
const START_TUNNEL = [`systemctl enable wg-quick@${TUNNEL_INTERFACE}`, `systemctl restart wg-quick@${TUNNEL_INTERFACE}`];

/** A broker's tunnel config; `without` names peers a later step authorises. */
export function tunnelConfig(mesh: MeshView, routedPrefixes: Record<string, string[]>, node: string, privateKey: string, without: string[]): string {
  return wireguardConfig({ mesh, node, type: TUNNEL_TYPE, privateKey, routedPrefixes, without, forward: true });
}

/** (i)-(ii) The donor's first config, with no peer yet, started. */
export function donorTunnelScript(donorConfig: string): string {
  return writeFilesScript(tunnelConfigFile(donorConfig), START_TUNNEL);
}

/** (iii)-(iv) The consumer's config and its shared interface (the port with this MAC), started. */
export function consumerTunnelScript(consumerConfig: string, sharedMac: string): string {
  return writeFilesScript({ ...tunnelConfigFile(consumerConfig), ...sharedInterfaceNetplan(sharedMac) }, ['netplan apply', ...START_TUNNEL]);
}

/** The consumer as the donor's peer: its key and networks. */
export function consumerPeerOfDonor(inventory: Pick<Inventory, 'nodes' | 'links'>, routedPrefixes: Record<string, string[]>): WireguardPeer {
  const peer = wireguardPeers(inventory, donor, TUNNEL_TYPE, routedPrefixes).find((p) => p.node === consumer);
  if (!peer) throw new Error(`the inventory has no ${consumer}-${donor} link`);
  return peer;
}

/**
 * (v) Authorise: the peer goes into the running interface with routes to the consumer's networks
 * (`wg set` adds none), and the donor's config file is rewritten whole (`donorConfig` names the
 * consumer), so a restart or reboot keeps both.
 */
export function authoriseScript(peer: WireguardPeer, donorConfig: string): string {
  return writeFilesScript(tunnelConfigFile(donorConfig), [
    `wg set ${TUNNEL_INTERFACE} peer ${peer.publicKey} allowed-ips ${peer.allowedIps.join(',')}`,
    ...peerRouteCommands(TUNNEL_INTERFACE, peer.allowedIps),
  ]);
}

/** Undoes authoriseScript on the running interface and in its config file. */
export function deauthoriseCommand(peer: WireguardPeer): string {
  return [
    `wg set ${TUNNEL_INTERFACE} peer ${peer.publicKey} remove`,
    ...peerRouteRemovals(TUNNEL_INTERFACE, peer.allowedIps),
    `wg-quick save ${TUNNEL_INTERFACE}`,
  ].join('\n');
}

function tunnelConfigFile(conf: string): Record<string, FileSpec> {
  return { [wireguardConfigPath(TUNNEL_INTERFACE)]: { content: conf, mode: '600' } };
}

/** Netplan for the consumer broker's hot-plugged shared interface: an address, no default route. */
function sharedInterfaceNetplan(mac: string): Record<string, FileSpec> {
  const yaml = [
    'network:',
    '  version: 2',
    '  ethernets:',
    '    fbshared:',
    `      match: { macaddress: "${mac}" }`,
    '      dhcp4: true',
    '      dhcp4-overrides: { use-routes: false, use-dns: false }',
  ].join('\n');
  return { '/etc/netplan/60-fragbench-shared.yaml': { content: yaml, mode: '600' } };
}
