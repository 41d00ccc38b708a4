/**
 * Runs one resize of a database adapter in a process of its own, so that a test can kill it
 * part-way, as a crashed worker would be:
 *   node -r tsx/cjs test/support/resize-in-child.ts <inventory.json> <database> add|remove <node> [pause-before]
 * With `pause-before`, every command whose argv holds that word waits 2 s before it runs: a step
 * that follows its predecessor at once (del-node after the last slot) then leaves the test a
 * window to see the state between them and kill there, instead of racing it.
 */
import { readFileSync } from 'node:fs';
import { adapterFor } from '../../services/databases/registry';
import { defaultExecProvider, type ExecProvider } from '../../services/databases/node-shell';
import { sleep } from '../../platform/wait';
import type { DatabaseName } from '../../activities/contracts';
import { findNode } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';

async function main(): Promise<void> {
  const [inventoryFile, database, kind, nodeName, pauseBefore] = process.argv.slice(2);
  const inventory = validateInventory(JSON.parse(readFileSync(inventoryFile, 'utf8')));
  const adapter = adapterFor(database as DatabaseName, inventory, pauseBefore ? pausing(pauseBefore) : defaultExecProvider);
  const node = findNode(inventory, nodeName);
  const timing = kind === 'add' ? await adapter.addNode(node) : await adapter.removeNode(node);
  console.log(JSON.stringify(timing));
}

function pausing(word: string): ExecProvider {
  return (node) => {
    const exec = defaultExecProvider(node);
    return {
      where: exec.where,
      spawnDetached: (argv, logFile, options) => exec.spawnDetached(argv, logFile, options),
      run: async (argv, options) => {
        if (argv.includes(word)) await sleep(2000);
        return exec.run(argv, options);
      },
    };
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
