/**
 * Runs one long command on a node with its output streamed line by line (the YCSB client:
 * its status lines feed heartbeats while it runs). Short commands use NodeExec.run instead.
 */
import type { ExecTarget } from '../../core/inventory';
import { startCommand } from '../../platform/command';
import { hostArgvFor } from '../exec/transports';

export interface StreamedProcess {
  /** Exit code (128 + signal number when killed by a signal). */
  exited: Promise<number>;
  /** The signal that ended the local end (ip netns exec execs the client, so the client's own), once `exited` has resolved. */
  signal(): NodeJS.Signals | null;
  /** Everything written to stdout (the client's final summary: small). */
  stdout(): string;
  /** Kills the local end (ip netns exec / ssh); the remote process is stopped by PID separately. */
  killLocal(signal: NodeJS.Signals): void;
}

export function spawnStreaming(target: ExecTarget, argv: string[], onStderrLine: (line: string) => void): StreamedProcess {
  // No input: stdin stays an open pipe, which closes when this process dies; the client watches it.
  const command = startCommand(hostArgvFor(target, argv), { onStderrLine });
  return { exited: command.exited, signal: command.signal, stdout: command.stdout, killLocal: command.kill };
}
