/** The local fleet's WAN emulator: its config derived from the plan, started in the WAN namespace. */
import { startEmulator, type DirectionShaping, type EmulatorConfig } from './emulator-client';
import { WAN_NAMESPACE, type FleetPlan } from './plan';
import { writePrivate } from '../../platform/files';
import { fleetPaths, type FleetProcess } from './state';

/** Every link relayed end to end, unshaped: `up` measures the overlay's own cost, then applies the reference. */
export function emulatorConfig(plan: FleetPlan): EmulatorConfig {
  const unshaped: DirectionShaping = { delayMs: 0, rateMbps: null, lossPercent: 0 };
  return {
    links: plan.links.map((l) => ({
      id: l.id,
      a: { listen: l.ends[0].relayAddress, peer: l.ends[0].wireguardAddress },
      b: { listen: l.ends[1].relayAddress, peer: l.ends[1].wireguardAddress },
      ab: unshaped,
      ba: unshaped,
    })),
  };
}

export async function startWanEmulator(plan: FleetPlan, cpus: string | undefined, record: (p: FleetProcess) => void): Promise<void> {
  writePrivate(fleetPaths.emulatorConfig, JSON.stringify(emulatorConfig(plan), null, 2));
  const { pid } = await startEmulator({
    namespace: WAN_NAMESPACE,
    configPath: fleetPaths.emulatorConfig,
    controlPath: fleetPaths.emulatorSocket,
    logPath: fleetPaths.log('emulator'),
    cpus,
  });
  record({ kind: 'emulator', owner: 'wan', pid, program: 'fb-wan' });
}
