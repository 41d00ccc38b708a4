/** Processes of the local fleet: checked and stopped by PID, never by a name pattern. */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tail } from '../../core/exec';
import { NetnsExec } from '../../activities/exec/transports';
import { networkCpuPrefix } from './network-cpus';
import { fleetPaths, type FleetProcess, type ProcessKind } from './state';

/** Programs that start a daemon and then become it (exec): what /proc shows just after a start. */
const LAUNCHERS = ['ip', 'chrt', 'taskset'];

/** argv of a live (non-zombie) process, or undefined when it is gone. */
export function processArgv(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name, which may itself hold spaces.
    if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') return undefined;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/**
 * True when `pid` is alive and still runs `program` (a recycled PID runs something else). Just
 * after a start it may still be the `ip netns exec`, `taskset` or `chrt` about to become the program.
 */
export function runs(pid: number, program: string): boolean {
  const argv = processArgv(pid);
  if (argv === undefined || argv.length === 0) return false;
  const name = basename(argv[0]);
  return name === program || (LAUNCHERS.includes(name) && argv.some((a) => basename(a) === program));
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone: that is what we wanted.
  }
}

/**
 * Like Promise.all, but waits for every task to finish before failing: a build step that fails
 * must not leave siblings still creating things while the clean-up runs.
 */
export async function allDone<T>(tasks: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(tasks);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL whatever still runs after `graceMs`; resolves when all are gone. */
export async function stopPids(pids: number[], graceMs = 2000): Promise<void> {
  let alive = pids.filter((pid) => processArgv(pid) !== undefined);
  alive.forEach((pid) => signal(pid, 'SIGTERM'));
  const deadline = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = alive.filter((pid) => processArgv(pid) !== undefined);
  }
  alive.forEach((pid) => signal(pid, 'SIGKILL'));
  while (alive.length > 0) {
    await sleep(20);
    alive = alive.filter((pid) => processArgv(pid) !== undefined);
  }
}

/** Polls `check` until it returns a value other than undefined, or throws after timeoutMs. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined | Promise<T | undefined>, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * The fleet's network daemons (WireGuard, tinc) run real-time (SCHED_RR), below the emulator's
 * SCHED_FIFO 10: a packet crosses four of them each way, and at normal priority (even nice -20)
 * their wake-ups added 1-2 ms to a ping's p99 on an idle 2-core host, 3-5 ms with three pairs
 * pinging (measured with `npm run bench:network`). Databases sharing the host never delay them.
 */
const NETWORK_PRIORITY = ['chrt', '--rr', '5'];

/**
 * Starts a long-lived fleet network daemon inside a namespace, on the network CPUs
 * (network-cpus.ts), at raised priority, its output
 * to the fleet's log for `owner`.
 */
export async function startProcess(
  namespace: string,
  kind: ProcessKind,
  owner: string,
  argv: string[],
  env?: Record<string, string>,
): Promise<FleetProcess> {
  const pid = await new NetnsExec(namespace).spawnDetached([...networkCpuPrefix(), ...NETWORK_PRIORITY, ...argv], fleetPaths.log(owner), { env });
  return { kind, owner, pid, program: basename(argv[0]) };
}

/** Waits until `ready()` holds; fails at once, with the end of its log, if the process dies first. */
export async function waitUntilReady(
  started: FleetProcess,
  what: string,
  timeoutMs: number,
  ready: () => boolean | Promise<boolean>,
  everyMs?: number,
): Promise<void> {
  await waitFor(`${started.program} (${started.owner}): ${what}`, timeoutMs, async () => {
    if (await ready()) return true;
    // Any live process will do: just after the start, /proc may show it mid-exec (empty argv).
    if (processArgv(started.pid) === undefined) {
      throw new Error(`${started.program} for ${started.owner} exited: ${logTail(started.owner)}`);
    }
    return undefined;
  }, everyMs);
}

export function logTail(owner: string, lines = 5): string {
  try {
    return tail(readFileSync(fleetPaths.log(owner), 'utf8'), lines);
  } catch {
    return '(no log)';
  }
}
