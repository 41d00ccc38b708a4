/**
 * cloud-init user data for every VM: the SSH keys allowed in and the packages the fleet needs.
 * It carries public keys only; private keys go over SSH afterwards (see remote.ts).
 */
import { stringify } from 'yaml';

export interface CloudInitArgs {
  sshPublicKeys: string[];
  packages: string[];
}

export function cloudInit(args: CloudInitArgs): string {
  return `#cloud-config\n${stringify({ ssh_authorized_keys: args.sshPublicKeys, package_update: true, packages: args.packages })}`;
}

export const PACKAGES = {
  broker: ['wireguard-tools'],
  node: ['iproute2', 'iperf3'],
  meshNode: ['wireguard-tools', 'tinc', 'iperf3'],
};
