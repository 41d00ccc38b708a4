/**
 * Host telemetry for a fleet: the local fleet's sampler knows every process the fleet started
 * (roles by namespace and program) and reads bytes per link from the emulator; on any other fleet
 * it samples the host running this worker, by program name only.
 */
import type { Inventory } from '../core/inventory';
import type { TelemetrySample } from '../core/telemetry';
import { readState } from '../infra/local/state';
import { localTelemetryOptions } from '../services/telemetry/local-fleet';
import { TelemetrySampler } from '../services/telemetry/sampler';

export async function startHostTelemetry(inventory: Inventory, onSample: (sample: TelemetrySample) => void): Promise<{ stop(): void }> {
  const sampler = new TelemetrySampler(inventory.source === 'local' ? localTelemetryOptions(readState()) : {});
  await sampler.start(onSample);
  return sampler;
}
