/** One VM for one planned node, in whichever cloud the plan put it. */
import * as pulumi from '@pulumi/pulumi';
import type { PlannedNode } from '../plan';
import { AzureVm, type AzureVmHome } from './azure';
import { OpenStackVm, type OpenStackNetwork, type OpenStackPortSpec } from './openstack';

export interface OpenStackPlacement {
  cloud: 'openstack';
  stack: string;
  network: OpenStackNetwork;
  securityGroupIds: pulumi.Input<string>[];
  imageName: string;
  floatingIpPool: string;
  userData: pulumi.Input<string>;
}

export interface AzurePlacement extends AzureVmHome {
  cloud: 'azure';
}

export type VmPlacement = OpenStackPlacement | AzurePlacement;

export interface NodeVm {
  id: pulumi.Output<string>;
  publicAddress?: pulumi.Output<string>;
  /** The VM's component, for dependsOn. */
  resource: pulumi.Resource;
}

export interface NodeVmExtras {
  /** Foreign source addresses the VM may send from (OpenStack port security). */
  allowedAddressPairs?: string[];
  /** Packet forwarding on the NIC (Azure). */
  ipForwarding?: boolean;
}

export function nodeVm(
  name: string,
  node: PlannedNode,
  where: VmPlacement,
  extras: NodeVmExtras = {},
  opts?: pulumi.ComponentResourceOptions,
): NodeVm {
  if (node.cloud !== where.cloud) throw new Error(`node "${node.name}" is planned in ${node.cloud} but placed in ${where.cloud}`);
  if (where.cloud === 'openstack') {
    const port: OpenStackPortSpec = {
      network: where.network,
      fixedIp: node.privateAddress,
      securityGroupIds: where.securityGroupIds,
      ...(extras.allowedAddressPairs ? { allowedAddressPairs: extras.allowedAddressPairs } : {}),
    };
    const vm = new OpenStackVm(
      name,
      { stack: where.stack, node, ports: [port], imageName: where.imageName, userData: where.userData, floatingIpPool: where.floatingIpPool },
      opts,
    );
    return { id: vm.instance.id, publicAddress: vm.publicAddress, resource: vm };
  }
  const vm = new AzureVm(name, { ...where, node, ipForwarding: extras.ipForwarding }, opts);
  return { id: vm.vm.id, publicAddress: vm.publicAddress, resource: vm };
}
