/**
 * Every dynamic provider the program declares, as `pulumi up` runs it: the engine gets the
 * provider as text from Pulumi's own closure serializer (the `__provider` input), and its
 * dynamic provider host loads that text as a fresh module and calls it. Under mocks create is
 * never called, so the test does what the host does: load the very text the program produced
 * and call create, for every key kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { createRequire } from 'module';
import { tmpdir } from 'os';
import { join } from 'path';
import * as pulumi from '@pulumi/pulumi';
import { buildFleet } from '../../infra/pulumi/fleet';
import { KEY_KINDS, type KeyMaterial } from '../../infra/pulumi/keys/key-material';
import { keyPairProvider } from '../../infra/pulumi/keys/key-pair';
import { BUILD_TIMEOUT_MS, OPERATOR_SSH_PRIVATE_KEY, TYPES, mockCloud, settled, stackSettings, valueOf } from './harness';
import { keyProblems } from './key-checks';

const DYNAMIC = 'pulumi-nodejs:dynamic/';

interface LoadedProvider {
  create(inputs: Record<string, unknown>): Promise<{ id: string; outs: Record<string, unknown> }>;
}

/** Loads serialized provider text the way Pulumi's host does: a module of its own, outside jest's registry. */
function loadProvider(text: string, file: string): LoadedProvider {
  writeFileSync(file, text);
  // Node's own require (not jest's), so the module runs in a fresh module scope like the host's.
  const mod = createRequire(file)(file) as { handler: () => LoadedProvider };
  return mod.handler();
}

/** type -> the serialized provider texts of the resources of that type, across both kinds of stack. */
const providers = new Map<string, Set<string>>();
const dir = mkdtempSync(join(tmpdir(), 'fb-dynamic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  for (const [stack, overrides] of [
    ['hybrid-virginia', { layout: '1_1', nodes: 2 }],
    ['fhc-8dc', {}],
  ] as const) {
    const cloud = mockCloud(stack);
    await valueOf(buildFleet(stackSettings(stack, overrides), OPERATOR_SSH_PRIVATE_KEY));
    await settled();
    for (const r of cloud.resources.filter((x) => x.type.startsWith(DYNAMIC))) {
      const text = r.inputs.__provider;
      if (typeof text !== 'string' || !text) throw new Error(`${r.type} ${r.name} has no serialized provider`);
      providers.set(r.type, (providers.get(r.type) ?? new Set()).add(text));
    }
  }
}, BUILD_TIMEOUT_MS * 2);

test('the program has exactly the dynamic providers this test knows how to check', () => {
  expect([...providers.keys()]).toEqual([TYPES.keyPair]);
});

test.each(KEY_KINDS)('the key pair provider, serialized and reloaded, creates a valid %s key pair', async (kind) => {
  const texts = [...(providers.get(TYPES.keyPair) ?? [])];
  expect(texts.length).toBeGreaterThan(0);
  for (const [i, text] of texts.entries()) {
    const provider = loadProvider(text, join(dir, `key-pair-${kind}-${i}.js`));
    const { id, outs } = await provider.create({ kind, rotation: '', comment: 'fragbench-test' });
    expect(id).toBeTruthy();
    expect(keyProblems(kind, outs as unknown as KeyMaterial)).toEqual([]);
  }
});

test("Pulumi's serializer, called on the provider directly, gives a provider that works too", async () => {
  const { text } = await pulumi.runtime.serializeFunction(() => keyPairProvider, { allowSecrets: true });
  const provider = loadProvider(text, join(dir, 'key-pair-direct.js'));
  for (const kind of KEY_KINDS) {
    const { outs } = await provider.create({ kind, rotation: '', comment: 'fragbench-test' });
    expect(keyProblems(kind, outs as unknown as KeyMaterial)).toEqual([]);
  }
});
