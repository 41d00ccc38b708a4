/**
 * Telemetry's view of the local fleet: which node a process belongs to (its namespace `fb-<node>`),
 * the PIDs the fleet recorded, and the emulator's per-link byte counters.
 */
import { basename } from 'node:path';
import type { ByteCounts, ProcessClassifier, ProcessInfo, Role } from '../../core/telemetry';
import { EmulatorClient } from '../../infra/local/emulator-client';
import { NAMESPACE_PREFIX, WAN_NAMESPACE } from '../../infra/local/plan';
import { fleetPaths, type FleetState, type ProcessKind } from '../../infra/local/state';
import { classifyByProgram } from './classify';
import type { TelemetrySamplerOptions } from './sampler';

const EMULATOR_TIMEOUT_MS = 500;

const KIND_ROLES: Record<ProcessKind, Role> = { emulator: 'emulator', wireguard: 'wireguard', tinc: 'tinc' };

/** The node a local-fleet process runs on: its namespace `fb-<node>` (the WAN namespace is no node). */
export function localNodeOf(p: ProcessInfo): string | undefined {
  const ns = p.namespace;
  return ns !== undefined && ns !== WAN_NAMESPACE && ns.startsWith(NAMESPACE_PREFIX) ? ns.slice(NAMESPACE_PREFIX.length) : undefined;
}

/**
 * The local fleet's default: the sampler's own process is `worker`; PIDs the fleet recorded count
 * as what it started them as; the rest goes by program and namespace. Without a fleet state every
 * `fb-` namespace counts as a node that may hold a database.
 */
export function localFleetClassifier(state?: FleetState, workerPid = process.pid): ProcessClassifier {
  const known = new Map((state?.processes ?? []).map((p) => [p.pid, p]));
  const dataNodes = state ? new Set(state.plan.nodes.filter((n) => n.role === 'data').map((n) => n.name)) : undefined;
  const isDataNode = (node: string) => dataNodes?.has(node) ?? true;
  return (p) => {
    if (p.pid === workerPid) return 'worker';
    const started = known.get(p.pid);
    // A recorded PID counts only while it still runs the program the fleet started (PIDs recycle).
    if (started && (p.comm === started.program.slice(0, 15) || basename(p.argv[0] ?? '') === started.program)) {
      return KIND_ROLES[started.kind];
    }
    return classifyByProgram(p, localNodeOf, isDataNode);
  };
}

/**
 * Per-link bytes from the emulator's counters (UDP payload it relayed), as telemetry wants them:
 * from the link's `a` end, tx = a → b and rx = b → a. Dropped datagrams are not counted.
 */
export function emulatorLinkBytes(emulator: Pick<EmulatorClient, 'stats'>): () => Promise<Record<string, ByteCounts>> {
  return async () => Object.fromEntries((await emulator.stats()).map((l) => [l.id, { txBytes: l.ab.bytes, rxBytes: l.ba.bytes }]));
}

/**
 * The sampler's options for the local fleet (`readState()`; none when no fleet is up): its
 * classifier and the emulator's link counters. The emulator is asked with a short timeout, so a
 * stuck control socket costs one second's links, not the samples after it.
 */
export function localTelemetryOptions(state: FleetState | undefined): TelemetrySamplerOptions {
  return {
    classify: localFleetClassifier(state),
    ...(state ? { linkBytes: emulatorLinkBytes(new EmulatorClient(fleetPaths.emulatorSocket, EMULATOR_TIMEOUT_MS)) } : {}),
  };
}
