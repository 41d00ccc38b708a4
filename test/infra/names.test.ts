/**
 * Names the clouds see: two stacks built side by side (one OpenStack project, one Azure
 * subscription) share none, and a VM being replaced gives up its name and fixed-address ports
 * before its replacement takes them.
 */
import { buildFleet } from '../../infra/pulumi/fleet';
import { readSettings } from '../../infra/pulumi/settings';
import {
  BUILD_TIMEOUT_MS,
  OPERATOR_CONFIG,
  OPERATOR_SSH_PRIVATE_KEY,
  TYPES,
  configSource,
  mockCloud,
  settled,
  stackFile,
  valueOf,
  type MockCloud,
} from './harness';

/** Builds a stack from a stack file's config under another stack name. */
async function build(file: string, stack: string, overrides: Record<string, unknown>): Promise<MockCloud> {
  const cloud = mockCloud(stack);
  const settings = readSettings(configSource({ ...OPERATOR_CONFIG, ...stackFile(file), ...overrides }), stack);
  await valueOf(buildFleet(settings, OPERATOR_SSH_PRIVATE_KEY));
  await settled();
  return cloud;
}

/** Names given to the clouds explicitly (the rest Pulumi auto-names with a random suffix). */
function cloudNames(cloud: MockCloud): string[] {
  const openstack = cloud.resources.filter((r) => r.type.startsWith('openstack:') && r.inputs.name).map((r) => `${r.type} ${String(r.inputs.name)}`);
  const azure = cloud.ofType(TYPES.azVm).flatMap((r) => [`vm ${r.inputs.vmName}`, `computer ${r.inputs.osProfile!.computerName}`]);
  return [...openstack, ...azure];
}

const layouts: [string, Record<string, unknown>][] = [
  ['hybrid-virginia', { layout: '1_1', nodes: 2 }],
  ['fhc-8dc', { placement: { virginia: 'azure:eastus' } }],
];

describe.each(layouts)('%s', (file, overrides) => {
  let first: MockCloud;
  let second: MockCloud;
  beforeAll(async () => {
    first = await build(file, `${file}-a`, overrides);
    second = await build(file, `${file}-b`, overrides);
  }, BUILD_TIMEOUT_MS * 2);

  test('two stacks of the same layout share no cloud-side name', () => {
    const names = cloudNames(first);
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => cloudNames(second).includes(n))).toEqual([]);
  });

  test('within a stack every named resource has its own name, and VM names carry the stack and the node', () => {
    const names = cloudNames(first);
    expect(new Set(names).size).toBe(names.length);
    for (const vm of [...first.ofType(TYPES.osInstance).map((r) => r.inputs.name), ...first.ofType(TYPES.azVm).map((r) => r.inputs.vmName)]) {
      expect(vm).toMatch(new RegExp(`^fb-${file}-a-[a-z0-9]+(-[a-z]+)?$`));
    }
  });

  test('a VM is deleted before its replacement is made, freeing its name and fixed-address ports', () => {
    const vms = [...first.ofType(TYPES.osInstance), ...first.ofType(TYPES.azVm)];
    expect(vms.length).toBeGreaterThan(0);
    for (const vm of vms) expect([vm.name, vm.options.deleteBeforeReplace]).toEqual([vm.name, true]);
  });
});
