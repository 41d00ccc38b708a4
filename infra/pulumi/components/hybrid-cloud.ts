/**
 * The hybrid cloud of SPEC.md §1, in its six published phases, plus the VM manager that holds
 * the keys and the load client. Database nodes are placed on it by DatabaseNodes.
 */
import * as pulumi from '@pulumi/pulumi';
import * as compute from '@pulumi/openstack/compute';
import * as networking from '@pulumi/openstack/networking';
import * as network from '@pulumi/azure-native/network';
import * as resources from '@pulumi/azure-native/resources';
import type { Inventory } from '../../../core/inventory';
import { AzureNetwork, azureSecurityGroup } from '../cloud/azure';
import { fromFleet, sshFrom, wireguardFromAnywhere } from '../cloud/exposure';
import { OpenStackNetwork, OpenStackSecurityGroup } from '../cloud/openstack';
import { nodeVm, type AzurePlacement, type OpenStackPlacement } from '../cloud/vm';
import { inventoryOutput } from '../inventory';
import { KeyPair } from '../keys/key-pair';
import { publicKeys, wireguardKeyRing } from '../keys/mesh-keys';
import { interfaceKey, plannedNode } from '../plan';
import { HYBRID_NODES, type HybridPlan } from '../plan-hybrid';
import { PACKAGES, cloudInit } from '../render/cloud-init';
import { writeFilesScript, type FileSpec } from '../render/files-script';
import { wireguardConfig, wireguardConfigPath, wireguardPeers } from '../render/wireguard';
import { remoteScript } from '../remote';
import type { HybridSettings } from '../settings';

export interface HybridCloudArgs {
  settings: HybridSettings;
  plan: HybridPlan;
  /** The operator's SSH private key (a secret), for the commands run on the VMs. */
  sshPrivateKey: pulumi.Input<string>;
}

const { consumer, donor, manager, client } = HYBRID_NODES;
const WG = 'wg0';
const TUNNEL_TYPE = 0;

export class HybridCloud extends pulumi.ComponentResource {
  /** Where DatabaseNodes puts private (OpenStack) nodes. */
  readonly privateSide: OpenStackPlacement;
  /** Where DatabaseNodes puts public (Azure) nodes. */
  readonly publicSide: AzurePlacement;
  readonly inventory: pulumi.Output<Inventory>;

  constructor(name: string, args: HybridCloudArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:hybrid:HybridCloud', name, {}, opts);
    const { settings: s, plan } = args;
    const c = s.cidrs;
    const parent = { parent: this };
    const fleetCidrs = [...plan.openstackPrefixes, ...plan.azurePrefixes, c.tunnel];
    // The consumer broker forwards for these, so its ports must accept their source addresses.
    const forwardedForAzure = [...plan.azurePrefixes, c.tunnel];

    // The VM manager holds every key pair: the brokers' WireGuard keys and its own SSH key,
    // which lets it reach the VMs that have no public address.
    const tunnelKeys = wireguardKeyRing(plan, s.keyRotation, parent);
    const managerSsh = new KeyPair('manager-ssh', { kind: 'ssh', rotation: s.keyRotation, comment: `fragbench-manager@${s.stack}` }, parent);
    const userData = (packages: string[]) => managerSsh.publicKey.apply((k) => cloudInit({ sshPublicKeys: [s.sshPublicKey, k], packages }));

    // Phase 1: consumer broker network and broker VM in OpenStack (with the VM manager beside it).
    const router = new networking.Router('router', { name: 'fb-router', externalNetworkId: s.openstack.externalNetworkId }, parent);
    const brokerNet = new OpenStackNetwork('broker-net', { cidr: c.openstackBroker, routerId: router.id }, parent);
    const internal = new OpenStackSecurityGroup('internal', { description: 'fragbench: the fleet networks only', rules: fromFleet(fleetCidrs) }, parent);
    const operator = new OpenStackSecurityGroup('operator-ssh', { description: "fragbench: SSH from the operator's address", rules: [sshFrom(s.operatorCidr)] }, parent);
    const openstackPlacement = (network: OpenStackNetwork, groups: pulumi.Input<string>[], packages: string[]): OpenStackPlacement => ({
      cloud: 'openstack', network, securityGroupIds: groups, imageName: s.openstack.imageName, floatingIpPool: s.openstack.floatingIpPool, userData: userData(packages),
    });
    const managerVm = nodeVm('manager', plannedNode(plan, manager), openstackPlacement(brokerNet, [internal.group.id, operator.group.id], PACKAGES.node), {}, parent);
    const consumerVm = nodeVm('consumer-broker', plannedNode(plan, consumer), openstackPlacement(brokerNet, [internal.group.id], PACKAGES.broker), { allowedAddressPairs: forwardedForAzure }, parent);

    // Phase 2: donor broker network and VM in Azure; only WireGuard (and the operator's SSH) face the internet.
    const location = s.region.azureLocation;
    const group = new resources.ResourceGroup('hybrid', { location }, parent);
    const donorNsg = azureSecurityGroup('donor-broker', {
      resourceGroupName: group.name, location,
      rules: [wireguardFromAnywhere([s.wireguardPort, s.wireguardPort]), sshFrom(s.operatorCidr), ...fromFleet(fleetCidrs)],
    }, parent);
    const donorNet = new AzureNetwork('donor-net', { resourceGroupName: group.name, location, cidr: c.azureBroker, networkSecurityGroupId: donorNsg.id }, parent);
    const azurePlacement = (subnetId: pulumi.Input<string>, packages: string[]): AzurePlacement => ({
      cloud: 'azure', resourceGroupName: group.name, subnetId, image: s.azureImage, adminUser: s.sshUser, sshPublicKey: s.sshPublicKey, userData: userData(packages),
    });
    const donorVm = nodeVm('donor-broker', plannedNode(plan, donor), azurePlacement(donorNet.subnet.id, PACKAGES.broker), { ipForwarding: true }, parent);

    // Phase 4: the shared networks the database nodes live on.
    const sharedNet = new OpenStackNetwork('shared-net', { cidr: c.openstackShared, routerId: router.id }, parent);
    const sharedNsg = azureSecurityGroup('shared', { resourceGroupName: group.name, location, rules: fromFleet(fleetCidrs) }, parent);
    // Phase 6 (Azure): traffic for OpenStack leaves the shared subnet through the donor broker.
    const routeTable = new network.RouteTable('shared', {
      resourceGroupName: group.name, location, disableBgpRoutePropagation: true,
      routes: plan.openstackPrefixes.map((prefix, i) => ({
        name: `fb-openstack-${i}`, addressPrefix: prefix, nextHopType: 'VirtualAppliance', nextHopIpAddress: plan.donorAddress,
      })),
    }, parent);
    const azureShared = new AzureNetwork('shared-vnet', {
      resourceGroupName: group.name, location, cidr: c.azureShared, networkSecurityGroupId: sharedNsg.id, routeTableId: routeTable.id,
    }, parent);

    // Phase 5: join the shared networks to the broker networks.
    // OpenStack: an extra interface on the consumer broker; Azure: VNet peering, both ways.
    const consumerSharedPort = new networking.Port('consumer-broker-shared', {
      name: 'fb-consumer-broker-shared',
      networkId: sharedNet.network.id,
      fixedIps: [{ subnetId: sharedNet.subnet.id, ipAddress: plan.consumerSharedAddress }],
      securityGroupIds: [internal.group.id],
      allowedAddressPairs: forwardedForAzure.map((ipAddress) => ({ ipAddress })),
    }, parent);
    const consumerJoin = new compute.InterfaceAttach('consumer-broker-shared', { instanceId: consumerVm.id, portId: consumerSharedPort.id }, parent);
    const peer = (from: AzureNetwork, to: AzureNetwork, peeringName: string) =>
      new network.VirtualNetworkPeering(peeringName, {
        resourceGroupName: group.name, virtualNetworkName: from.vnet.name, remoteVirtualNetwork: { id: to.vnet.id },
        allowVirtualNetworkAccess: true, allowForwardedTraffic: true,
      }, parent);
    peer(donorNet, azureShared, 'donor-to-shared');
    peer(azureShared, donorNet, 'shared-to-donor');

    // Phase 6 (OpenStack): the router sends Azure-bound traffic to the consumer broker's shared interface.
    plan.azurePrefixes.forEach(
      (prefix, i) =>
        new networking.RouterRoute(`to-azure-${i}`, { routerId: router.id, destinationCidr: prefix, nextHop: plan.consumerSharedAddress }, { ...parent, dependsOn: [sharedNet] }),
    );

    // The load client sits on the private shared network, like the private nodes.
    this.privateSide = openstackPlacement(sharedNet, [internal.group.id], PACKAGES.node);
    this.publicSide = azurePlacement(azureShared.subnet.id, PACKAGES.node);
    const clientVm = nodeVm('client', plannedNode(plan, client), this.privateSide, {}, parent);

    this.inventory = inventoryOutput(
      plan,
      { [manager]: required(managerVm.publicAddress, manager), [donor]: required(donorVm.publicAddress, donor) },
      publicKeys(tunnelKeys),
    );

    // Phase 3: the WireGuard tunnel, in the published key-handling order.
    const sshPrivateKey = args.sshPrivateKey;
    const managerTarget = { host: required(managerVm.publicAddress, manager), user: s.sshUser };
    const tunnelKey = (node: string) => tunnelKeys[interfaceKey(node, TUNNEL_TYPE)];
    const keyFile = (node: string) => `/etc/fragbench/keys/${node}-${WG}`;
    const home = `/home/${s.sshUser}/.ssh`;
    const keysOnManager = remoteScript('manager-keys', {
      target: managerTarget, sshPrivateKey,
      script: pulumi.all([managerSsh.privateKey, managerSsh.publicKey, tunnelKey(consumer).privateKey, tunnelKey(donor).privateKey])
        .apply(([sshKey, sshPub, consumerKey, donorKey]) => writeFilesScript({
          [`${home}/id_ed25519`]: { content: sshKey, mode: '600', owner: s.sshUser },
          [`${home}/id_ed25519.pub`]: { content: sshPub, mode: '644', owner: s.sshUser },
          [`${keyFile(consumer)}.key`]: { content: consumerKey, mode: '600' },
          [`${keyFile(donor)}.key`]: { content: donorKey, mode: '600' },
        })),
    }, { ...parent, dependsOn: [managerVm.resource] });

    const startTunnel = [`systemctl enable wg-quick@${WG}`, `systemctl restart wg-quick@${WG}`];
    const tunnelConfig = (node: string, without: string[]) =>
      pulumi.all([this.inventory, tunnelKey(node).privateKey]).apply(([inventory, privateKey]) =>
        wireguardConfig({ mesh: inventory, node, type: TUNNEL_TYPE, privateKey, routedPrefixes: plan.routedPrefixes, without, forward: true }),
      );
    // (i)-(ii) The donor's config, with no peer yet; its VM is up and takes it.
    const donorTunnel = remoteScript('donor-broker-wireguard', {
      target: { host: required(donorVm.publicAddress, donor), user: s.sshUser }, sshPrivateKey,
      script: tunnelConfig(donor, [consumer]).apply((conf) => writeFilesScript({ [wireguardConfigPath(WG)]: { content: conf, mode: '600' } }, startTunnel)),
    }, { ...parent, dependsOn: [donorVm.resource] });
    // (iii)-(iv) The consumer's config from the donor's public key and address, pushed by the manager;
    // its second (shared) interface is brought up here too. It cannot connect until (v).
    const consumerTunnel = remoteScript('consumer-broker-wireguard', {
      target: { host: plannedNode(plan, consumer).privateAddress, user: s.sshUser, jump: managerTarget }, sshPrivateKey,
      script: pulumi.all([tunnelConfig(consumer, []), consumerSharedPort.macAddress]).apply(([conf, mac]) =>
        writeFilesScript({ [wireguardConfigPath(WG)]: { content: conf, mode: '600' }, ...sharedInterfaceNetplan(mac) }, ['netplan apply', ...startTunnel]),
      ),
    }, { ...parent, dependsOn: [consumerVm.resource, consumerJoin, keysOnManager, donorTunnel] });
    // (v) Authorise: the donor learns the consumer's key and networks, once both ends exist.
    const consumerPeer = this.inventory.apply((inventory) => {
      const peerOfDonor = wireguardPeers(inventory, donor, TUNNEL_TYPE, plan.routedPrefixes).find((p) => p.node === consumer);
      if (!peerOfDonor) throw new Error(`the inventory has no ${consumer}-${donor} link`);
      return peerOfDonor;
    });
    remoteScript('authorise-consumer', {
      target: { host: required(donorVm.publicAddress, donor), user: s.sshUser }, sshPrivateKey,
      script: consumerPeer.apply((p) => `wg set ${WG} peer ${p.publicKey} allowed-ips ${p.allowedIps.join(',')}\nwg-quick save ${WG}\n`),
      onDelete: consumerPeer.apply((p) => `wg set ${WG} peer ${p.publicKey} remove && wg-quick save ${WG}`),
      triggers: [consumerVm.id, consumerPeer.publicKey],
    }, { ...parent, dependsOn: [donorTunnel, consumerTunnel] });

    this.registerOutputs({ inventory: this.inventory, client: clientVm.id });
  }
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

function required(value: pulumi.Output<string> | undefined, node: string): pulumi.Output<string> {
  if (!value) throw new Error(`node "${node}" was planned with a public address but its VM has none`);
  return value;
}
