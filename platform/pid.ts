/**
 * Processes known by PID: whether one lives, whether it is still the one we started (a PID is
 * reused once its process is gone, so a PID alone never proves that), and stopping them with
 * escalation. Never by a name pattern: another user's process of the same name is not ours.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parsePidStat, type PidStat } from './proc';
import { sleep } from './wait';

/**
 * What identifies a process as ours in its command line: one argument, or any of several. A
 * server that renames its title (redis-server) needs two: one of its arguments for the moments
 * before the rename, and the title after it.
 */
export type ProcessMarker = string | readonly string[];

/**
 * True when one argument is a marker, is a program started by path whose name is the marker,
 * or is a rewritten title starting with the marker and a space (`redis-server 10.1.0.2:6379`).
 */
export function argvHasMarker(argv: readonly string[], marker: ProcessMarker): boolean {
  const markers: readonly string[] = typeof marker === 'string' ? [marker] : marker;
  return argv.some((arg) => markers.some((m) => arg === m || basename(arg) === m || arg.startsWith(`${m} `)));
}

/** A /proc/<pid>/cmdline's arguments (NUL-separated; a rewritten title may be one string). */
export function parseCmdline(text: string): string[] {
  return text.split('\0').filter(Boolean);
}

/** /proc/<pid>/stat, parsed; undefined when the process is gone (normal on a live host). */
export function readPidStat(pid: number): PidStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parsePidStat(text);
}

/** argv of a live (non-zombie) process on this host, or undefined when it is gone. */
export function processArgv(pid: number): string[] | undefined {
  if (identify(pid) === undefined) return undefined;
  try {
    return parseCmdline(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A process as one look saw it: its PID and the clock tick it started at (a reused PID starts later). */
export interface ProcessIdentity {
  pid: number;
  startTicks: number;
}

/** The live (non-zombie) process at this PID now, or undefined when there is none. */
export function identify(pid: number): ProcessIdentity | undefined {
  const stat = readPidStat(pid);
  return stat === undefined || stat.state === 'Z' ? undefined : { pid, startTicks: stat.startTime };
}

/** True while the very process once identified lives: a PID recycled by another process does not count. */
export function isSameProcessAlive(identity: ProcessIdentity): boolean {
  return identify(identity.pid)?.startTicks === identity.startTicks;
}

/** Any live process at this PID; just after a start its argv may still be empty (mid-exec). */
export function isAlive(pid: number): boolean {
  return processArgv(pid) !== undefined;
}

/** True when `pid` is alive and carries the marker: a recycled PID runs something else. */
export function isOurs(pid: number, marker: ProcessMarker): boolean {
  const argv = processArgv(pid);
  return argv !== undefined && argvHasMarker(argv, marker);
}

/** Every process of this host now (some may be gone by the time they are looked at). */
export function hostPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** Live processes of this host that carry the marker: one started by a caller that died before recording its PID. */
export function pidsWithMarker(marker: ProcessMarker): number[] {
  return hostPids().filter((pid) => isOurs(pid, marker));
}

export function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone: that is what we wanted.
  }
}

/** A process as stopping sees it: on this host, or on a node reached by commands. */
export interface Stoppable {
  /** Still there and still ours. */
  isRunning(): boolean | Promise<boolean>;
  signal(signal: NodeJS.Signals): void | Promise<void>;
}

export interface StopOptions {
  /** Time from SIGTERM to SIGKILL (default 2 s). */
  graceMs?: number;
  /** Pause between two looks (default 50 ms; more where a look is a remote command). */
  pollMs?: number;
  /** After SIGKILL, how long to wait for the process to be gone before saying so (default 30 s). */
  killWaitMs?: number;
}

/**
 * SIGTERM to each that runs, SIGKILL to whatever still runs after the grace period; resolves
 * when all are gone. A process stuck in the kernel past SIGKILL is reported, not waited on forever.
 */
export async function stopEscalating(targets: readonly Stoppable[], options: StopOptions = {}): Promise<void> {
  const { graceMs = 2_000, pollMs = 50, killWaitMs = 30_000 } = options;
  const running = async (list: readonly Stoppable[]) =>
    (await Promise.all(list.map(async (t) => ((await t.isRunning()) ? t : undefined)))).filter((t): t is Stoppable => t !== undefined);
  const waitGone = async (list: Stoppable[], ms: number) => {
    const deadline = Date.now() + ms;
    while (list.length > 0 && Date.now() < deadline) {
      await sleep(pollMs);
      list = await running(list);
    }
    return list;
  };
  let left = await running(targets);
  await Promise.all(left.map((t) => Promise.resolve(t.signal('SIGTERM'))));
  left = await waitGone(left, graceMs);
  await Promise.all(left.map((t) => Promise.resolve(t.signal('SIGKILL'))));
  left = await waitGone(left, killWaitMs);
  if (left.length > 0) throw new Error(`${left.length} process(es) still running ${killWaitMs} ms after SIGKILL`);
}

/** Stops processes of this host by PID (whatever they run now), escalating after `graceMs`. */
export function stopPids(pids: readonly number[], graceMs = 2_000): Promise<void> {
  return stopEscalating(
    pids.map((pid) => ({ isRunning: () => isAlive(pid), signal: (s) => signalPid(pid, s) })),
    { graceMs },
  );
}
