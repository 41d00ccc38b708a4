import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { CommandError, type ExecOptions, type ExecResult } from '../../core/exec';

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * A command run for this process dies with it (the kernel's parent-death signal, kept across
 * exec): a worker killed mid-activity must not leave, say, a slot migration running beside the
 * one its retry starts.
 */
const DIES_WITH_CALLER = ['setpriv', '--pdeathsig', 'KILL', '--'];

/** Runs argv on this host (no shell), collecting output. The one place processes are run. */
export function runHost(argv: string[], options: ExecOptions = {}, where = 'host'): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = [...DIES_WITH_CALLER, ...argv];
    const child = spawn(program, args, {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new CommandError(argv, where, { code: -1, stdout, stderr: `${stderr}${err.message}` }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : -1), stdout, stderr: signal ? `${stderr}\nkilled by ${signal}` : stderr };
      if (result.code !== 0 && !options.allowFailure) reject(new CommandError(argv, where, result));
      else resolve(result);
    });
    // A child that exits without reading its input closes the pipe: EPIPE is not a failure of the
    // command (its exit code says how it went), and unhandled it would crash this process.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Starts argv detached from this process, output appended to logFile; returns the PID. */
export function spawnHostDetached(argv: string[], logFile: string, env?: Record<string, string>): number {
  const out = openSync(logFile, 'a');
  try {
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', out, out],
      detached: true,
    });
    if (child.pid === undefined) throw new Error(`could not start ${argv[0]}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(out);
  }
}
