/**
 * The one schema module (core/schema/): a single Ajv instance compiles every published schema,
 * and one describer turns a bad field into `field: what is wrong` plus what it should be, for the
 * scenario, the topology, the inventory and a Pulumi stack's settings alike.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputErrors } from '../../core/errors';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { pointerToPath, withoutFields } from '../../core/schema/pointers';
import { PUBLISHED_SCHEMAS, schemaProblems, validatorOf, type SchemaName } from '../../core/schema/validator';
import { validateInventory } from '../../core/validate-inventory';
import { validateTopology } from '../../core/validate-topology';
import { localInventory } from '../../infra/local/inventory';
import { planFleet } from '../../infra/local/plan';
import { readSettings } from '../../infra/pulumi/settings';
import { smallTopology } from '../support/small-topology';
import { inputProblems } from '../support/input-problems';

const ROOT = path.resolve(__dirname, '../..');
const lines = (work: () => unknown) => inputProblems(work).map((e) => e.message);

describe('one Ajv instance compiles every published schema', () => {
  test.each(Object.keys(PUBLISHED_SCHEMAS) as SchemaName[])('%s: the published file compiles, once', (name) => {
    const { file, schema } = PUBLISHED_SCHEMAS[name];
    expect(schema).toEqual(JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')));
    const check = validatorOf(name);
    expect(typeof check).toBe('function');
    expect(validatorOf(name)).toBe(check);
  });

  test('a schema completed at run time replaces the earlier compilation under the same $id', () => {
    const published = PUBLISHED_SCHEMAS.topology.schema;
    const stricter = { ...published, required: [...(published.required as string[]), 'client'] };
    const topology = {
      name: 't',
      nodes: [
        { name: 'a', site: 'x' },
        { name: 'b', site: 'y' },
      ],
      links: [{ a: 'a', b: 'b', latencyMs: 1, bandwidthMbps: 1 }],
    };
    try {
      expect(schemaProblems('topology', topology, stricter).map((p) => p.path)).toEqual(['client']);
    } finally {
      expect(schemaProblems('topology', topology)).toEqual([]);
    }
  });
});

describe('a bad field is named, with what is wrong and what it should be', () => {
  test('scenario', () => {
    const yaml = 'name: t\nexperiment: x\nfleet: { local: fhc-4 }\nphases: [{ phase: run, duration: 10, warmpu: true }]';
    expect(lines(() => checkScenarioShape(parseScenarioText(yaml)))).toEqual([
      expect.stringMatching(/^phases\[0\]\.warmpu: unknown field; expected one of: phase, .*warmup/),
    ]);
  });

  test('topology', () => {
    const topology = { ...smallTopology, links: [{ ...smallTopology.links[0], latencyMs: -5 }, ...smallTopology.links.slice(1)] };
    expect(lines(() => validateTopology(topology))).toEqual([
      'links[0].latencyMs: must be >= 0 (got -5): round-trip latency in ms, zero or more, split evenly over the two directions; may be left out when both "a->b" and "b->a" give delayMs, or when both nodes have a position (the distance model gives it)',
    ]);
  });

  test('topology: a value that is none of the alternatives says what they are', () => {
    expect(lines(() => validateTopology({ ...smallTopology, failover: 'slow' }))).toEqual([
      'failover: must be "fast" or "tinc-defaults" or object (got "slow")',
    ]);
  });

  test('inventory', () => {
    const plan = planFleet(smallTopology);
    const inventory = localInventory(plan, new Map(plan.nodes.map((n, i) => [n.name, `${'k'.repeat(42)}${'AEIM'[i]}=`])), 'boringtun 0.7.1');
    const broken = { ...inventory, nodes: [{ ...inventory.nodes[0], cloud: 'gcp' }, ...inventory.nodes.slice(1)] };
    expect(lines(() => validateInventory(broken, 'fleet.json'))).toEqual([
      'fleet.json.nodes[0].cloud: must be one of: local, openstack, azure (got "gcp")',
    ]);
  });

  test('stack settings: the config key, the rule and what the value is for', () => {
    const config = {
      kind: 'hybrid',
      region: 'virginia',
      layout: '4_4',
      operatorCidr: '192.0.2.7/32',
      sshPublicKey: 'ssh-ed25519 AAAA',
      openstack: '{"externalNetworkId":"x"}',
    };
    const source = (values: Record<string, string>) => (key: string) => values[key];
    expect(lines(() => readSettings(source({ ...config, wireguardPort: '80' }), 't'))).toEqual([
      'fragbench:wireguardPort: must be >= 1024 (got 80): the UDP port of every WireGuard endpoint, a whole number from 1024 to 65000',
    ]);
    expect(lines(() => readSettings(source({ ...config, nodes: 'eight' }), 't'))).toEqual([
      'fragbench:nodes: must be integer (got "eight"): the number of database nodes of a hybrid stack, n+m of its layout',
    ]);
  });

  test('a key required only for one kind says what it is for (its description is found through the if/then)', () => {
    const problems = schemaProblems('stackSettings', {
      config: { 'fragbench:kind': 'hybrid', 'fragbench:operatorCidr': '192.0.2.7/32', 'fragbench:sshPublicKey': 'k', 'fragbench:layout': '1_1' },
    });
    expect(problems).toEqual([
      {
        pointer: '/config/fragbench:region',
        path: 'config.fragbench:region',
        problem: 'is required: the Azure region the private cloud (Adelaide) bursts into, for a hybrid stack',
      },
    ]);
  });

  test('every problem of a value comes at once, one line per field', () => {
    expect(() => validateTopology({ name: 'Bad Name', nodes: [], links: [], extra: 1 })).toThrow(InputErrors);
    expect(inputProblems(() => validateTopology({ name: 'Bad Name', nodes: [], links: [], extra: 1 })).map((e) => e.field)).toEqual([
      'extra',
      'name',
      'nodes',
      'links',
    ]);
  });
});

describe('pointers', () => {
  test('a pointer becomes the dotted path users read, escapes undone', () => {
    expect(pointerToPath('/phases/1/events/0/cut')).toBe('phases[1].events[0].cut');
    expect(pointerToPath('/config/fragbench:cidrs/a~1b~0c')).toBe('config.fragbench:cidrs.a/b~c');
    expect(pointerToPath('')).toBe('');
  });

  test('bad fields are set aside, the rest kept, the original untouched', () => {
    const value = { config: { a: 1, cidrs: { good: 'x', bad: 'y' } } };
    expect(withoutFields(value, ['/config/cidrs/bad', '/config/missing', '/nowhere/at/all'])).toEqual({ config: { a: 1, cidrs: { good: 'x' } } });
    expect(value.config.cidrs.bad).toBe('y');
  });
});

/** Every TypeScript file of the project's own source, test/ included. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    // .cache holds downloads and built images (a VM node's root filesystem), none of it ours.
    if (['node_modules', '.git', '.cache', 'results', 'emulator', 'ycsb'].includes(entry)) return [];
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return entry.endsWith('.ts') ? [file] : [];
  });
}

const AJV_USE = /new\s+Ajv\b|from\s+'ajv(?:\/[^']*)?'|require\(\s*'ajv'/;

test('no file outside core/schema/ makes an Ajv instance or imports ajv', () => {
  const schemaModule = path.join(ROOT, 'core', 'schema') + path.sep;
  const files = sourceFiles(ROOT);
  expect(files.length).toBeGreaterThan(100);
  // this file spells the patterns out to test the check itself
  const users = files.filter((f) => f !== __filename && AJV_USE.test(readFileSync(f, 'utf8')));
  expect(users.filter((f) => !f.startsWith(schemaModule)).map((f) => path.relative(ROOT, f))).toEqual([]);
  expect(users.map((f) => path.relative(ROOT, f))).toContain(path.join('core', 'schema', 'validator.ts'));
});

test('the check sees the ways ajv is brought in', () => {
  for (const line of [
    'const ajv = new Ajv({ allErrors: true });',
    "import Ajv from 'ajv';",
    "import addFormats from 'ajv/dist/2020';",
    "const Ajv = require('ajv');",
  ]) {
    expect(line).toMatch(AJV_USE);
  }
  expect("import { checkShape } from './schema/validator';").not.toMatch(AJV_USE);
});

test('core/schema imports only core, packages and the published schemas', () => {
  const dir = path.join(ROOT, 'core', 'schema');
  const outside = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...readFileSync(path.join(dir, f), 'utf8').matchAll(/from\s+'(\.[^']+)'/g)].map((m) => [f, m[1]] as const))
    .filter(([, spec]) => !spec.endsWith('.schema.json') && !path.resolve(dir, spec).startsWith(path.join(ROOT, 'core') + path.sep));
  expect(outside).toEqual([]);
});
