/**
 * A database's cluster on a fleet, by node name: resolve the fleet, pick the adapter, check each
 * name is a data node of that fleet (an InputError naming the field otherwise), then ask the
 * adapter. The database activities (activities/database.ts) add heartbeats around these; the CLI
 * and the benches can call them as they are.
 */
import { InputError } from '../../core/errors';
import type { ClusterInfo, ClusterSettings, DatabaseName, ResizeTiming } from '../../core/database';
import type { FleetRef } from '../../core/fleet-ref';
import type { Inventory, InventoryNode } from '../../core/inventory';
import { loadInventory } from '../inventory/inventory-loader';
import { adapterFor } from './registry';

function dataNode(inventory: Inventory, name: string, field: string): InventoryNode {
  const node = inventory.nodes.find((n) => n.name === name);
  if (!node) {
    throw new InputError(field, `no node "${name}" in fleet ${inventory.name}; its nodes are ${inventory.nodes.map((n) => n.name).join(', ')}`);
  }
  if (node.role !== 'data') throw new InputError(field, `"${name}" is a ${node.role} node; databases run on data nodes`);
  return node;
}

async function resolve(fleet: FleetRef, database: DatabaseName) {
  const inventory = await loadInventory(fleet);
  return { inventory, adapter: adapterFor(database, inventory) };
}

export async function startCluster(input: {
  fleet: FleetRef;
  database: DatabaseName;
  nodes: string[];
  settings?: ClusterSettings;
}): Promise<ClusterInfo> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  if (input.nodes.length === 0) throw new InputError('nodes', 'name at least one data node');
  const nodes = input.nodes.map((name, i) => dataNode(inventory, name, `nodes[${i}]`));
  const cpus = input.settings?.cpusPerNode;
  adapter.useCpuCap(
    cpus,
    inventory.nodes.filter((n) => n.role === 'data'),
  );
  for (const node of nodes) await adapter.install(node);
  const info = await adapter.formCluster(nodes, input.settings ?? {});
  return cpus === undefined ? info : { ...info, nonDefaultSettings: { ...info.nonDefaultSettings, 'cpus per node': `${cpus} (cgroup cap)` } };
}

export async function addNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  const node = dataNode(inventory, input.node, 'node');
  await adapter.install(node);
  return adapter.addNode(node);
}

export async function removeNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  return adapter.removeNode(dataNode(inventory, input.node, 'node'));
}

/** Crashes one member's server on purpose and leaves it down. */
export async function killNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  await adapter.killMember(dataNode(inventory, input.node, 'node').name);
  return { appliedAt: Date.now() };
}

/** Starts a killed member's server again in place. */
export async function reviveNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  await adapter.restartMember(dataNode(inventory, input.node, 'node').name);
  return { appliedAt: Date.now() };
}

export async function clusterStatus(input: { fleet: FleetRef; database: DatabaseName }): Promise<{ members: string[]; healthy: boolean }> {
  const { adapter } = await resolve(input.fleet, input.database);
  return adapter.status();
}

export async function stopCluster(input: { fleet: FleetRef; database: DatabaseName }): Promise<void> {
  const { adapter } = await resolve(input.fleet, input.database);
  await adapter.stop();
}

/** Empties the database (YCSB's flush phase); tables are re-made for the record shape's field count. */
export async function flushDatabase(input: { fleet: FleetRef; database: DatabaseName; fieldCount?: number }): Promise<void> {
  const { adapter } = await resolve(input.fleet, input.database);
  await adapter.flush({ fieldCount: input.fieldCount });
}
