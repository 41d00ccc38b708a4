/** Running a command on a node: one interface, two transports (network namespace and SSH). */

export interface ExecOptions {
  /** Kill the command after this many milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Data written to the command's standard input. */
  input?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Do not throw on a non-zero exit; return the result instead. */
  allowFailure?: boolean;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface NodeExec {
  /** Runs argv (no shell) on the node. Throws CommandError on non-zero exit unless allowFailure. */
  run(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Starts a long-lived process on the node, detached, its output to logFile; returns its PID. */
  spawnDetached(argv: string[], logFile: string, options?: { env?: Record<string, string> }): Promise<number>;
  /** What to show in messages, e.g. `fb-sydney` or `ubuntu@10.0.0.4`. */
  readonly where: string;
}

export class CommandError extends Error {
  constructor(
    readonly argv: string[],
    readonly where: string,
    readonly result: ExecResult,
  ) {
    super(`${argv.join(' ')} on ${where} exited with ${result.code}: ${tail(result.stderr || result.stdout, 20)}`);
    this.name = 'CommandError';
  }
}

/** Last n lines of a text, for error messages. */
export function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
