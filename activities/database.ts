/**
 * The database activities (activities/contracts.ts DatabaseActivities): resolve the fleet, pick the
 * adapter, check the input names real nodes, and heartbeat while a long resize runs.
 */
import { asyncLocalStorage } from '@temporalio/activity';
import { InputError } from '../core/errors';
import { loadInventory } from '../services/inventory/inventory-loader';
import type { Inventory, InventoryNode } from '../core/inventory';
import type { FleetRef } from '../core/fleet-ref';
import type { ClusterInfo, ClusterSettings, DatabaseActivities, DatabaseName, ResizeTiming } from './contracts';
import { adapterFor } from './databases/registry';

const HEARTBEAT_MS = 1_000;

/** Heartbeats every second while `work` runs, when called as a Temporal activity (not from the CLI or a bench). */
async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const activity = asyncLocalStorage.getStore();
  const timer = activity && setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    if (timer) clearInterval(timer);
  }
}

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
  return heartbeating(async () => {
    for (const node of nodes) await adapter.install(node);
    return adapter.formCluster(nodes, input.settings ?? {});
  });
}

export async function addNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  const node = dataNode(inventory, input.node, 'node');
  return heartbeating(async () => {
    await adapter.install(node);
    return adapter.addNode(node);
  });
}

export async function removeNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<ResizeTiming> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  const node = dataNode(inventory, input.node, 'node');
  return heartbeating(() => adapter.removeNode(node));
}

export async function killNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  await adapter.killMember(dataNode(inventory, input.node, 'node').name);
  return { appliedAt: Date.now() };
}

export async function reviveNode(input: { fleet: FleetRef; database: DatabaseName; node: string }): Promise<{ appliedAt: number }> {
  const { inventory, adapter } = await resolve(input.fleet, input.database);
  const node = dataNode(inventory, input.node, 'node');
  await heartbeating(() => adapter.restartMember(node.name));
  return { appliedAt: Date.now() };
}

export async function clusterStatus(input: { fleet: FleetRef; database: DatabaseName }): Promise<{ members: string[]; healthy: boolean }> {
  const { adapter } = await resolve(input.fleet, input.database);
  return heartbeating(() => adapter.status());
}

export async function stopCluster(input: { fleet: FleetRef; database: DatabaseName }): Promise<void> {
  const { adapter } = await resolve(input.fleet, input.database);
  await heartbeating(() => adapter.stop());
}

// This module implements the contract exactly (checked, not exported: the worker registers every export).
({ startCluster, addNode, removeNode, killNode, reviveNode, clusterStatus, stopCluster }) satisfies DatabaseActivities;
