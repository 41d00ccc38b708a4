/**
 * Runs one resize of a database adapter in a process of its own, so that a test can kill it
 * part-way, as a crashed worker would be:
 *   node -r tsx/cjs test/support/resize-in-child.ts <inventory.json> <database> add|remove <node> [pause-before]
 * With `pause-before`, the first command whose argv holds that word waits before it runs, until the
 * test kills the process (at most a minute): a step that follows its predecessor at once (del-node
 * after the last slot) then leaves the test the state between them to see and kill in, however
 * slowly a loaded host lets it look. A fixed pause of 2 s was missed on a loaded CI host.
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

/** Long enough for any look the test makes; short enough that a test that never kills ends. */
const PAUSE_UNTIL_KILLED_MS = 60_000;

function pausing(word: string): ExecProvider {
  let paused = false;
  return (node) => {
    const exec = defaultExecProvider(node);
    return {
      where: exec.where,
      spawnDetached: (argv, logFile, options) => exec.spawnDetached(argv, logFile, options),
      run: async (argv, options) => {
        if (argv.includes(word) && !paused) {
          paused = true;
          await sleep(PAUSE_UNTIL_KILLED_MS);
        }
        return exec.run(argv, options);
      },
    };
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
