/** Stack configuration: every stack file at the root is valid, and bad values fail naming the key and the fix. */
import { readdirSync } from 'fs';
import { join } from 'path';
import { InputError, InputErrors } from '../../core/errors';
import { planHybrid } from '../../infra/pulumi/plan-hybrid';
import { readSettings, type HybridSettings } from '../../infra/pulumi/settings';
import { OPERATOR_CONFIG, configSource, stackSettings } from './harness';

const ROOT = join(__dirname, '..', '..');
const STACKS = readdirSync(ROOT)
  .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
  .filter((s): s is string => !!s);

/** The problems a config has, as `field: problem` lines. */
function problems(values: Record<string, unknown>): string[] {
  try {
    readSettings(configSource({ ...OPERATOR_CONFIG, ...values }), 'test');
    return [];
  } catch (err) {
    if (err instanceof InputErrors) return err.errors.map((e) => e.message);
    if (err instanceof InputError) return [err.message];
    throw err;
  }
}

const hybrid = { kind: 'hybrid', region: 'virginia', layout: '6_2' };

describe('the stack files', () => {
  test('there is one per published layout', () => {
    expect(STACKS.sort()).toEqual(
      [
        'fhc-8dc',
        'hybrid-mumbai',
        'hybrid-sydney',
        'hybrid-virginia',
        'hybrid-packing-1x8',
        'hybrid-packing-2x4',
        'hybrid-packing-4x2',
        'hybrid-vertical-b2ms',
        'hybrid-vertical-b4ms',
        'hybrid-vertical-b8ms',
      ].sort(),
    );
  });

  test.each(STACKS)('%s is valid once the operator has set their own values', (stack) => {
    expect(() => stackSettings(stack)).not.toThrow();
  });

  test('the regional stacks have 8 nodes in their region', () => {
    for (const region of ['sydney', 'mumbai', 'virginia']) {
      const s = stackSettings(`hybrid-${region}`) as HybridSettings;
      expect([s.region.name, s.layout.private + s.layout.public]).toEqual([region, 8]);
    }
    expect((stackSettings('hybrid-mumbai') as HybridSettings).region.azureLocation).toBe('westindia');
  });

  test('vertical stacks: 2 private nodes and 1 public node of 2, 4, 8 cores', () => {
    for (const [stack, cores] of [
      ['hybrid-vertical-b2ms', 2],
      ['hybrid-vertical-b4ms', 4],
      ['hybrid-vertical-b8ms', 8],
    ] as const) {
      const plan = planHybrid(stackSettings(stack) as HybridSettings);
      const data = plan.nodes.filter((n) => n.role === 'data');
      expect(data.filter((n) => n.cloud === 'openstack').map((n) => n.size.name)).toEqual(['m1.small', 'm1.small']);
      expect(data.filter((n) => n.cloud === 'azure').map((n) => n.size.vcpus)).toEqual([cores]);
    }
  });

  test('packing stacks: 1 private node and 8 public cores as 4x2, 2x4, 1x8', () => {
    for (const [stack, count, cores] of [
      ['hybrid-packing-4x2', 4, 2],
      ['hybrid-packing-2x4', 2, 4],
      ['hybrid-packing-1x8', 1, 8],
    ] as const) {
      const data = planHybrid(stackSettings(stack) as HybridSettings).nodes.filter((n) => n.role === 'data');
      expect(data.filter((n) => n.cloud === 'openstack')).toHaveLength(1);
      const pub = data.filter((n) => n.cloud === 'azure');
      expect([pub.length, ...new Set(pub.map((n) => n.size.vcpus))]).toEqual([count, cores]);
    }
  });
});

describe('bad configuration is refused with the key and the fix', () => {
  test('unknown region', () => {
    expect(problems({ ...hybrid, region: 'tokyo' })).toEqual(['fragbench:region: must be one of: sydney, mumbai, virginia (got "tokyo")']);
  });

  test('unknown size', () => {
    const [problem] = problems({ ...hybrid, publicSize: 'Standard_B3ms' });
    expect(problem).toMatch(/^fragbench:publicSize: must be one of: .*Standard_B4ms.* \(got "Standard_B3ms"\)$/);
  });

  test('n+m not the node total', () => {
    expect(problems({ ...hybrid, layout: '5_2' })).toEqual([
      'fragbench:layout: 5_2 has 7 nodes but fragbench:nodes is 8; make n+m = 8 or set fragbench:nodes',
    ]);
    expect(problems({ ...hybrid, layout: '1_2', nodes: 3 })).toEqual([]);
  });

  test('n < 1', () => {
    expect(problems({ ...hybrid, layout: '0_8' })[0]).toMatch(/^fragbench:layout: "0_8" has no private node; n must be at least 1/);
  });

  test('a layout not written n_m', () => {
    expect(problems({ ...hybrid, layout: '6-2' })).toEqual([
      'fragbench:layout: must be n_m for a hybrid stack: n private (OpenStack) and m public (Azure) database nodes, n+m = fragbench:nodes, e.g. 6_2 (got "6-2")',
    ]);
  });

  test('overlapping CIDRs', () => {
    expect(problems({ ...hybrid, cidrs: { azureShared: '10.10.1.0/24' } })).toEqual([
      'fragbench:cidrs.azureShared: 10.10.1.0/24 overlaps cidrs.openstackShared (10.10.1.0/24); give each network its own range',
    ]);
  });

  test('a malformed CIDR and an unknown CIDR name', () => {
    expect(problems({ ...hybrid, cidrs: { tunnel: '10.30.0.1/30', mesh: '10.40.0.0/16' } })).toEqual([
      'fragbench:cidrs.mesh: unknown field; expected one of: openstackBroker, openstackShared, azureBroker, azureShared, tunnel',
      'fragbench:cidrs.tunnel: "10.30.0.1/30" has host bits set; did you mean 10.30.0.0/30?',
    ]);
  });

  test('several problems are reported together, and nothing is missing silently', () => {
    const found = problems({ kind: 'hybrid', operatorCidr: '', sshPublicKey: '', openstack: {} });
    expect(found.map((p) => p.split(':').slice(0, 2).join(':'))).toEqual(
      expect.arrayContaining([
        'fragbench:operatorCidr',
        'fragbench:sshPublicKey',
        'fragbench:region',
        'fragbench:layout',
        'fragbench:openstack.externalNetworkId',
      ]),
    );
  });

  test('SSH open to the whole internet is refused', () => {
    expect(problems({ ...hybrid, operatorCidr: '0.0.0.0/0' })[0]).toMatch(/^fragbench:operatorCidr: would open SSH to the whole internet/);
  });

  test('fragmented: unknown topology, unknown Azure region, bad placement', () => {
    expect(problems({ kind: 'fragmented', topology: 'fhc-99' })[0]).toMatch(/^fragbench:topology: .*"fhc-99" is neither a topology file/);
    expect(problems({ kind: 'fragmented', placement: { seoul: 'azure:moon' } })[0]).toMatch(
      /^fragbench:placement.seoul: must be one of: openstack, azure:.*azure:eastus, .* \(got "azure:moon"\)$/,
    );
    expect(problems({ kind: 'fragmented', placement: { seoul: 'gcp' } })[0]).toMatch(
      /^fragbench:placement.seoul: must be one of: openstack, azure:.* \(got "gcp"\)$/,
    );
  });

  test('an unknown kind', () => {
    expect(problems({ kind: 'edge' })).toEqual(['fragbench:kind: must be one of: hybrid, fragmented (got "edge")']);
  });
});
