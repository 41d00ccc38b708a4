/**
 * settings.schema.json is what editors check the stack files with and what readSettings checks a
 * stack's config with: its lists must be the catalog's (the sizes the plans know, the published
 * regions and sizes), and every committed stack file must pass it as an editor would read it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { schemaProblems } from '../../core/schema/validator';
import { HYBRID_REGIONS, sizeNames } from '../../infra/pulumi/catalog';
import schema from '../../infra/pulumi/settings.schema.json';
import regions from '../../topologies/reference/hybrid-regions.json';
import { OPERATOR_CONFIG } from './harness';

const ROOT = join(__dirname, '..', '..');
const STACK_FILES = readdirSync(ROOT).filter((f) => /^Pulumi\..+\.yaml$/.test(f));
const keys = schema.definitions.config.properties;

test("the sizes a stack may name are the catalog's, cloud by cloud", () => {
  expect(schema.definitions.openstackSize.enum).toEqual(sizeNames('openstack'));
  expect(schema.definitions.azureSize.enum).toEqual(sizeNames('azure'));
});

test('the regions are the published ones, and the default node sizes the published VMs', () => {
  expect(keys['fragbench:region'].enum).toEqual(HYBRID_REGIONS.map((r) => r.name));
  expect([keys['fragbench:privateSize'].default, keys['fragbench:publicSize'].default]).toEqual([regions.private.vm.flavor, regions.publicVm.size]);
});

test('a placement is OpenStack or an Azure location', () => {
  const placements = schema.definitions.placement.enum;
  expect(placements[0]).toBe('openstack');
  expect(placements.slice(1).every((p) => /^azure:[a-z0-9]+$/.test(p))).toBe(true);
  expect(placements).toEqual(expect.arrayContaining(['azure:eastus', ...HYBRID_REGIONS.map((r) => `azure:${r.azureLocation}`)]));
});

describe.each(STACK_FILES)('%s', (file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const document = parse(text) as { config: Record<string, unknown> };

  test('names the schema for editors on its first line', () => {
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=infra/pulumi/settings.schema.json');
  });

  test('passes the schema once the operator has set their own values, and only then', () => {
    const operator = Object.fromEntries(Object.entries(OPERATOR_CONFIG).map(([k, v]) => [`fragbench:${k}`, v]));
    expect(schemaProblems('stackSettings', { ...document, config: { ...document.config, ...operator } })).toEqual([]);
    expect(schemaProblems('stackSettings', document).map((p) => p.path)).toEqual(['config.fragbench:operatorCidr', 'config.fragbench:sshPublicKey']);
  });
});

test('a misspelt key is caught in the file, listing the keys there are', () => {
  const [problem] = schemaProblems('stackSettings', {
    config: {
      'fragbench:kind': 'fragmented',
      'fragbench:operatorCidr': '192.0.2.7/32',
      'fragbench:sshPublicKey': 'k',
      'fragbench:disk': 40,
      'azure-native:location': 'eastus',
    },
  });
  expect(problem.path).toBe('config.fragbench:disk');
  expect(problem.problem).toMatch(/^unknown field; expected one of: fragbench:kind, .*fragbench:diskGB$/);
});
