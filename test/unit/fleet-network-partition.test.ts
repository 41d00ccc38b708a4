/**
 * A partition and its heal on a fleet's network (infra/shaping/fleet-network.ts), each one change:
 * the shaper cuts or restores every link first, then the settings are saved once. What is saved
 * is what the link-by-link version saved: a link cut before the partition stays cut through its
 * heal, and a one-way cut on a healed link goes with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validateTopology } from '../../core/validate-topology';
import { planFleet } from '../../infra/local/plan';
import { localInventory } from '../../infra/local/inventory';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import type { LinkShaper } from '../../infra/shaping/shaper';
import type { InventoryLink } from '../../core/inventory';
import type { Direction } from '../../core/link-conditions';

/** Records the cuts and restores, in order. */
class RecordingShaper implements LinkShaper {
  readonly calls: string[] = [];
  async apply() {}
  async applyMany() {}
  cut(link: InventoryLink, direction?: Direction) {
    this.calls.push(`cut ${link.id}${direction ? ` ${direction}` : ''}`);
    return Promise.resolve();
  }
  restore(link: InventoryLink, direction?: Direction) {
    this.calls.push(`restore ${link.id}${direction ? ` ${direction}` : ''}`);
    return Promise.resolve();
  }
  async seedDraws() {}
  async clear() {}
}

const TOPOLOGY = {
  name: 'fb-partition-unit',
  client: 'c',
  nodes: ['a', 'b', 'c', 'd'].map((name) => ({ name, site: name })),
  links: [
    ['a', 'b'],
    ['a', 'c'],
    ['a', 'd'],
    ['b', 'c'],
    ['b', 'd'],
    ['c', 'd'],
  ].map(([a, b]) => ({ a, b, latencyMs: 10, bandwidthMbps: 100 })),
};

const dir = mkdtempSync(path.join(tmpdir(), 'fb-partition-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plan = planFleet(validateTopology(TOPOLOGY));
const keys = new Map(plan.nodes.map((n) => [n.name, Buffer.from(n.name.padEnd(32, '.')).toString('base64')]));
const inventory = localInventory(plan, keys, 'test');

test('a partition cuts the links not cut before; its heal restores exactly those, and their one-way cuts', async () => {
  const shaper = new RecordingShaper();
  const net = new FleetNetwork(inventory, shaper, path.join(dir, 'settings.json'));
  await net.cut('a-b/0');
  await net.cut('a-c/0', 'ba');
  await net.cut('b-d/0', 'ab');

  const cutNow = await net.partition(['a-b/0', 'a-c/0', 'a-d/0']);
  expect(cutNow).toEqual(['a-c/0', 'a-d/0']);
  expect(net.settings()).toMatchObject({ cut: ['a-b/0', 'a-c/0', 'a-d/0'], partitioned: ['a-c/0', 'a-d/0'] });

  expect(await net.heal()).toEqual(['a-c/0', 'a-d/0']);
  const healed = net.settings();
  // a-b was cut before the partition: still cut. a-c's one-way cut went with its heal; b-d's stays.
  expect(healed).toMatchObject({ cut: ['a-b/0'], partitioned: [], oneWayCuts: [{ link: 'b-d/0', direction: 'ab' }] });
  expect(shaper.calls).toEqual(['cut a-b/0', 'cut a-c/0 ba', 'cut b-d/0 ab', 'cut a-c/0', 'cut a-d/0', 'restore a-c/0', 'restore a-d/0']);
  // A second heal has nothing to restore.
  expect(await net.heal()).toEqual([]);
  expect(shaper.calls).toHaveLength(7);
});

test('a partition naming an unknown link cuts nothing', async () => {
  const shaper = new RecordingShaper();
  const net = new FleetNetwork(inventory, shaper, path.join(dir, 'unknown.json'));
  await expect(net.partition(['a-b/0', 'a-z/0'])).rejects.toThrow(/a-z\/0/);
  expect(shaper.calls).toEqual([]);
  expect(net.settings().cut).toEqual([]);
});
