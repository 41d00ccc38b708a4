// Resolving a FleetRef to an inventory: from a file, and the errors for a bad file or a missing pulumi CLI.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { loadTopology } from '../../core/load-topology';
import { localInventory } from '../../infra/local/inventory';
import { planFleet } from '../../infra/local/plan';

const dir = mkdtempSync(join(tmpdir(), 'fb-inventory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plan = planFleet(loadTopology('fhc-4'));
const inventory = localInventory(plan, new Map(plan.nodes.map((n, i) => [n.name, `${'k'.repeat(42)}${'AEIMQ'[i]}=`])), 'boringtun 0.7.1');

test('an inventory file is read and validated', async () => {
  const file = join(dir, 'ok.json');
  writeFileSync(file, JSON.stringify(inventory));
  const loaded = await loadInventory({ kind: 'file', path: file });
  expect(loaded.links.map((l) => l.id)).toContain('sydney-pune/0');
  expect(loaded.clientNode).toBe('client');
});

test('a bad inventory file is refused naming the field', async () => {
  const file = join(dir, 'bad.json');
  const broken = { ...inventory, links: [{ ...inventory.links[0], a: 'nowhere' }] };
  writeFileSync(file, JSON.stringify(broken));
  await expect(loadInventory({ kind: 'file', path: file })).rejects.toMatchObject({ field: `${file}.links[0].a` });
  await expect(loadInventory({ kind: 'file', path: join(dir, 'missing.json') })).rejects.toMatchObject({ field: 'fleet.path' });
});

test('a Pulumi stack without the pulumi CLI says how to fix it', async () => {
  const path = process.env.PATH;
  process.env.PATH = dir;
  try {
    await expect(loadInventory({ kind: 'pulumi', stack: 'dev' })).rejects.toThrow(/pulumi CLI is not installed/);
  } finally {
    process.env.PATH = path;
  }
});
