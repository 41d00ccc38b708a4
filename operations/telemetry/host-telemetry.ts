/**
 * Host telemetry for a fleet. Processes in a node's namespace count as that node's (its database,
 * its YCSB client) by the inventory, whatever fleet built the namespace; the rest go by the local
 * fleet's rules (the PIDs it started, the worker itself, the tool's daemons by program). The local
 * fleet also reads bytes per link from the emulator. On a VM fleet this samples the host running
 * the worker only.
 */
import type { Inventory } from '../../core/inventory';
import type { ProcessClassifier, TelemetrySample } from '../../core/telemetry';
import { readState } from '../../infra/local/state';
import { classifyByProgram } from './classify';
import { localFleetClassifier, localTelemetryOptions } from './local-fleet';
import { TelemetrySampler } from './sampler';

function inventoryClassifier(inventory: Inventory, fallback: ProcessClassifier): ProcessClassifier {
  const byNamespace = new Map(inventory.nodes.flatMap((n) => (n.exec.transport === 'netns' ? [[n.exec.namespace, n] as const] : [])));
  return (p) => {
    const node = p.namespace === undefined ? undefined : byNamespace.get(p.namespace);
    if (!node) return fallback(p);
    return classifyByProgram(
      p,
      () => node.name,
      () => node.role === 'data',
    );
  };
}

export async function startHostTelemetry(inventory: Inventory, onSample: (sample: TelemetrySample) => void): Promise<{ stop(): void }> {
  const state = inventory.source === 'local' ? readState() : undefined;
  const options = localTelemetryOptions(state);
  const sampler = new TelemetrySampler({ ...options, classify: inventoryClassifier(inventory, options.classify ?? localFleetClassifier(state)) });
  await sampler.start(onSample);
  return sampler;
}
