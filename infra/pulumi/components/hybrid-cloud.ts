/**
 * The hybrid cloud of SPEC.md §1, in its six published phases, plus the VM manager that holds
 * the keys and the load client. Database nodes are placed on it by DatabaseNodes.
 *
 * The phases are built in the order their resources need each other, not in their published
 * order: the tunnel (phase 3, in hybrid-tunnel.ts) comes last, as it needs the shared interface
 * of phase 5 and the inventory.
 */
import * as pulumi from '@pulumi/pulumi';
import * as compute from '@pulumi/openstack/compute';
import * as networking from '@pulumi/openstack/networking';
import * as network from '@pulumi/azure-native/network';
import * as resources from '@pulumi/azure-native/resources';
import type { Inventory } from '../../../core/inventory';
import { AzureNetwork, azureSecurityGroup, natGateway } from '../cloud/azure';
import { fromFleet, sshFrom, wireguardFromAnywhere } from '../cloud/exposure';
import { OpenStackNetwork, OpenStackSecurityGroup } from '../cloud/openstack';
import { nodeVm, type AzurePlacement, type NodeVm, type OpenStackPlacement } from '../cloud/vm';
import { cloudName } from '../names';
import { inventoryAfter, inventoryOutput } from '../inventory';
import type { KeyPair } from '../keys/key-pair';
import { publicKeys } from '../keys/mesh-keys';
import { plannedNode } from '../plan';
import { HYBRID_NODES, type HybridPlan } from '../plan-hybrid';
import { PACKAGES, cloudInit } from '../render/cloud-init';
import type { HybridSettings } from '../settings';
import { configureTunnel, managerKeys } from './hybrid-tunnel';

export interface HybridCloudArgs {
  settings: HybridSettings;
  plan: HybridPlan;
  /** The operator's SSH private key (a secret), for the commands run on the VMs. */
  sshPrivateKey: pulumi.Input<string>;
}

const { consumer, donor, manager, client } = HYBRID_NODES;

export class HybridCloud extends pulumi.ComponentResource {
  /** Where DatabaseNodes puts private (OpenStack) nodes. */
  readonly privateSide: OpenStackPlacement;
  /** Where DatabaseNodes puts public (Azure) nodes. */
  readonly publicSide: AzurePlacement;
  readonly inventory: pulumi.Output<Inventory>;

  constructor(name: string, args: HybridCloudArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:hybrid:HybridCloud', name, {}, opts);
    const { settings, plan } = args;
    const parent = { parent: this };
    const keys = managerKeys(settings, plan, parent);
    const ctx = hybridContext(settings, plan, parent, keys.managerSsh);

    const openstack = openstackBrokerSide(ctx);
    const azure = azureBrokerSide(ctx);
    const shared = sharedNetworks(ctx, openstack.router, azure.home);
    const consumerShared = attachConsumerToShared(ctx, openstack, shared.openstack);
    peerSharedWithDonor(ctx, azure, shared.azure);
    routeAzureThroughConsumer(ctx, openstack.router, shared.openstack);

    // The load client sits on the private shared network, like the private nodes.
    this.privateSide = openstackPlacement(ctx, shared.openstack, [openstack.internal.group.id], PACKAGES.node);
    this.publicSide = azurePlacement(ctx, azure.home, shared.azure.subnet.id, PACKAGES.node);
    const clientVm = nodeVm('client', plannedNode(plan, client), this.privateSide, {}, parent);

    const managerAddress = required(openstack.managerVm.publicAddress, manager);
    const donorAddress = required(azure.donorVm.publicAddress, donor);
    // The tunnel's configs are rendered from this; what the stack publishes waits for the tunnel.
    const rendered = inventoryOutput(plan, { [manager]: managerAddress, [donor]: donorAddress }, publicKeys(keys.tunnel));

    const tunnelSteps = configureTunnel(
      {
        settings,
        plan,
        sshPrivateKey: args.sshPrivateKey,
        keys,
        inventory: rendered,
        managerVm: openstack.managerVm,
        managerAddress,
        donorVm: azure.donorVm,
        donorAddress,
        consumerVm: openstack.consumerVm,
        consumerSharedPort: consumerShared.port,
        consumerSharedAttachment: consumerShared.attachment,
      },
      parent,
    );
    this.inventory = inventoryAfter(rendered, tunnelSteps);

    this.registerOutputs({ inventory: this.inventory, client: clientVm.id });
  }
}

/** What every phase builds from. */
interface HybridContext {
  s: HybridSettings;
  plan: HybridPlan;
  parent: { parent: pulumi.Resource };
  fleetCidrs: string[];
  /** The consumer broker forwards for these, so its ports must accept their source addresses. */
  forwardedForAzure: string[];
  /** cloud-init that lets in the VM manager's SSH key beside the operator's. */
  userData: (packages: string[]) => pulumi.Output<string>;
}

function hybridContext(s: HybridSettings, plan: HybridPlan, parent: { parent: pulumi.Resource }, managerSsh: KeyPair): HybridContext {
  return {
    s,
    plan,
    parent,
    fleetCidrs: [...plan.openstackPrefixes, ...plan.azurePrefixes, s.cidrs.tunnel],
    forwardedForAzure: [...plan.azurePrefixes, s.cidrs.tunnel],
    userData: (packages) => managerSsh.publicKey.apply((k) => cloudInit({ sshPublicKeys: [s.sshPublicKey, k], packages })),
  };
}

/** The resource group and region every Azure resource of the fleet is made in. */
interface AzureHome {
  resourceGroupName: pulumi.Output<string>;
  location: string;
}

interface OpenStackBrokerSide {
  router: networking.Router;
  /** Lets in the fleet's networks only. */
  internal: OpenStackSecurityGroup;
  managerVm: NodeVm;
  consumerVm: NodeVm;
}

interface AzureBrokerSide {
  home: AzureHome;
  donorNet: AzureNetwork;
  donorVm: NodeVm;
}

interface SharedNetworks {
  openstack: OpenStackNetwork;
  azure: AzureNetwork;
}

interface ConsumerOnShared {
  port: networking.Port;
  attachment: compute.InterfaceAttach;
}

/** Phase 1: consumer broker network and broker VM in OpenStack (with the VM manager beside it). */
function openstackBrokerSide(ctx: HybridContext): OpenStackBrokerSide {
  const { s, plan, parent } = ctx;
  const router = new networking.Router('router', { name: cloudName(s.stack, 'router'), externalNetworkId: s.openstack.externalNetworkId }, parent);
  const brokerNet = new OpenStackNetwork('broker-net', { stack: s.stack, cidr: s.cidrs.openstackBroker, routerId: router.id }, parent);
  const internal = new OpenStackSecurityGroup(
    'internal',
    { stack: s.stack, description: 'fragbench: the fleet networks only', rules: fromFleet(ctx.fleetCidrs) },
    parent,
  );
  const operator = new OpenStackSecurityGroup(
    'operator-ssh',
    { stack: s.stack, description: "fragbench: SSH from the operator's address", rules: [sshFrom(s.operatorCidr)] },
    parent,
  );
  const managerPlacement = openstackPlacement(ctx, brokerNet, [internal.group.id, operator.group.id], PACKAGES.node);
  const managerVm = nodeVm('manager', plannedNode(plan, manager), managerPlacement, {}, parent);
  const consumerPlacement = openstackPlacement(ctx, brokerNet, [internal.group.id], PACKAGES.broker);
  const consumerVm = nodeVm(
    'consumer-broker',
    plannedNode(plan, consumer),
    consumerPlacement,
    { allowedAddressPairs: ctx.forwardedForAzure },
    parent,
  );
  return { router, internal, managerVm, consumerVm };
}

/** Phase 2: donor broker network and VM in Azure; only WireGuard (and the operator's SSH) face the internet. */
function azureBrokerSide(ctx: HybridContext): AzureBrokerSide {
  const { s, plan, parent } = ctx;
  const location = s.region.azureLocation;
  const group = new resources.ResourceGroup('hybrid', { location }, parent);
  const home: AzureHome = { resourceGroupName: group.name, location };
  const donorNsg = azureSecurityGroup(
    'donor-broker',
    {
      ...home,
      rules: [wireguardFromAnywhere([s.wireguardPort, s.wireguardPort]), sshFrom(s.operatorCidr), ...fromFleet(ctx.fleetCidrs)],
    },
    parent,
  );
  const donorNet = new AzureNetwork('donor-net', { ...home, cidr: s.cidrs.azureBroker, networkSecurityGroupId: donorNsg.id }, parent);
  const donorVm = nodeVm(
    'donor-broker',
    plannedNode(plan, donor),
    azurePlacement(ctx, home, donorNet.subnet.id, PACKAGES.broker),
    { ipForwarding: true },
    parent,
  );
  return { home, donorNet, donorVm };
}

/** Phase 4: the shared networks the database nodes live on. */
function sharedNetworks(ctx: HybridContext, router: networking.Router, home: AzureHome): SharedNetworks {
  const { s, parent } = ctx;
  const openstack = new OpenStackNetwork('shared-net', { stack: s.stack, cidr: s.cidrs.openstackShared, routerId: router.id }, parent);
  const sharedNsg = azureSecurityGroup('shared', { ...home, rules: fromFleet(ctx.fleetCidrs) }, parent);
  // Phase 6 (Azure) comes before the shared VNet: its subnet takes the route table when it is created.
  const routeTable = routeOpenStackThroughDonor(ctx, home);
  // The public nodes have no public IP: package installs go out through a NAT gateway.
  const nat = natGateway('shared', home, parent);
  const azure = new AzureNetwork(
    'shared-vnet',
    {
      ...home,
      cidr: s.cidrs.azureShared,
      networkSecurityGroupId: sharedNsg.id,
      routeTableId: routeTable.id,
      natGatewayId: nat.id,
    },
    parent,
  );
  return { openstack, azure };
}

/** Phase 6 (Azure): traffic for OpenStack leaves the shared subnet through the donor broker. */
function routeOpenStackThroughDonor(ctx: HybridContext, home: AzureHome): network.RouteTable {
  const { plan } = ctx;
  return new network.RouteTable(
    'shared',
    {
      ...home,
      disableBgpRoutePropagation: true,
      routes: plan.openstackPrefixes.map((prefix, i) => ({
        name: `fb-openstack-${i}`,
        addressPrefix: prefix,
        nextHopType: 'VirtualAppliance',
        nextHopIpAddress: plan.donorAddress,
      })),
    },
    ctx.parent,
  );
}

/** Phase 5 (OpenStack): an extra interface on the consumer broker joins it to the shared network. */
function attachConsumerToShared(ctx: HybridContext, brokers: OpenStackBrokerSide, sharedNet: OpenStackNetwork): ConsumerOnShared {
  const { plan, parent } = ctx;
  const port = new networking.Port(
    'consumer-broker-shared',
    {
      name: cloudName(ctx.s.stack, 'consumer-broker-shared'),
      networkId: sharedNet.network.id,
      fixedIps: [{ subnetId: sharedNet.subnet.id, ipAddress: plan.consumerSharedAddress }],
      securityGroupIds: [brokers.internal.group.id],
      allowedAddressPairs: ctx.forwardedForAzure.map((ipAddress) => ({ ipAddress })),
    },
    parent,
  );
  const attachment = new compute.InterfaceAttach('consumer-broker-shared', { instanceId: brokers.consumerVm.id, portId: port.id }, parent);
  return { port, attachment };
}

/** Phase 5 (Azure): VNet peering between the shared VNet and the donor broker's, both ways. */
function peerSharedWithDonor(ctx: HybridContext, brokers: AzureBrokerSide, sharedVnet: AzureNetwork): void {
  const peer = (from: AzureNetwork, to: AzureNetwork, peeringName: string) =>
    new network.VirtualNetworkPeering(
      peeringName,
      {
        resourceGroupName: brokers.home.resourceGroupName,
        virtualNetworkName: from.vnet.name,
        remoteVirtualNetwork: { id: to.vnet.id },
        allowVirtualNetworkAccess: true,
        allowForwardedTraffic: true,
      },
      ctx.parent,
    );
  peer(brokers.donorNet, sharedVnet, 'donor-to-shared');
  peer(sharedVnet, brokers.donorNet, 'shared-to-donor');
}

/** Phase 6 (OpenStack): the router sends Azure-bound traffic to the consumer broker's shared interface. */
function routeAzureThroughConsumer(ctx: HybridContext, router: networking.Router, sharedNet: OpenStackNetwork): void {
  const { plan, parent } = ctx;
  // Neutron refuses a next hop on a subnet the router is not attached to yet.
  plan.azurePrefixes.forEach(
    (prefix, i) =>
      new networking.RouterRoute(
        `to-azure-${i}`,
        { routerId: router.id, destinationCidr: prefix, nextHop: plan.consumerSharedAddress },
        { ...parent, dependsOn: [sharedNet] },
      ),
  );
}

function openstackPlacement(ctx: HybridContext, network: OpenStackNetwork, groups: pulumi.Input<string>[], packages: string[]): OpenStackPlacement {
  const { openstack } = ctx.s;
  return {
    cloud: 'openstack',
    stack: ctx.s.stack,
    network,
    securityGroupIds: groups,
    imageName: openstack.imageName,
    floatingIpPool: openstack.floatingIpPool,
    userData: ctx.userData(packages),
  };
}

function azurePlacement(ctx: HybridContext, home: AzureHome, subnetId: pulumi.Input<string>, packages: string[]): AzurePlacement {
  const { s } = ctx;
  return {
    cloud: 'azure',
    stack: s.stack,
    resourceGroupName: home.resourceGroupName,
    subnetId,
    image: s.azureImage,
    adminUser: s.sshUser,
    sshPublicKey: s.sshPublicKey,
    userData: ctx.userData(packages),
  };
}

function required(value: pulumi.Output<string> | undefined, node: string): pulumi.Output<string> {
  if (!value) throw new Error(`node "${node}" was planned with a public address but its VM has none`);
  return value;
}
