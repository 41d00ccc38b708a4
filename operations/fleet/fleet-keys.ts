/**
 * The local fleet's private keys, read from where it keeps them (infra/local/state.ts): each
 * node's WireGuard key with the interface configs that must carry it, and each node's tinc key.
 * And the places the tool writes on this host, where none of them may ever appear. For the key
 * scan (./secret-scan.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fleetPaths, FLEET_DIR, readState, type FleetState } from '../../infra/local/state';
import { statePaths } from '../../platform/paths';
import type { FleetPrivateKey } from './secret-scan';

/** The keys of the fleet in `state` (the local fleet's, by default) that exist on disk; none when it is down. */
export function localFleetKeys(state: FleetState | undefined = readState()): FleetPrivateKey[] {
  if (!state) return [];
  return state.plan.nodes.flatMap((node) => {
    const keys: FleetPrivateKey[] = [];
    const wireguard = fleetPaths.wireguardKey(node.name);
    if (existsSync(wireguard)) {
      const configs = node.interfaces.map((i) => fleetPaths.wireguardConfig(i.name)).filter((f) => existsSync(f));
      keys.push({ name: `wireguard ${node.name}`, material: readFileSync(wireguard, 'utf8'), files: [wireguard, ...configs] });
    }
    for (const tinc of fleetPaths.tincPrivateKeys(node.name).filter((f) => existsSync(f))) {
      keys.push({ name: `tinc ${node.name}`, material: readFileSync(tinc, 'utf8'), files: [tinc] });
    }
    return keys;
  });
}

/**
 * Where the tool writes on this host: the results, the fleet's own directory (its state, logs and
 * configs; its key files are allowed their keys), and the local Temporal server's history (with
 * SQLite's journal files, which hold the latest writes) and log.
 */
export function keyScanPlaces(resultsDir: string): string[] {
  const history = statePaths.temporalDev('db');
  return [resultsDir, FLEET_DIR, history, `${history}-wal`, `${history}-shm`, `${history}-journal`, statePaths.temporalDev('log')];
}
