/**
 * The local fleet's private state directory: the plan it was built from, the processes it started,
 * its keys and logs. Only root can read it (dirs 0700, key files 0600); private keys never leave it.
 * A fleet exists exactly while `state.json` exists; `down` removes the whole directory.
 */
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, writePrivate } from '../../platform/files';
import { statePaths } from '../../platform/paths';
import type { FleetPlan } from './plan';

export const FLEET_DIR = statePaths.fleet();
export const LOCK_FILE = statePaths.fleetLock();

export const fleetPaths = {
  state: join(FLEET_DIR, 'state.json'),
  inventory: statePaths.fleetInventory(),
  shaping: join(FLEET_DIR, 'shaping.json'),
  emulatorConfig: join(FLEET_DIR, 'emulator.json'),
  emulatorSocket: join(FLEET_DIR, 'emulator.sock'),
  logs: join(FLEET_DIR, 'logs'),
  keys: join(FLEET_DIR, 'keys'),
  tinc: join(FLEET_DIR, 'tinc'),
  run: join(FLEET_DIR, 'run'),
  log: (name: string) => join(FLEET_DIR, 'logs', `${name}.log`),
  tincDir: (node: string) => join(FLEET_DIR, 'tinc', node),
  tincPid: (node: string) => join(FLEET_DIR, 'run', `${node}.tinc.pid`),
  wireguardKey: (node: string) => join(FLEET_DIR, 'keys', `${node}.wg.key`),
  wireguardConfig: (iface: string) => join(FLEET_DIR, 'keys', `${iface}.conf`),
  /** Where tincd keeps a node's private key by default: RSA (tinc 1.0), Ed25519 (tinc 1.1). */
  tincPrivateKeys: (node: string) => ['rsa_key.priv', 'ed25519_key.priv'].map((f) => join(FLEET_DIR, 'tinc', node, f)),
};

export type ProcessKind = 'emulator' | 'wireguard' | 'tinc';

/** A process the fleet started: killed by PID, after checking the PID still runs that program. */
export interface FleetProcess {
  kind: ProcessKind;
  /** Node (or `wan`) it belongs to, and the interface for WireGuard. */
  owner: string;
  pid: number;
  /** argv[0] basename the process must have, so a recycled PID is never killed. */
  program: string;
}

export interface FleetState {
  status: 'building' | 'up';
  /** PID of the `fleet up` that is building it (to tell a crashed build from a running one). */
  builderPid: number;
  createdAt: number;
  /** Topology file the fleet was built from, for `status`. */
  topologyFile: string;
  plan: FleetPlan;
  /** Namespaces created so far, in creation order. */
  namespaces: string[];
  processes: FleetProcess[];
  /** RTT the overlay adds to an emulated link's delay, measured at `up`: what shaping subtracts. */
  baseRttMs?: number;
  /** The CPUs its network daemons run on (network-cpus.ts), chosen at `up`; absent: not pinned. */
  networkCpus?: string;
  timings?: Record<string, number>;
}

export function readState(): FleetState | undefined {
  return readJson<FleetState>(fleetPaths.state);
}

/** Atomic write, so a crash never leaves a half-written state behind. */
export function writeState(state: FleetState): void {
  writePrivate(fleetPaths.state, JSON.stringify(state, null, 2));
}

export function createFleetDir(): void {
  for (const dir of [FLEET_DIR, fleetPaths.logs, fleetPaths.keys, fleetPaths.tinc, fleetPaths.run]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
}

export function removeFleetDir(): void {
  rmSync(FLEET_DIR, { recursive: true, force: true });
}
