/**
 * The VM-shaped fleet's network, all inside 198.18.0.0/15 and in namespaces it creates:
 * - a private LAN (a bridge in `fb-vm-lan`) where every node, jump host included, has `eth0`,
 *   as the VMs of a cloud network do; WireGuard endpoints are these addresses;
 * - the jump host's public side: `eth1`, a point-to-point link to the operator namespace, from
 *   which every ssh starts (the operator's machine on the internet, in the cloud case);
 * - the apt repository, served by the jump host on the LAN.
 */
export const VM_PREFIX = 'fb-vm-';
export const LAN_NAMESPACE = `${VM_PREFIX}lan`;
export const OPERATOR_NAMESPACE = `${VM_PREFIX}op`;
/** On the LAN bridge, so `down` and the next `up` know namespaces this back end made. */
export const VM_NAMESPACE_MARKER = 'fragbench-vm';

export const LAN_PREFIX = 24;
export const JUMP_LAN_ADDRESS = '198.18.240.1';
/** Node i (from 0) of the fleet, the jump host excepted. */
export function nodeLanAddress(index: number): string {
  if (index < 0 || index > 200) throw new Error(`node index ${index} is outside the VM LAN's 201 addresses`);
  return `198.18.240.${index + 10}`;
}
export const OPERATOR_ADDRESS = '198.18.241.1';
export const JUMP_PUBLIC_ADDRESS = '198.18.241.2';
export const PUBLIC_PREFIX = 30;

export const REPOSITORY_PORT = 8080;
export const REPOSITORY_URL = `http://${JUMP_LAN_ADDRESS}:${REPOSITORY_PORT}/`;
