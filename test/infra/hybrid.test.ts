/**
 * The hybrid stack under Pulumi's in-process mocks, layout 6_2 in Virginia: what it declares,
 * how the two sides are joined and routed, what faces the internet, the WireGuard tunnel's
 * configs in the published order, and the inventory it exports.
 */
import * as pulumi from '@pulumi/pulumi';
import { validateInventory } from '../../core/validate-inventory';
import type { Inventory } from '../../core/inventory';
import { cidrContains } from '../../infra/pulumi/cidr';
import { buildFleet } from '../../infra/pulumi/fleet';
import { wireguardPublicKey } from '../../infra/pulumi/keys/key-material';
import { planHybrid } from '../../infra/pulumi/plan-hybrid';
import type { HybridCidrs, HybridSettings } from '../../infra/pulumi/settings';
import { filesOfScript, parseWireguard, routesOfScript, splitList } from './config-files';
import {
  OPERATOR_CONFIG,
  OPERATOR_SSH_PRIVATE_KEY,
  TYPES,
  BUILD_TIMEOUT_MS,
  mockCloud,
  settled,
  stackSettings,
  valueOf,
  type MockCloud,
} from './harness';

let cloud: MockCloud;
let settings: HybridSettings;
let inventory: Inventory;
let inventoryIsSecret: boolean;

beforeAll(async () => {
  cloud = mockCloud('hybrid-virginia');
  settings = stackSettings('hybrid-virginia', { layout: '6_2' }) as HybridSettings;
  const output = buildFleet(settings, OPERATOR_SSH_PRIVATE_KEY);
  inventory = await valueOf(output);
  inventoryIsSecret = await pulumi.isSecret(output);
  await settled();
}, BUILD_TIMEOUT_MS);

describe('resources per layout', () => {
  test('6_2 gives 6 OpenStack and 2 Azure database nodes of the published sizes', () => {
    const osData = cloud.ofType(TYPES.osInstance).filter((r) => /^fb-hybrid-virginia-prv\d+$/.test(r.inputs.name!));
    const azData = cloud.ofType(TYPES.azVm).filter((r) => /^fb-hybrid-virginia-pub\d+$/.test(r.inputs.vmName!));
    expect(osData.map((r) => r.inputs.name!.replace('fb-hybrid-virginia-', '')).sort()).toEqual(['prv1', 'prv2', 'prv3', 'prv4', 'prv5', 'prv6']);
    expect(azData.map((r) => r.inputs.vmName!.replace('fb-hybrid-virginia-', '')).sort()).toEqual(['pub1', 'pub2']);
    expect(new Set(osData.map((r) => r.inputs.flavorName))).toEqual(new Set(['m1.small']));
    expect(new Set(azData.map((r) => r.inputs.hardwareProfile!.vmSize))).toEqual(new Set(['Standard_B1ms']));
    // Plus the consumer broker, the VM manager and the client in OpenStack, the donor broker in Azure.
    expect(
      cloud
        .ofType(TYPES.osInstance)
        .map((r) => r.inputs.name)
        .sort(),
    ).toEqual([...['cbroker', 'client', 'manager'].map((n) => `fb-hybrid-virginia-${n}`), ...osData.map((r) => r.inputs.name)].sort());
    expect(cloud.ofType(TYPES.azVm)).toHaveLength(3);
  });

  test('every node gets the fixed address its plan gives it', () => {
    const plan = planHybrid(settings);
    for (const node of plan.nodes.filter((n) => n.cloud === 'azure')) {
      const nic = cloud.ofType(TYPES.azNic).find((r) => r.inputs.ipConfigurations![0].privateIPAddress === node.privateAddress);
      expect(nic).toBeDefined();
    }
    const portIps = cloud.ofType(TYPES.osPort).map((r) => r.inputs.fixedIps![0].ipAddress);
    for (const node of plan.nodes.filter((n) => n.cloud === 'openstack')) expect(portIps).toContain(node.privateAddress);
  });
});

describe('joining and routing the two sides', () => {
  test('the Azure VNets are peered both ways, forwarding allowed', () => {
    const peerings = cloud.ofType(TYPES.azPeering);
    expect(peerings).toHaveLength(2);
    const vnetIdOf = (name: string) => cloud.named(TYPES.azVnet, name).state.id;
    const pairs = peerings.map((p) => [p.inputs.virtualNetworkName, p.inputs.remoteVirtualNetwork!.id]);
    expect(pairs).toEqual(
      expect.arrayContaining([
        ['donor-net', vnetIdOf('shared-vnet')],
        ['shared-vnet', vnetIdOf('donor-net')],
      ]),
    );
    for (const p of peerings) expect(p.inputs.allowForwardedTraffic).toBe(true);
  });

  test("OpenStack routes the other side's shared subnet to the consumer broker's extra interface", () => {
    const plan = planHybrid(settings);
    const routes = cloud.ofType(TYPES.osRouterRoute).map((r) => [r.inputs.destinationCidr, r.inputs.nextHop]);
    expect(routes).toContainEqual([settings.cidrs.azureShared, plan.consumerSharedAddress]);
    // The next hop is the broker's second port, attached to the running broker (phase 5).
    const extraPort = cloud.named(TYPES.osPort, 'consumer-broker-shared');
    expect(extraPort.inputs.fixedIps![0].ipAddress).toBe(plan.consumerSharedAddress);
    expect(cidrContains(settings.cidrs.openstackShared, plan.consumerSharedAddress)).toBe(true);
    const attach = cloud.ofType(TYPES.osInterfaceAttach);
    expect(attach).toHaveLength(1);
    expect(attach[0].inputs.portId).toBe(extraPort.state.id);
  });

  test("Azure's route table sends OpenStack's shared subnet to the donor broker, on the shared subnet", () => {
    const plan = planHybrid(settings);
    const table = cloud.named(TYPES.azRouteTable, 'shared');
    expect(table.inputs.routes).toContainEqual(
      expect.objectContaining({
        addressPrefix: settings.cidrs.openstackShared,
        nextHopType: 'VirtualAppliance',
        nextHopIpAddress: plan.donorAddress,
      }),
    );
    expect(cloud.named(TYPES.azSubnet, 'shared-vnet').inputs.routeTable).toEqual({ id: table.state.id });
    // The donor forwards for the peered VNet.
    const donorNic = cloud.named(TYPES.azNic, 'donor-broker');
    expect(donorNic.inputs.enableIPForwarding).toBe(true);
  });
});

describe('what faces the internet', () => {
  const fromFleet = (cidr: string) =>
    cidr !== '*' && Object.values(settings.cidrs as Record<keyof HybridCidrs, string>).some((f) => cidrContains(f, cidr));

  test('Azure NSGs let in only WireGuard from anywhere and SSH from the operator; the rest is fleet-internal', () => {
    const rules = cloud.ofType(TYPES.azNsg).flatMap((n) => n.inputs.securityRules!);
    expect(rules.length).toBeGreaterThan(0);
    const publicRules = rules.filter((r) => r.direction === 'Inbound' && r.access === 'Allow' && !fromFleet(r.sourceAddressPrefix!));
    expect(publicRules.map((r) => [r.protocol, r.destinationPortRange, r.sourceAddressPrefix]).sort()).toEqual(
      [
        ['Tcp', '22', OPERATOR_CONFIG.operatorCidr],
        ['Udp', String(settings.wireguardPort), '*'],
      ].sort(),
    );
    // Only the donor broker's NSG has them; the shared subnet's has none.
    expect(cloud.named(TYPES.azNsg, 'shared').inputs.securityRules!.every((r) => fromFleet(r.sourceAddressPrefix!))).toBe(true);
  });

  test('OpenStack security groups open nothing to the internet but SSH from the operator', () => {
    const rules = cloud.ofType(TYPES.osSecGroupRule).map((r) => r.inputs);
    const publicRules = rules.filter((r) => !fromFleet(r.remoteIpPrefix!));
    expect(publicRules.map((r) => [r.protocol, r.portRangeMin, r.portRangeMax, r.remoteIpPrefix])).toEqual([
      ['tcp', 22, 22, OPERATOR_CONFIG.operatorCidr],
    ]);
  });

  test('only the donor broker and the VM manager have public addresses', () => {
    // The NAT gateway's address is for going out only: no NIC holds it.
    const nicIps = cloud
      .ofType(TYPES.azNic)
      .map((r) => r.inputs.ipConfigurations![0].publicIPAddress?.id)
      .filter(Boolean);
    expect(
      cloud
        .ofType(TYPES.azPublicIp)
        .filter((r) => nicIps.includes(r.state.id))
        .map((r) => r.name),
    ).toEqual(['donor-broker']);
    expect(cloud.ofType(TYPES.osFloatingIp).map((r) => r.name)).toEqual(['manager']);
  });
});

describe('the WireGuard tunnel, in the published order', () => {
  const script = (name: string) => cloud.named(TYPES.command, name).inputs.stdin as string;
  const tunnelConfig = (name: string) => parseWireguard(filesOfScript(script(name))['/etc/wireguard/wg0.conf']);
  const node = (name: string) => inventory.nodes.find((n) => n.name === name)!;

  test('every script that carries keys goes to the VM as a secret, on standard input', () => {
    const commands = cloud.ofType(TYPES.command);
    expect(commands.length).toBe(4);
    for (const c of commands) {
      expect(c.secretInputs).toContain('stdin');
      expect(cloud.leakedKeys(JSON.stringify({ ...c.inputs, stdin: undefined }))).toEqual([]);
    }
    expect(cloud.leakedKeys(script('manager-keys'))).toHaveLength(cloud.leakedKeys(cloud.privateKeys.join('\n')).length);
  });

  test("the donor's first config has its key and no peer", () => {
    const conf = tunnelConfig('donor-broker-wireguard');
    expect(conf.peers).toEqual([]);
    expect(wireguardPublicKey(conf.iface.PrivateKey)).toBe(node('dbroker').wireguard[0].publicKey);
    expect(conf.iface.ListenPort).toBe(String(settings.wireguardPort));
  });

  test("the consumer's config names exactly the donor, its networks and its public endpoint", () => {
    const conf = tunnelConfig('consumer-broker-wireguard');
    const donor = node('dbroker');
    expect(wireguardPublicKey(conf.iface.PrivateKey)).toBe(node('cbroker').wireguard[0].publicKey);
    expect(conf.peers).toHaveLength(1);
    expect(conf.peers[0].PublicKey).toBe(donor.wireguard[0].publicKey);
    expect(splitList(conf.peers[0].AllowedIPs)).toEqual(
      [`${donor.wireguard[0].address}/32`, settings.cidrs.azureBroker, settings.cidrs.azureShared].sort(),
    );
    expect(conf.peers[0].Endpoint).toBe(`${donor.underlayAddress}:${settings.wireguardPort}`);
    expect(conf.peers[0].PersistentKeepalive).toBeDefined();
  });

  test('the consumer, which has no public address, is configured through the VM manager', () => {
    const cmd = cloud.named(TYPES.command, 'consumer-broker-wireguard');
    expect(cmd.inputs.connection.host).toBe(node('manager').underlayAddress);
    expect(cmd.inputs.create).toContain(`ubuntu@${node('cbroker').privateAddress}`);
    const keys = filesOfScript(script('manager-keys'));
    expect(Object.keys(keys)).toEqual(
      expect.arrayContaining(['/home/ubuntu/.ssh/id_ed25519', '/etc/fragbench/keys/cbroker-wg0.key', '/etc/fragbench/keys/dbroker-wg0.key']),
    );
  });

  test("authorising the consumer is its own step on the donor, with the consumer's key and networks", () => {
    const cmd = cloud.named(TYPES.command, 'authorise-consumer');
    const consumer = node('cbroker');
    expect(cmd.inputs.connection.host).toBe(node('dbroker').underlayAddress);
    const allowed = [`${consumer.wireguard[0].address}/32`, settings.cidrs.openstackBroker, settings.cidrs.openstackShared];
    expect(cmd.inputs.stdin).toContain(`wg set wg0 peer ${consumer.wireguard[0].publicKey} allowed-ips ${allowed.join(',')}`);
    // It runs again when the consumer VM is replaced, the old authorisation removed first: its
    // delete step, run after the new one's create, would take the new one's routes away.
    expect(cmd.inputs.triggers).toContain(cloud.named(TYPES.osInstance, 'consumer-broker').state.id);
    expect(cmd.options.deleteBeforeReplace).toBe(true);
  });
});

describe('routes at both ends of the tunnel', () => {
  const stdin = (name: string) => cloud.named(TYPES.command, name).inputs.stdin as string;
  const viaTunnel = (prefixes: string[]) => prefixes.map((p) => `${p} dev wg0`);
  const tunnelAddress = (name: string) => `${inventory.nodes.find((n) => n.name === name)!.wireguard[0].address}/32`;

  test("the consumer routes the donor's tunnel address and Azure's networks into the tunnel", () => {
    expect(routesOfScript(stdin('consumer-broker-wireguard'))).toEqual(
      expect.arrayContaining(viaTunnel([tunnelAddress('dbroker'), settings.cidrs.azureBroker, settings.cidrs.azureShared])),
    );
  });

  test("once the consumer is authorised, the donor routes its tunnel address and OpenStack's networks into the tunnel", () => {
    const expected = viaTunnel([tunnelAddress('cbroker'), settings.cidrs.openstackBroker, settings.cidrs.openstackShared]);
    // The live interface: a peer added with `wg set` gets no route by itself.
    const authorise = stdin('authorise-consumer');
    expect(routesOfScript(authorise)).toEqual(expect.arrayContaining(expected));
    // And after a restart or reboot: the config file it leaves names the consumer with those AllowedIPs.
    const saved = parseWireguard(filesOfScript(authorise)['/etc/wireguard/wg0.conf']);
    expect(saved.peers.map((p) => splitList(p.AllowedIPs))).toEqual([
      [tunnelAddress('cbroker'), settings.cidrs.openstackBroker, settings.cidrs.openstackShared].sort(),
    ]);
    expect(wireguardPublicKey(saved.iface.PrivateKey)).toBe(inventory.nodes.find((n) => n.name === 'dbroker')!.wireguard[0].publicKey);
  });

  test('removing the authorisation takes the routes away with the peer', () => {
    const onDelete = cloud.named(TYPES.command, 'authorise-consumer').inputs.delete as string;
    for (const prefix of [settings.cidrs.openstackBroker, settings.cidrs.openstackShared])
      expect(onDelete).toContain(`ip route del ${prefix} dev wg0`);
  });
});

describe('the inventory output', () => {
  test('validates against the shared schema, in plain (not secret) form', () => {
    expect(() => validateInventory(inventory)).not.toThrow();
    expect(inventoryIsSecret).toBe(false);
    expect(inventory.source).toBe('pulumi');
    expect(inventory.shaping).toBe('tc');
  });

  test('carries no private key', () => {
    // Two WireGuard keys (the brokers') and the VM manager's SSH key were made.
    expect(cloud.privateKeys).toHaveLength(3);
    expect(cloud.leakedKeys(JSON.stringify(inventory))).toEqual([]);
  });

  test('nodes without a public address are reached over SSH through the VM manager', () => {
    const manager = inventory.nodes.find((n) => n.name === 'manager')!;
    for (const n of inventory.nodes.filter((x) => x.role === 'data' || x.role === 'client')) {
      expect(n.exec).toEqual({ transport: 'ssh', host: n.privateAddress, user: 'ubuntu', jump: { host: manager.underlayAddress, user: 'ubuntu' } });
    }
    const donor = inventory.nodes.find((n) => n.name === 'dbroker')!;
    expect(donor.exec).toEqual({ transport: 'ssh', host: donor.underlayAddress, user: 'ubuntu' });
  });

  test('lists the layout: 6 private, 2 public data nodes and the tunnel as the one link', () => {
    const data = inventory.nodes.filter((n) => n.role === 'data');
    expect(data.filter((n) => n.cloud === 'openstack')).toHaveLength(6);
    expect(data.filter((n) => n.cloud === 'azure').map((n) => n.site)).toEqual(['virginia', 'virginia']);
    expect(inventory.links.map((l) => l.id)).toEqual(['cbroker-dbroker/0']);
    expect(inventory.clientNode).toBe('client');
  });
});
