/**
 * A long-lived process of this host that fragbench starts, waits for, supervises and stops: a
 * fleet daemon, the WAN emulator, the Temporal dev server. Detached, so it outlives the process
 * that started it (a worker restart must not take the fleet down); its output in a log file; known
 * afterwards by PID + marker, recorded so that a later process can adopt and stop it.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { tail } from '../core/exec';
import { writeFileAtomic } from './files';
import { isAlive, isOurs, signalPid, stopEscalating, type ProcessMarker } from './pid';
import { waitFor } from './wait';

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** "exit code 1", "signal SIGKILL": how a process ended, in a log's words. */
export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * Starts argv detached from this process, output appended to logFile. `exited` settles when it
 * ends, while this process lives; it never holds this process's event loop open.
 */
function launchDetached(argv: string[], logFile: string, env?: Record<string, string>): { pid: number; exited: Promise<ProcessExit> } {
  const out = openSync(logFile, 'a');
  try {
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', out, out], detached: true });
    if (child.pid === undefined) throw new Error(`could not start ${argv[0]}`);
    const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.unref();
    return { pid: child.pid, exited };
  } finally {
    closeSync(out);
  }
}

/** Starts argv detached from this process, output appended to logFile; returns the PID. */
export function spawnDetached(argv: string[], logFile: string, env?: Record<string, string>): number {
  return launchDetached(argv, logFile, env).pid;
}

export interface ProcessSpec {
  /** The program and its arguments. */
  argv: string[];
  /** Commands that exec into argv, keeping the PID: `ip netns exec <ns>`, `chrt --rr 5`. */
  prefix?: string[];
  /** What identifies it in its command line (see ProcessMarker); default: the program's name. */
  marker?: ProcessMarker;
  /** stdout and stderr are appended here. */
  logFile: string;
  env?: Record<string, string>;
  /** For messages; default: the program's name. */
  name?: string;
}

/** What a later process needs to adopt this one. */
export interface ProcessRecord {
  pid: number;
  marker: ProcessMarker;
  name?: string;
  logFile?: string;
}

/** When a started process serves: a line in its log, a socket file that appears, or a check. */
export type Readiness = { logLine: string | RegExp } | { socket: string } | (() => boolean | Promise<boolean>);

/** A process that exited or did not become ready in time; the message ends with its log's tail. */
export class ProcessStartError extends Error {
  constructor(
    readonly processName: string,
    readonly reason: string,
    readonly logTail: string,
  ) {
    super(`${processName}: ${reason}${logTail ? `:\n${logTail}` : ''}`);
    this.name = 'ProcessStartError';
  }
}

export class ManagedProcess {
  private constructor(
    readonly pid: number,
    readonly marker: ProcessMarker,
    readonly name: string,
    readonly logFile: string | undefined,
    /** Log size at the start: readiness and failures look only at what this process wrote. */
    private readonly logStart: number,
    /** How it ended, when this process started it (an adopted one's end is not ours to see). */
    readonly exited?: Promise<ProcessExit>,
  ) {}

  static start(spec: ProcessSpec): ManagedProcess {
    const program = basename(spec.argv[0]);
    const logStart = existsSync(spec.logFile) ? statSync(spec.logFile).size : 0;
    const { pid, exited } = launchDetached([...(spec.prefix ?? []), ...spec.argv], spec.logFile, spec.env);
    return new ManagedProcess(pid, spec.marker ?? program, spec.name ?? program, spec.logFile, logStart, exited);
  }

  /** The process a record names, if that PID still carries the marker; a recycled PID is refused. */
  static adopt(record: ProcessRecord): ManagedProcess | undefined {
    if (!isOurs(record.pid, record.marker)) return undefined;
    const logStart = record.logFile && existsSync(record.logFile) ? statSync(record.logFile).size : 0;
    return new ManagedProcess(record.pid, record.marker, record.name ?? String(record.marker), record.logFile, logStart);
  }

  get record(): ProcessRecord {
    return { pid: this.pid, marker: this.marker, name: this.name, logFile: this.logFile };
  }

  /** Any process at the PID (also one mid-exec through its prefix). */
  isAlive(): boolean {
    return isAlive(this.pid);
  }

  isOurs(): boolean {
    return isOurs(this.pid, this.marker);
  }

  /** What it has written to its log since it started (or was adopted). */
  logSinceStart(): string {
    if (!this.logFile || !existsSync(this.logFile)) return '';
    return readFileSync(this.logFile).subarray(this.logStart).toString();
  }

  logTail(lines = 20): string {
    return tail(this.logSinceStart(), lines);
  }

  /**
   * Resolves once `ready` holds. If the process exits first, or is not ready in time, it is
   * stopped and the error says why, with the end of its log.
   */
  async waitReady(ready: Readiness, options: { timeoutMs: number; intervalMs?: number; what?: string }): Promise<void> {
    const holds = this.readinessCheck(ready);
    const what = options.what ?? describe(ready);
    try {
      await waitFor(
        async () => {
          if (await holds()) return true;
          if (!this.isAlive()) throw new Error('exited before it was ready');
          return undefined;
        },
        { what, timeoutMs: options.timeoutMs, intervalMs: options.intervalMs },
      );
    } catch (err) {
      await this.stop();
      const where = this.logFile ? ` (log ${this.logFile})` : '';
      throw new ProcessStartError(this.name, `${(err as Error).message}${where}`, this.logTail());
    }
  }

  private readinessCheck(ready: Readiness): () => boolean | Promise<boolean> {
    if (typeof ready === 'function') return ready;
    if ('socket' in ready) return () => existsSync(ready.socket);
    const line = ready.logLine;
    return typeof line === 'string' ? () => this.logSinceStart().split('\n').includes(line) : () => line.test(this.logSinceStart());
  }

  /** SIGTERM, SIGKILL after `graceMs`, resolved once gone; a PID that is no longer ours is left alone. */
  stop(graceMs = 2_000): Promise<void> {
    return stopEscalating([{ isRunning: () => this.isOurs(), signal: (s) => signalPid(this.pid, s) }], { graceMs });
  }
}

function describe(ready: Readiness): string {
  if (typeof ready === 'function') return 'it to be ready';
  return 'socket' in ready ? `${ready.socket} to appear` : `the log line ${String(ready.logLine)}`;
}

/** A PID file holds the PID alone (what other tools expect); the marker is the owner's to know. */
export function writePidFile(file: string, pid: number): void {
  writeFileAtomic(file, `${pid}\n`);
}

export function readPidFile(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
