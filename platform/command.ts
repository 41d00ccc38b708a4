/**
 * Commands run in the foreground of this process: a short one whose output is collected
 * (`runHost`), or a long one whose output is streamed line by line (`startCommand`). Long-lived
 * daemons that outlive this process are `ManagedProcess` (./process.ts) instead.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CommandError, type ExecOptions, type ExecResult } from '../core/exec';

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * argv made to die with this process (the kernel's parent-death signal, kept across exec): a
 * worker killed mid-activity must not leave, say, a slot migration running beside the one its
 * retry starts. TERM instead of KILL lets it finish gracefully (a worker that `dev` started).
 */
export function diesWithCaller(argv: string[], signal: 'KILL' | 'TERM' = 'KILL'): string[] {
  return ['setpriv', '--pdeathsig', signal, '--', ...argv];
}

export interface CommandOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed. Without it stdin stays open until this process dies. */
  input?: string;
  /** Receives each stderr line, which is then not kept (a long run's status lines add up). */
  onStderrLine?: (line: string) => void;
  /** Receives each stdout line, which is then not kept. */
  onStdoutLine?: (line: string) => void;
  /** Run under a parent-death signal, so the command cannot outlive this process. */
  diesWithCaller?: boolean;
}

/** Its functions are bound (arrow functions): callers hand them on, e.g. as a process's `killLocal`. */
export interface RunningCommand {
  /** Exit code, 128 + the signal number when a signal killed it; rejects if it could not start. */
  exited: Promise<number>;
  /** The signal that ended it, once `exited` has resolved. */
  signal: () => NodeJS.Signals | null;
  stdout: () => string;
  /** Everything on stderr, unless `onStderrLine` took it line by line. */
  stderr: () => string;
  /** Signals the command if it still runs. */
  kill: (signal: NodeJS.Signals) => void;
}

export function startCommand(argv: string[], options: CommandOptions = {}): RunningCommand {
  const [program, ...args] = options.diesWithCaller ? diesWithCaller(argv) : argv;
  const child = spawn(program, args, { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const streamsDone = Promise.all([
    drain(child.stdout, options.onStdoutLine, (text) => (stdout += text)),
    drain(child.stderr, options.onStderrLine, (text) => (stderr += text)),
  ]);
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    // Every line is handled before the exit is reported.
    child.once('close', (code, signal) => void streamsDone.then(() => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))));
  });
  // A child that exits without reading its input closes the pipe: EPIPE is not a failure of the
  // command (its exit code says how it went), and unhandled it would crash this process.
  child.stdin.on('error', () => undefined);
  if (options.input !== undefined) child.stdin.end(options.input);
  return {
    exited,
    signal: () => child.signalCode,
    stdout: () => stdout,
    stderr: () => stderr,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Collects a stream's text, or hands it over line by line; resolves when it closes. */
function drain(stream: Readable, onLine: ((line: string) => void) | undefined, keep: (text: string) => void): Promise<void> {
  return new Promise((resolve) => {
    if (!onLine) {
      stream.on('data', (d: Buffer) => keep(d.toString()));
      stream.once('close', resolve);
      return;
    }
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', onLine);
    lines.once('close', resolve);
  });
}

/** Runs argv on this host (no shell), collecting output; dies with this process. */
export async function runHost(argv: string[], options: ExecOptions = {}, where = 'host'): Promise<ExecResult> {
  const command = startCommand(argv, { env: options.env, input: options.input ?? '', diesWithCaller: true });
  const timer = setTimeout(() => command.kill('SIGKILL'), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let code: number;
  try {
    code = await command.exited;
  } catch (err) {
    throw new CommandError(argv, where, { code: -1, stdout: command.stdout(), stderr: `${command.stderr()}${(err as Error).message}` });
  } finally {
    clearTimeout(timer);
  }
  const signal = command.signal();
  const result = { code, stdout: command.stdout(), stderr: signal ? `${command.stderr()}\nkilled by ${signal}` : command.stderr() };
  if (result.code !== 0 && !options.allowFailure) throw new CommandError(argv, where, result);
  return result;
}

/** The argv that runs `argv` inside a network namespace of this host (and keeps its PID). */
export function netnsArgv(namespace: string, argv: string[]): string[] {
  return ['ip', 'netns', 'exec', namespace, ...argv];
}
