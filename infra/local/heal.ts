/**
 * Supervision of the local fleet's own daemons (the WAN emulator, each WireGuard interface, each
 * tincd): a daemon that is gone is found by its PID and restarted with its configuration, the
 * network as the run had set it (latency and bandwidth scales, cut links) applied again. What a
 * death did to the figures is the report's to judge; this only brings the part back and says when.
 */
import { readFileSync } from 'node:fs';
import type { Inventory } from '../../core/inventory';
import { FleetNetwork } from '../shaping/fleet-network';
import { startWanEmulator } from './emulator';
import { daemonRuns } from './processes';
import { fleetPaths, readState, writeState, type FleetProcess, type FleetState } from './state';
import { startTinc } from './tinc';
import { configureWireguard, startWireguard } from './wireguard';

export interface Restart {
  died: FleetProcess;
  replacement: FleetProcess;
  /** Epoch ms the death was noticed and the replacement ready. */
  detectedAt: number;
  restartedAt: number;
  cause: string;
}

/** The fleet's daemons whose PID no longer runs their program. */
export function deadDaemons(state: FleetState | undefined = readState()): FleetProcess[] {
  if (state?.status !== 'up') return [];
  return state.processes.filter((p) => !daemonRuns(p));
}

function inventory(): Inventory {
  return JSON.parse(readFileSync(fleetPaths.inventory, 'utf8')) as Inventory;
}

async function restartDaemon(state: FleetState, died: FleetProcess, record: (p: FleetProcess) => void): Promise<void> {
  const { plan } = state;
  switch (died.kind) {
    case 'emulator': {
      await startWanEmulator(plan, state.networkCpus, record);
      // A new emulator relays every link unshaped: give back the run's latency, bandwidth and cuts.
      await new FleetNetwork(inventory()).reapply();
      return;
    }
    case 'wireguard': {
      const node = plan.nodes.find((n) => n.interfaces.some((i) => i.name === died.owner));
      const iface = node?.interfaces.find((i) => i.name === died.owner);
      if (!node || !iface) throw new Error(`no WireGuard interface ${died.owner} in the fleet's plan`);
      const publicKeys = new Map(inventory().nodes.map((n) => [n.name, n.wireguard[0]?.publicKey ?? '']));
      await startWireguard(node, iface, state.networkCpus, record);
      await configureWireguard(plan, node, iface, publicKeys);
      return;
    }
    case 'tinc': {
      const node = plan.nodes.find((n) => `tinc-${n.name}` === died.owner);
      if (!node) throw new Error(`no tinc node ${died.owner} in the fleet's plan`);
      await startTinc(node, state.networkCpus, record);
      return;
    }
  }
}

/** Restarts one dead daemon and puts its replacement in the fleet's state in its place. */
export async function restart(died: FleetProcess, detectedAt: number, cause: string): Promise<Restart> {
  const state = readState();
  if (!state) throw new Error('no local fleet: nothing to restart');
  let replacement: FleetProcess | undefined;
  await restartDaemon(state, died, (p) => (replacement = p));
  if (!replacement) throw new Error(`${died.program} (${died.owner}) did not start again`);
  const now = readState() ?? state;
  now.processes = now.processes.map((p) => (p.pid === died.pid && p.owner === died.owner ? replacement! : p));
  writeState(now);
  return { died, replacement, detectedAt, restartedAt: Date.now(), cause };
}
