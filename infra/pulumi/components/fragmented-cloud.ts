/**
 * The fragmented hybrid cloud of SPEC.md §1: one VM per site plus the client, each in OpenStack
 * or in an Azure region, joined by a WireGuard mesh (one interface per connection type) with a
 * tinc overlay on top. Every VM exposes only WireGuard's ports and SSH from the operator.
 */
import * as pulumi from '@pulumi/pulumi';
import * as networking from '@pulumi/openstack/networking';
import * as resources from '@pulumi/azure-native/resources';
import type { Inventory } from '../../../core/inventory';
import { AzureNetwork, azureSecurityGroup } from '../cloud/azure';
import { sshFrom, wireguardFromAnywhere } from '../cloud/exposure';
import { OpenStackNetwork, OpenStackSecurityGroup } from '../cloud/openstack';
import { nodeVm, type NodeVm, type VmPlacement } from '../cloud/vm';
import { cloudName } from '../names';
import { inventoryAfter, inventoryOutput } from '../inventory';
import { KeyPair } from '../keys/key-pair';
import { privateKeys, publicKeys, wireguardKeyRing } from '../keys/mesh-keys';
import type { PlannedNode } from '../plan';
import type { FragmentedPlan } from '../plan-fragmented';
import { PACKAGES, cloudInit } from '../render/cloud-init';
import { meshScript } from '../render/mesh-script';
import { remoteScript } from '../remote';
import type { FragmentedSettings } from '../settings';

export interface FragmentedCloudArgs {
  settings: FragmentedSettings;
  plan: FragmentedPlan;
  /** The operator's SSH private key (a secret), for the commands run on the VMs. */
  sshPrivateKey: pulumi.Input<string>;
}

export class FragmentedCloud extends pulumi.ComponentResource {
  readonly inventory: pulumi.Output<Inventory>;

  constructor(name: string, args: FragmentedCloudArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:fragmented:FragmentedCloud', name, {}, opts);
    const { settings: s, plan } = args;
    const parent = { parent: this };
    const exposed = [wireguardFromAnywhere(plan.wireguardPorts), sshFrom(s.operatorCidr)];
    const userData = cloudInit({ sshPublicKeys: [s.sshPublicKey], packages: PACKAGES.meshNode });

    // The sites: VMs in OpenStack on one network, VMs in Azure on one VNet per region.
    const placements = new Map<string, VmPlacement>();
    const inOpenStack = plan.nodes.filter((n) => n.cloud === 'openstack');
    if (inOpenStack.length) {
      const router = new networking.Router(
        'router',
        { name: cloudName(s.stack, 'router'), externalNetworkId: s.openstack.externalNetworkId },
        parent,
      );
      const net = new OpenStackNetwork('sites', { stack: s.stack, cidr: s.cidrs.openstack, routerId: router.id }, parent);
      const group = new OpenStackSecurityGroup(
        'sites',
        { stack: s.stack, description: "fragbench: WireGuard, and SSH from the operator's address", rules: exposed },
        parent,
      );
      placements.set('openstack', {
        cloud: 'openstack',
        stack: s.stack,
        network: net,
        securityGroupIds: [group.group.id],
        imageName: s.openstack.imageName,
        floatingIpPool: s.openstack.floatingIpPool,
        userData,
      });
    }
    const locations = Object.keys(plan.azureSubnets);
    if (locations.length) {
      const group = new resources.ResourceGroup('fragmented', { location: locations[0] }, parent);
      for (const location of locations) {
        const nsg = azureSecurityGroup(`sites-${location}`, { resourceGroupName: group.name, location, rules: exposed }, parent);
        const net = new AzureNetwork(
          `sites-${location}`,
          { resourceGroupName: group.name, location, cidr: plan.azureSubnets[location], networkSecurityGroupId: nsg.id },
          parent,
        );
        placements.set(`azure:${location}`, {
          cloud: 'azure',
          stack: s.stack,
          resourceGroupName: group.name,
          subnetId: net.subnet.id,
          image: s.azureImage,
          adminUser: s.sshUser,
          sshPublicKey: s.sshPublicKey,
          userData,
        });
      }
    }
    const placementOf = (n: PlannedNode) => placements.get(n.cloud === 'azure' ? `azure:${n.location}` : 'openstack') as VmPlacement;
    const vms = new Map<string, NodeVm>(plan.nodes.map((n) => [n.name, nodeVm(n.name, n, placementOf(n), {}, parent)]));

    // Keys: one WireGuard pair per node and connection type, one tinc (RSA) pair per node.
    const wgKeys = wireguardKeyRing(plan, s.keyRotation, parent);
    const tincKeys = Object.fromEntries(
      plan.nodes.map((n) => [n.name, new KeyPair(`${n.name}-tinc`, { kind: 'tinc', rotation: s.keyRotation }, parent)]),
    );
    const publicAddress = (node: string) => {
      const address = vms.get(node)?.publicAddress;
      if (!address) throw new Error(`site "${node}" has no public address`);
      return address;
    };
    // The configs are rendered from this; what the stack publishes waits for them to be applied.
    const mesh = inventoryOutput(plan, Object.fromEntries(plan.nodes.map((n) => [n.name, publicAddress(n.name)])), publicKeys(wgKeys));

    // Each VM gets its WireGuard interfaces and tinc, rendered from the inventory.
    const tincPublic = pulumi.all(Object.fromEntries(Object.entries(tincKeys).map(([n, k]) => [n, k.publicKey])));
    const wgPrivate = pulumi.all(privateKeys(wgKeys));
    const meshCommands = plan.nodes.map((node) => {
      const script = pulumi.all([mesh, wgPrivate, tincKeys[node.name].privateKey, tincPublic]).apply(([inventory, wgPriv, tincPriv, tincPub]) =>
        meshScript({
          inventory,
          node,
          wireguardPrivateKeys: wgPriv,
          tincPrivateKey: tincPriv,
          tincPublicKeys: tincPub,
          overlayCidr: s.cidrs.overlay,
        }),
      );
      const vm = vms.get(node.name) as NodeVm;
      return remoteScript(
        `${node.name}-mesh`,
        {
          stack: s.stack,
          target: { host: publicAddress(node.name), user: s.sshUser, vmId: vm.id },
          sshPrivateKey: args.sshPrivateKey,
          script,
        },
        { ...parent, dependsOn: [vm.resource] },
      );
    });
    this.inventory = inventoryAfter(mesh, meshCommands);
    this.registerOutputs({ inventory: this.inventory });
  }
}
