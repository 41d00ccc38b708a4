/**
 * Runs one resize of a database adapter in a process of its own, so that a test can kill it
 * part-way, as a crashed worker would be:
 *   node -r tsx/cjs test/support/resize-in-child.ts <inventory.json> <database> add|remove <node>
 */
import { readFileSync } from 'node:fs';
import { adapterFor } from '../../services/databases/registry';
import type { DatabaseName } from '../../activities/contracts';
import { findNode } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';

async function main(): Promise<void> {
  const [inventoryFile, database, kind, nodeName] = process.argv.slice(2);
  const inventory = validateInventory(JSON.parse(readFileSync(inventoryFile, 'utf8')));
  const adapter = adapterFor(database as DatabaseName, inventory);
  const node = findNode(inventory, nodeName);
  const timing = kind === 'add' ? await adapter.addNode(node) : await adapter.removeNode(node);
  console.log(JSON.stringify(timing));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
