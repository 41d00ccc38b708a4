/**
 * Resolves the fleets a scenario names to what validation and activities need: the FleetRef
 * activities take, and the fleet's nodes and links. A fleet that must be running (to start a
 * run) is read from its inventory; otherwise (checking a scenario with no fleet up) a local
 * topology stands in for the inventory the fleet would have.
 */
import path from 'node:path';
import { InputError } from '../../core/errors';
import type { FleetRef } from '../../core/fleet-ref';
import type { Inventory } from '../../core/inventory';
import { linkId } from '../../core/inventory';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { loadTopology } from '../../core/load-topology';
import type { FleetSpec } from '../../core/scenario';
import type { FleetView, ResolvedFleet } from '../../core/scenario-plan';
import { clientOf, linkConditionsOf, linkType, type Topology } from '../../core/topology';
import { describeStack, PUBLISHED_STACK, resolveStack, type StackChoice } from '../../core/stack';

/** Paths in scenarios are relative to the project root, wherever the CLI or worker runs. */
export const PROJECT_ROOT = path.resolve(__dirname, '../..');

export function projectPath(p: string): string {
  return path.resolve(PROJECT_ROOT, p);
}

/** `running`: the fleet must be up (to run on it). `offline`: check names against its definition. */
export type FleetMode = 'running' | 'offline';

export interface LoadedFleet extends ResolvedFleet {
  /** Present when the fleet's real inventory was read. */
  inventory?: Inventory;
}

export function fleetRefOf(spec: FleetSpec): FleetRef {
  if ('local' in spec) return { kind: 'local' };
  if ('inventoryFile' in spec) return { kind: 'file', path: projectPath(spec.inventoryFile) };
  return { kind: 'pulumi', stack: spec.pulumiStack, cwd: spec.cwd ? projectPath(spec.cwd) : undefined };
}

/** What a local topology's fleet will look like once up: the client node and data nodes, link ids. */
export function topologyView(topology: Topology, stack?: StackChoice): FleetView {
  const client = clientOf(topology);
  return {
    name: topology.name,
    clientNode: client,
    stack: resolveStack(topology.stack, stack),
    nodes: topology.nodes.map((n) => ({
      name: n.name,
      role: n.name === client ? 'client' : 'data',
      ...(n.tags ? { tags: n.tags } : {}),
      ...(n.position ? { position: n.position } : {}),
    })),
    ...(topology.distance ? { distance: topology.distance } : {}),
    links: topology.links.map((l) => {
      const { latencyMs, bandwidthMbps } = linkConditionsOf(l);
      return { id: linkId(l.a, l.b, linkType(l)), a: l.a, b: l.b, latencyMs, bandwidthMbps };
    }),
  };
}

/** The loader's problem, under the scenario's field name, with what to do about it. */
function reword(err: unknown, field: string, fix: string): InputError {
  const problem = err instanceof InputError ? err.problem : (err as Error).message;
  return new InputError(field, `${problem}; ${fix}`);
}

async function readInventory(ref: FleetRef, field: string, fix: string): Promise<Inventory> {
  try {
    return await loadInventory(ref);
  } catch (err) {
    throw reword(err, field, fix);
  }
}

export async function loadFleet(spec: FleetSpec, where: string, mode: FleetMode): Promise<LoadedFleet> {
  const ref = fleetRefOf(spec);
  let inventory: Inventory;
  if ('local' in spec) {
    const topology = loadTopology(spec.local);
    if (mode === 'offline') return { ref, view: topologyView(topology, spec.stack) };
    inventory = await readInventory(ref, `${where}.local`, `this scenario runs on it: fragbench fleet up ${spec.local}`);
    if (inventory.name !== topology.name) {
      throw new InputError(
        `${where}.local`,
        `the local fleet runs "${inventory.name}", not "${topology.name}": run \`fragbench fleet down\` then \`fragbench fleet up ${spec.local}\``,
      );
    }
    const wanted = resolveStack(topology.stack, spec.stack);
    const running = inventory.stack ?? PUBLISHED_STACK;
    if (running.overlay !== wanted.overlay || running.encryption !== wanted.encryption) {
      throw new InputError(
        `${where}.stack`,
        `the local fleet runs ${describeStack(running)}, and this scenario asks for ${describeStack(wanted)}: take it down (\`fragbench fleet down\`) and let the run bring it up`,
      );
    }
  } else if ('inventoryFile' in spec) {
    inventory = await readInventory(ref, `${where}.inventoryFile`, 'give the path of an inventory JSON file, relative to the project root');
  } else {
    const up = `pulumi up -s ${spec.pulumiStack}${spec.cwd ? ` --cwd ${projectPath(spec.cwd)}` : ''}`;
    const fix = `bring it up with \`${up}\` (its inventory is a stack output), or export its inventory to a file and use \`inventoryFile\` (to see the plan on a local topology of the same shape: \`fragbench validate <scenario> --topology <topology>\`)`;
    inventory = await readInventory(ref, `${where}.pulumiStack`, fix);
  }
  return { ref, view: inventory, inventory };
}
