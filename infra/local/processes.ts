/**
 * The fleet's own daemons (WireGuard, tinc) as platform processes: started in a node's namespace
 * at network priority, output to the fleet's log for their owner, recorded in the fleet's state
 * before they are awaited (so `down` stops one whose start failed), known afterwards by PID and
 * program, never by a name pattern.
 */
import { netnsArgv } from '../../platform/command';
import { isOurs } from '../../platform/pid';
import { ManagedProcess, type Readiness } from '../../platform/process';
import { networkCpuPrefix } from './network-cpus';
import { fleetPaths, type FleetProcess, type ProcessKind } from './state';

/**
 * The fleet's network daemons (WireGuard, tinc) run real-time (SCHED_RR), below the emulator's
 * SCHED_FIFO 10: a packet crosses four of them each way, and at normal priority (even nice -20)
 * their wake-ups added 1-2 ms to a ping's p99 on an idle 2-core host, 3-5 ms with three pairs
 * pinging (measured with `npm run bench:network`). Databases sharing the host never delay them.
 */
const NETWORK_PRIORITY = ['chrt', '--rr', '5'];

/** True while the recorded PID still runs the daemon's program (a recycled PID runs something else). */
export function daemonRuns(p: FleetProcess): boolean {
  return isOurs(p.pid, p.program);
}

export interface DaemonSpec {
  namespace: string;
  kind: ProcessKind;
  /** Node (or interface) it serves; names its log. */
  owner: string;
  argv: string[];
  /** The fleet's network CPUs (FleetState.networkCpus); undefined: not pinned. */
  cpus: string | undefined;
}

export interface DaemonReadiness {
  ready: Readiness;
  what: string;
  timeoutMs: number;
  intervalMs?: number;
}

/**
 * Starts a daemon on the network CPUs (network-cpus.ts), records it, and resolves once it is
 * ready; a daemon that is not is stopped.
 */
export async function startDaemon(spec: DaemonSpec, record: (p: FleetProcess) => void, readiness: DaemonReadiness): Promise<FleetProcess> {
  const started = ManagedProcess.start({
    prefix: netnsArgv(spec.namespace, [...networkCpuPrefix(spec.cpus), ...NETWORK_PRIORITY]),
    argv: spec.argv,
    logFile: fleetPaths.log(spec.owner),
  });
  const daemon: FleetProcess = { kind: spec.kind, owner: spec.owner, pid: started.pid, program: String(started.marker) };
  record(daemon);
  await started.waitReady(readiness.ready, { ...readiness, what: `${daemon.program} (${spec.owner}): ${readiness.what}` });
  return daemon;
}
