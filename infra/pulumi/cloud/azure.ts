/**
 * The Azure building blocks: a VNet with one subnet, a network security group, a VM with a static
 * private address. Deep imports of @pulumi/azure-native keep type checking fast.
 */
import * as pulumi from '@pulumi/pulumi';
import * as compute from '@pulumi/azure-native/compute';
import * as network from '@pulumi/azure-native/network';
import { REPLACE_VM_FIRST, cloudName } from '../names';
import type { PlannedNode } from '../plan';
import type { AzureImage } from '../settings';
import { ANYWHERE, type IngressRule } from './exposure';

export interface AzureNetworkArgs {
  resourceGroupName: pulumi.Input<string>;
  location: string;
  cidr: string;
  networkSecurityGroupId?: pulumi.Input<string>;
  routeTableId?: pulumi.Input<string>;
  /** The way out for VMs without a public IP of their own (see natGateway). */
  natGatewayId?: pulumi.Input<string>;
}

export class AzureNetwork extends pulumi.ComponentResource {
  readonly vnet: network.VirtualNetwork;
  readonly subnet: network.Subnet;

  constructor(name: string, args: AzureNetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:azure:Network', name, {}, opts);
    const parent = { parent: this };
    this.vnet = new network.VirtualNetwork(
      name,
      { resourceGroupName: args.resourceGroupName, location: args.location, addressSpace: { addressPrefixes: [args.cidr] } },
      parent,
    );
    this.subnet = new network.Subnet(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        virtualNetworkName: this.vnet.name,
        addressPrefix: args.cidr,
        ...(args.networkSecurityGroupId ? { networkSecurityGroup: { id: args.networkSecurityGroupId } } : {}),
        ...(args.routeTableId ? { routeTable: { id: args.routeTableId } } : {}),
        ...(args.natGatewayId ? { natGateway: { id: args.natGatewayId } } : {}),
        // Azure is retiring implicit outbound access: a VM goes out through its own public IP
        // or the subnet's NAT gateway, and nothing else, so its source address is known.
        defaultOutboundAccess: false,
      },
      parent,
    );
    this.registerOutputs({ vnetId: this.vnet.id, subnetId: this.subnet.id });
  }
}

export interface AzureHomeArgs {
  resourceGroupName: pulumi.Input<string>;
  location: string;
}

/** A NAT gateway with its own static public IP: explicit outbound access for a subnet's VMs. */
export function natGateway(name: string, args: AzureHomeArgs, opts?: pulumi.CustomResourceOptions): network.NatGateway {
  const address = new network.PublicIPAddress(`${name}-nat`, { ...args, sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' }, opts);
  return new network.NatGateway(name, { ...args, sku: { name: 'Standard' }, publicIpAddresses: [{ id: address.id }] }, opts);
}

export interface AzureSecurityGroupArgs {
  resourceGroupName: pulumi.Input<string>;
  location: string;
  rules: IngressRule[];
}

/**
 * A network security group allowing exactly the given rules in, on top of Azure's defaults
 * (which let in only the VNet and the load balancer probe, and deny the rest).
 */
export function azureSecurityGroup(name: string, args: AzureSecurityGroupArgs, opts?: pulumi.CustomResourceOptions): network.NetworkSecurityGroup {
  return new network.NetworkSecurityGroup(
    name,
    {
      resourceGroupName: args.resourceGroupName,
      location: args.location,
      securityRules: args.rules.map((rule, i) => ({
        name: `fb-in-${i}`,
        description: rule.description,
        priority: 100 + 10 * i,
        direction: 'Inbound',
        access: 'Allow',
        protocol: rule.protocol === 'any' ? '*' : rule.protocol === 'udp' ? 'Udp' : 'Tcp',
        sourceAddressPrefix: rule.from === ANYWHERE ? '*' : rule.from,
        sourcePortRange: '*',
        destinationAddressPrefix: '*',
        destinationPortRange: !rule.ports ? '*' : rule.ports[0] === rule.ports[1] ? `${rule.ports[0]}` : `${rule.ports[0]}-${rule.ports[1]}`,
      })),
    },
    opts,
  );
}

/** Where and how Azure VMs of a fleet are made. */
export interface AzureVmHome {
  stack: string;
  resourceGroupName: pulumi.Input<string>;
  subnetId: pulumi.Input<string>;
  image: AzureImage;
  adminUser: string;
  sshPublicKey: string;
  /** cloud-init user data (plain text; encoded here). */
  userData: pulumi.Input<string>;
}

export interface AzureVmArgs extends AzureVmHome {
  node: PlannedNode;
  /** Let the VM forward packets for other addresses (a broker). */
  ipForwarding?: boolean;
}

export class AzureVm extends pulumi.ComponentResource {
  readonly vm: compute.VirtualMachine;
  readonly nic: network.NetworkInterface;
  readonly publicAddress?: pulumi.Output<string>;

  constructor(name: string, args: AzureVmArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:azure:Vm', name, {}, opts);
    const { node } = args;
    const parent = { parent: this };
    const location = node.location;
    if (!location) throw new Error(`node "${node.name}" is in Azure but has no location`);
    const publicIp = node.hasPublicAddress
      ? new network.PublicIPAddress(
          name,
          { resourceGroupName: args.resourceGroupName, location, sku: { name: 'Standard' }, publicIPAllocationMethod: 'Static' },
          parent,
        )
      : undefined;
    this.nic = new network.NetworkInterface(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location,
        enableIPForwarding: args.ipForwarding ?? false,
        ipConfigurations: [
          {
            name: 'primary',
            primary: true,
            subnet: { id: args.subnetId },
            privateIPAllocationMethod: 'Static',
            privateIPAddress: node.privateAddress,
            ...(publicIp ? { publicIPAddress: { id: publicIp.id } } : {}),
          },
        ],
      },
      parent,
    );
    this.vm = new compute.VirtualMachine(
      name,
      {
        resourceGroupName: args.resourceGroupName,
        location,
        vmName: cloudName(args.stack, node.name),
        hardwareProfile: { vmSize: node.size.name },
        storageProfile: {
          imageReference: args.image,
          osDisk: {
            createOption: 'FromImage',
            deleteOption: 'Delete',
            managedDisk: { storageAccountType: 'StandardSSD_LRS' },
            ...(node.diskGB ? { diskSizeGB: node.diskGB } : {}),
          },
        },
        osProfile: {
          computerName: cloudName(args.stack, node.name),
          adminUsername: args.adminUser,
          customData: pulumi.output(args.userData).apply((ud) => Buffer.from(ud).toString('base64')),
          linuxConfiguration: {
            disablePasswordAuthentication: true,
            ssh: { publicKeys: [{ path: `/home/${args.adminUser}/.ssh/authorized_keys`, keyData: args.sshPublicKey }] },
          },
        },
        networkProfile: { networkInterfaces: [{ id: this.nic.id, primary: true, deleteOption: 'Delete' }] },
        tags: { fragbench_role: node.role, fragbench_site: node.site, fragbench_stack: args.stack },
      },
      { ...parent, ...REPLACE_VM_FIRST },
    );
    this.publicAddress = publicIp?.ipAddress.apply((ip) => {
      if (!ip) throw new Error(`Azure gave ${node.name}'s public IP no address`);
      return ip;
    });
    this.registerOutputs({ id: this.vm.id, publicAddress: this.publicAddress });
  }
}
