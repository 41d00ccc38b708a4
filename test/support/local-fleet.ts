/**
 * A topology brought up as the local fleet for one netns test file, and taken down after it
 * whatever happened: the file is written to a temporary directory, as a user's own would be.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Inventory } from '../../core/inventory';
import type { Topology } from '../../core/topology';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { loadInventory } from '../../services/inventory/inventory-loader';

/** Registers beforeAll/afterAll; the returned function gives the fleet's inventory once it is up. */
export function useLocalFleet(topology: Topology): () => Inventory {
  const dir = mkdtempSync(join(tmpdir(), `fb-${topology.name}-test-`));
  let inventory: Inventory | undefined;
  beforeAll(async () => {
    const file = join(dir, `${topology.name}.yaml`);
    writeFileSync(file, stringify(topology));
    await fleetUp(file);
    inventory = await loadInventory({ kind: 'local' });
  });
  afterAll(async () => {
    await fleetDown();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!inventory) throw new Error(`the ${topology.name} fleet is not up (beforeAll failed?)`);
    return inventory;
  };
}
