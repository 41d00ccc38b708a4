/**
 * Telemetry's view of the local fleet: which node a process belongs to (its namespace `fb-<node>`),
 * the PIDs the fleet recorded, and which WireGuard interface carries a single link.
 */
import { basename } from 'node:path';
import type { ProcessClassifier, ProcessInfo, Role } from '../../core/telemetry';
import { NAMESPACE_PREFIX, WAN_NAMESPACE, type FleetPlan } from '../../infra/local/plan';
import type { FleetState, ProcessKind } from '../../infra/local/state';
import { classifyByProgram } from './classify';

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
 * Link id → interface key for every link one of whose WireGuard interfaces carries that link alone
 * (an interface carries every link of its connection type at its node, so in a mesh most carry
 * several). The `a` end is preferred, so rx/tx read from `a`'s side.
 */
export function localLinkInterfaces(plan: FleetPlan): Record<string, string> {
  const namespaceOf = new Map(plan.nodes.map((n) => [n.name, n.namespace]));
  const linksPer = new Map<string, number>();
  for (const link of plan.links) for (const end of link.ends) linksPer.set(end.interface, (linksPer.get(end.interface) ?? 0) + 1);
  const result: Record<string, string> = {};
  for (const link of plan.links) {
    const end = link.ends.find((e) => linksPer.get(e.interface) === 1);
    if (end) result[link.id] = `${namespaceOf.get(end.node)}/${end.interface}`;
  }
  return result;
}
