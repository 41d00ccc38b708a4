/** jest glue for infra/local/lan-fleet.ts: one adapter on its own LAN per test file. */
import { findNode, type Inventory, type InventoryNode } from '../../core/inventory';
import { createLanFleet, type LanFleet } from '../../infra/local/lan-fleet';
import { runHost } from '../../platform/command';
import { waitFor } from '../../platform/wait';

/**
 * A crash of `node`'s database server: SIGKILL to everything in its namespace (only the server
 * runs there), then waits until the adapter finds the member dead.
 */
export async function crashMember(adapter: { deadMembers(): Promise<string[]> }, node: string): Promise<void> {
  const { stdout } = await runHost(['ip', 'netns', 'pids', `fb-${node}`]);
  for (const pid of stdout.split('\n').filter(Boolean)) await runHost(['kill', '-KILL', pid]);
  await waitFor(async () => ((await adapter.deadMembers()).includes(node) ? true : undefined), {
    what: `${node} to be found dead`,
    timeoutMs: 5_000,
  });
}

/**
 * For a jest file that tests one adapter on its own LAN: builds the LAN before the tests and,
 * after them, stops the adapter's database and tears the LAN down.
 */
export function adapterOnLan<A extends { stop(): Promise<void> }>(tag: string, dataNodes: number, create: (inventory: Inventory) => A) {
  let fleet: LanFleet | undefined;
  let adapter: A | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the LAN is built in beforeAll: use it inside tests');
    return value;
  };
  beforeAll(async () => {
    fleet = await createLanFleet(tag, dataNodes);
    adapter = create(fleet.inventory);
    await adapter.stop(); // a database left by an earlier run that died
  });
  afterAll(async () => {
    await adapter?.stop();
    await fleet?.teardown();
  });
  return {
    get fleet(): LanFleet {
      return ready(fleet);
    },
    get adapter(): A {
      return ready(adapter);
    },
    node: (name: string): InventoryNode => findNode(ready(fleet).inventory, name),
  };
}
