/**
 * Azure is retiring default outbound access: every Azure VM must have an explicit way out
 * (a public IP on its NIC, or a NAT gateway on its subnet), and no subnet may lean on the
 * implicit one.
 */
import { buildFleet } from '../../infra/pulumi/fleet';
import { BUILD_TIMEOUT_MS, OPERATOR_SSH_PRIVATE_KEY, TYPES, mockCloud, settled, stackSettings, valueOf, type MockCloud } from './harness';

const stacks: [string, Record<string, unknown>][] = [
  ['hybrid-virginia', { layout: '1_2', nodes: 3 }],
  ['fhc-8dc', { placement: { virginia: 'azure:eastus', pune: 'azure:westindia' } }],
];

describe.each(stacks)('%s', (stack, overrides) => {
  let cloud: MockCloud;
  beforeAll(async () => {
    cloud = mockCloud(stack);
    await valueOf(buildFleet(stackSettings(stack, overrides), OPERATOR_SSH_PRIVATE_KEY));
    await settled();
  }, BUILD_TIMEOUT_MS);

  test('no Azure subnet relies on default outbound access', () => {
    const subnets = cloud.ofType(TYPES.azSubnet);
    expect(subnets.length).toBeGreaterThan(0);
    for (const s of subnets) expect([s.name, s.inputs.defaultOutboundAccess]).toEqual([s.name, false]);
  });

  test("every Azure VM goes out through its own public IP or its subnet's NAT gateway", () => {
    const natIds = new Set(cloud.ofType(TYPES.azNatGateway).map((n) => n.state.id));
    const natSubnets = new Set(
      cloud
        .ofType(TYPES.azSubnet)
        .filter((s) => natIds.has(s.inputs.natGateway?.id ?? ''))
        .map((s) => s.state.id),
    );
    const vms = cloud.ofType(TYPES.azVm);
    expect(vms.length).toBeGreaterThan(0);
    for (const vm of vms) {
      const nic = cloud.ofType(TYPES.azNic).find((n) => n.state.id === vm.inputs.networkProfile!.networkInterfaces![0].id)!;
      const ipConfig = nic.inputs.ipConfigurations![0];
      const wayOut = ipConfig.publicIPAddress ? 'public IP' : natSubnets.has(ipConfig.subnet!.id!) ? 'NAT gateway' : 'none';
      expect([vm.name, wayOut]).not.toEqual([vm.name, 'none']);
    }
  });

  test('a NAT gateway goes out through a static Standard public IP', () => {
    for (const nat of cloud.ofType(TYPES.azNatGateway)) {
      const ip = cloud.ofType(TYPES.azPublicIp).find((p) => p.state.id === nat.inputs.publicIpAddresses![0].id)!;
      expect([nat.inputs.sku!.name, ip.inputs.sku!.name, ip.inputs.publicIPAllocationMethod]).toEqual(['Standard', 'Standard', 'Static']);
    }
  });
});
