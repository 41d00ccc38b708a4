/**
 * Runs one long command on a node with its output streamed line by line (the YCSB client:
 * its status lines feed heartbeats while it runs). Short commands use NodeExec.run instead.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ExecTarget } from '../../core/inventory';
import { hostArgvFor } from '../exec/transports';

export interface StreamedProcess {
  /** Exit code (128 + signal number when killed by a signal). */
  exited: Promise<number>;
  /** Everything written to stdout (the client's final summary: small). */
  stdout(): string;
  /** Kills the local end (ip netns exec / ssh); the remote process is stopped by PID separately. */
  killLocal(signal: NodeJS.Signals): void;
}

const SIGNALS: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export function spawnStreaming(target: ExecTarget, argv: string[], onStderrLine: (line: string) => void): StreamedProcess {
  const full = hostArgvFor(target, argv);
  // stdin is a pipe that is never written: it closes when this process dies, which the client watches.
  const child = spawn(full[0], full.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const lines = createInterface({ input: child.stderr, crlfDelay: Infinity });
  lines.on('line', onStderrLine);
  const stderrDone = new Promise<void>((resolve) => lines.once('close', resolve));
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      // Every stderr line is handled before the exit is reported.
      void stderrDone.then(() => resolve(code ?? 128 + (signal ? SIGNALS[signal] ?? 0 : 0)));
    });
  });
  return {
    exited,
    stdout: () => stdout,
    killLocal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
