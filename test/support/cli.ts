/**
 * The `fragbench` command as a user runs it: bin/fragbench.js in a child process (tsx, no build
 * step), its exit code and output returned, never thrown. Each test gives it a scratch state and
 * results directory, so nothing it reads or writes is the host's own (/var/lib/fragbench, the
 * checkout's results/), and a lease or dev server of another run on this host is never touched.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ExecResult } from '../../core/exec';
import { runHost, startCommand, type RunningCommand } from '../../platform/command';
import { waitFor } from '../../platform/wait';

export const CLI = path.join(__dirname, '../../bin/fragbench.js');

/** State and results under `dir` (created), for every command of one test file. */
export function scratchEnv(dir: string): Record<string, string> {
  const env = { FRAGBENCH_STATE_DIR: path.join(dir, 'state'), FRAGBENCH_RESULTS_DIR: path.join(dir, 'results') };
  for (const d of Object.values(env)) mkdirSync(d, { recursive: true });
  return env;
}

/** `fragbench <args>` to its end; a non-zero exit is a result to look at, not an error. */
export function fragbench(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<ExecResult> {
  return runHost([process.execPath, CLI, ...args], { env, allowFailure: true, timeoutMs });
}

/** `fragbench <args>` left running (a worker), dying with the test process if a test fails. */
export function startFragbench(args: string[], env: Record<string, string>): RunningCommand {
  return startCommand([process.execPath, CLI, ...args], { env, diesWithCaller: true });
}

/** Resolves once the running command has printed `line` on stdout; fails early if it exits first. */
export async function printed(command: RunningCommand, line: RegExp, timeoutMs = 30_000): Promise<void> {
  let exited: number | undefined;
  void command.exited.then(
    (code) => (exited = code),
    () => (exited = -1),
  );
  await waitFor(
    () => {
      if (line.test(command.stdout())) return true;
      if (exited !== undefined) throw new Error(`exited with ${exited} before printing ${line}:\n${command.stdout()}${command.stderr()}`);
      return undefined;
    },
    { what: `the command to print ${line}`, timeoutMs, intervalMs: 100 },
  );
}
