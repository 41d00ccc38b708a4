/**
 * Where the local fleet's network daemons (the WAN emulator, every WireGuard and every tincd) run:
 * all on one CPU, the host's last, unless the fleet is large or FRAGBENCH_NETWORK_CPUS says otherwise.
 *
 * Why one CPU: a datagram crosses five of these daemons each way, and each hand-over to a daemon
 * on the other, idle CPU is a cross-CPU wake-up, which on this kind of virtual machine costs tens
 * of microseconds of latency and CPU. Measured on fhc-4 (2 cores, `npm run bench:stack`): idle
 * ping client→singapore at 0.02 ms configured went from ~0.45-0.5 ms to ~0.14 ms median, and the
 * stack's CPU per Redis operation from 449 to 281 µs (tincd 107→68, WireGuard 116→35, emulator
 * 131→90). The price: the stack as a whole can use one core at most; the verdict flags a phase in
 * which it does (`network stack` in core/verdict.ts). The inventory records the choice.
 *
 * Why not on large fleets: that one core is then the ceiling. fhc-32 (33 nodes) under bench:scale's
 * workload (8 iperf3 flows, 32 Mbit/s) read `network-off` pinned (17.4-21.3 % of probes off, three runs) and
 * `ok` unpinned (1.5 %), 128/128 pairs within max(1 ms, 2 %) (`npx tsx bench/scale.ts`,
 * docs/capacity.md). The pinning was measured good on fhc-4 and fhc-8dc (5 and 9 nodes); the
 * bound sits between those and fhc-32.
 */
import { availableParallelism } from 'node:os';

export const NETWORK_CPUS_VARIABLE = 'FRAGBENCH_NETWORK_CPUS';
/** The variable's value that leaves the daemons wherever the scheduler puts them. */
const UNPINNED = 'all';
/** Fleets of more nodes than this leave their daemons unpinned unless the variable says otherwise. */
export const PINNED_MAX_NODES = 16;

/**
 * The CPU list (taskset's syntax, e.g. `1` or `0-1`) the daemons of a fleet of `nodes` nodes are
 * pinned to, or undefined for no pinning (FRAGBENCH_NETWORK_CPUS=all, a one-CPU host, or a fleet of
 * more than PINNED_MAX_NODES nodes).
 */
export function networkCpus(nodes: number, env: NodeJS.ProcessEnv = process.env, cpus = availableParallelism()): string | undefined {
  const setting = env[NETWORK_CPUS_VARIABLE]?.trim();
  if (setting === UNPINNED) return undefined;
  if (setting) {
    const listed = /^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(setting) ? setting.split(/[,-]/).map(Number) : undefined;
    if (!listed || listed.some((cpu) => cpu >= cpus)) {
      throw new Error(
        `${NETWORK_CPUS_VARIABLE}=${JSON.stringify(setting)}: give a CPU list of this host (0-${cpus - 1}), e.g. "${cpus - 1}" or "0-${cpus - 1}", or "${UNPINNED}" for no pinning`,
      );
    }
    return setting;
  }
  return cpus > 1 && nodes <= PINNED_MAX_NODES ? String(cpus - 1) : undefined;
}

/** The command prefix that starts a daemon on those CPUs (empty when not pinned). */
export function networkCpuPrefix(cpus: string | undefined): string[] {
  return cpus === undefined ? [] : ['taskset', '-c', cpus];
}
