/**
 * What adapters do on a node, on top of NodeExec: files, directories, processes they started.
 * On a VM reached as a non-root user every command goes through `sudo -n` (databases live in
 * system directories there); locally (network namespaces) we are root already.
 */
import { tail, type ExecOptions, type ExecResult, type NodeExec } from '../../core/exec';
import type { InventoryNode } from '../../core/inventory';
import { argvHasMarker, isOurs as isOursOnHost, parseCmdline, pidsWithMarker, stopEscalating, type ProcessMarker } from '../../platform/pid';
import { waitFor } from '../../platform/wait';
import { startCommand, type RunningCommand } from '../../platform/command';
import { execFor, hostArgvFor } from '../exec/transports';
import { capProcess } from '../../platform/cpu-cap';
import type { CpuCap } from './state';

export type { ProcessMarker };

/** How an adapter gets a NodeExec for a node; tests pass one that records commands. */
export type ExecProvider = (node: InventoryNode) => NodeExec;
export const defaultExecProvider: ExecProvider = (node) => execFor(node.exec);

const STOP_GRACE_MS = 10_000;

/**
 * The cores a capped server may use until it serves (`capServing`): half of one. A JVM's start
 * takes about a minute at that, and never more than a quarter of this 2-core host's CPU from the
 * nodes that serve while another joins.
 */
export const STARTING_CPUS = 0.5;

/** `sh -c` script that starts "$@" detached, output to the log file in $1, and prints its PID. */
export const SUDO_DETACH = 'log=$1; shift; nohup "$@" >>"$log" 2>&1 </dev/null & echo $!';

export class NodeShell {
  private readonly sudo: boolean;

  constructor(
    readonly node: InventoryNode,
    readonly exec: NodeExec,
    /** A cap on the CPU of the servers it starts (`spawn`), on a node of this host. */
    private readonly cpuCap?: CpuCap,
  ) {
    this.sudo = node.exec.transport === 'ssh' && node.exec.user !== 'root';
  }

  private argv(argv: string[]): string[] {
    return this.sudo ? ['sudo', '-n', ...argv] : argv;
  }

  run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    return this.exec.run(this.argv(argv), options);
  }

  /** stdout of a command, trimmed. */
  async output(argv: string[], options?: ExecOptions): Promise<string> {
    return (await this.run(argv, options)).stdout.trim();
  }

  /**
   * A command that runs as long as its caller wants, its stdout handed over line by line; it dies
   * with this process, and `kill` ends it (a remote one sees its stdin close).
   */
  stream(argv: string[], onLine: (line: string) => void): RunningCommand {
    return startCommand(hostArgvFor(this.node.exec, this.argv(argv)), { onStdoutLine: onLine, diesWithCaller: true });
  }

  /**
   * Puts a server that serves under the node's CPU cap, if it has one. From its start it runs under
   * at least STARTING_CPUS (`spawn`): a JVM's start, and a joining node's bootstrap, take tens of
   * CPU seconds, many minutes under a small cap, yet must not take the host from the nodes that serve.
   */
  capServing(pid: number): void {
    if (this.cpuCap) capProcess(this.cpuCap.group, this.cpuCap.cpus, pid);
  }

  /** Starts a long-lived process, output to logFile (on the node); returns its PID. */
  async spawn(argv: string[], logFile: string): Promise<number> {
    if (this.cpuCap) {
      const pid = await this.exec.spawnDetached(argv, logFile);
      capProcess(this.cpuCap.group, Math.max(this.cpuCap.cpus, STARTING_CPUS), pid);
      return pid;
    }
    if (!this.sudo) return this.exec.spawnDetached(argv, logFile);
    // The log lives in a root-owned directory: the redirection has to happen under sudo too.
    return Number(await this.output(['sh', '-c', SUDO_DETACH, 'sh', logFile, ...argv]));
  }

  async writeFile(path: string, content: string): Promise<void> {
    await this.run(['sh', '-c', 'cat > "$1"', 'sh', path], { input: content });
  }

  /** A file only root reads (a config holding a secret), its content on standard input. */
  async writePrivateFile(path: string, content: string): Promise<void> {
    await this.run(['sh', '-c', 'umask 077 && cat > "$1"', 'sh', path], { input: content });
  }

  async makeDir(path: string): Promise<void> {
    await this.run(['mkdir', '-p', path]);
  }

  async removeDir(path: string): Promise<void> {
    await this.run(['rm', '-rf', '--one-file-system', path]);
  }

  /** The last lines of a file on the node, or a note saying it could not be read. */
  async fileTail(path: string, lines = 30): Promise<string> {
    const result = await this.run(['tail', '-n', String(lines), path], { allowFailure: true });
    return result.code === 0 ? tail(result.stdout, lines) : `(could not read ${path}: ${result.stderr.trim()})`;
  }

  /**
   * True when `pid` on the node carries the marker (platform/pid's rule, read through the node's
   * /proc), so that a reused PID is never taken for ours; with only a renamed title as marker, a
   * slow start would read as an exit.
   */
  async isOurs(pid: number, marker: ProcessMarker): Promise<boolean> {
    // A namespace shares this host's /proc: read it here rather than spawn a command in the node
    // (supervision asks once a second for every member).
    if (this.node.exec.transport === 'netns') return isOursOnHost(pid, marker);
    const result = await this.run(['cat', `/proc/${pid}/cmdline`], { allowFailure: true });
    return result.code === 0 && argvHasMarker(parseCmdline(result.stdout), marker);
  }

  /**
   * PIDs of the node's processes that carry the marker, by platform/pid's rule: how a server is
   * found that a caller started detached and died before recording.
   */
  async findOurs(marker: ProcessMarker): Promise<number[]> {
    if (this.node.exec.transport === 'netns') return pidsWithMarker(marker);
    // grep narrows the candidates to command lines holding a marker's text (-z: one argument per
    // record); the exact rule is then applied to each. grep's own PID holds it too, and is gone.
    const markers = typeof marker === 'string' ? [marker] : marker;
    const args = markers.flatMap((m) => ['-e', m]);
    const found = await this.run(['sh', '-c', 'grep -l -s -z -F "$@" /proc/[0-9]*/cmdline', 'sh', ...args], { allowFailure: true });
    const candidates = found.stdout
      .split('\n')
      .map((line) => /^\/proc\/(\d+)\/cmdline$/.exec(line)?.[1])
      .filter((pid): pid is string => pid !== undefined);
    const ours: number[] = [];
    for (const pid of candidates.map(Number)) if (await this.isOurs(pid, marker)) ours.push(pid);
    return ours;
  }

  /** SIGTERM, then SIGKILL after a grace period; only while the PID is still ours. */
  async stopProcess(pid: number, marker: ProcessMarker, graceMs = STOP_GRACE_MS): Promise<void> {
    const onNode = {
      isRunning: () => this.isOurs(pid, marker),
      signal: async (signal: NodeJS.Signals) => void (await this.run(['kill', `-${signal.slice(3)}`, String(pid)], { allowFailure: true })),
    };
    // Each look is a command on the node (over SSH for a VM): look less often than on this host.
    await stopEscalating([onNode], { graceMs, pollMs: 200 });
  }

  /**
   * Whether a TCP port accepts connections at address (probed from this node). `--norc`: a bash
   * whose stdin is a socket (Node's child stdio) and whose SHLVL is unset takes itself for one run
   * by sshd and sources ~/.bashrc; on a host whose .bashrc runs `pyenv init`, that rehash could
   * outlast the 2 s, be killed by `timeout` and leave pyenv's lock behind, after which every such
   * shell waited on it: each probe then timed out and a Cassandra node never "served".
   */
  async portOpen(address: string, port: number): Promise<boolean> {
    const probe = `exec 3<>/dev/tcp/${address}/${port}`;
    const result = await this.run(['timeout', '2', 'bash', '--norc', '-c', probe], { allowFailure: true });
    return result.code === 0;
  }

  /** e.g. `tl1 (fb-tl1)`: the node's name and where its commands run. */
  get label(): string {
    return `${this.node.name} (${this.exec.where})`;
  }
}

/** A database that did not come up on a node: the message names the node and shows its log's tail. */
export class DatabaseStartError extends Error {
  constructor(
    readonly node: string,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseStartError';
  }
}

export async function startFailure(shell: NodeShell, database: string, logFile: string, reason: string): Promise<DatabaseStartError> {
  // A JVM logs its cause long before its last lines (shutdown noise): show the errors too.
  const errors = await shell.run(['grep', '-m', '10', '-E', 'ERROR|Exception', logFile], { allowFailure: true });
  const errorLines = errors.code === 0 ? `errors in ${logFile}:\n${errors.stdout.trimEnd()}\n` : '';
  const logTail = await shell.fileTail(logFile);
  return new DatabaseStartError(
    shell.node.name,
    `${database} on ${shell.label} failed to start: ${reason}\n${errorLines}last lines of ${logFile}:\n${logTail}`,
  );
}

/**
 * Starts a server process and waits until `ready` says it serves. If the process exits, or is not
 * ready in time, it is stopped and the error names the node and shows the tail of its log.
 */
export async function startServer(
  shell: NodeShell,
  spec: { database: string; argv: string[]; logFile: string; marker: ProcessMarker },
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  return awaitServing(shell, spec, await shell.spawn(spec.argv, spec.logFile), ready, timeoutMs);
}

/** startServer's wait, also for a server started earlier (by a caller that died before it served). */
export async function awaitServing(
  shell: NodeShell,
  spec: { database: string; logFile: string; marker: ProcessMarker },
  pid: number,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  try {
    await waitFor(
      async () => {
        if (await ready()) return true;
        if (!(await shell.isOurs(pid, spec.marker))) throw await startFailure(shell, spec.database, spec.logFile, 'the process exited');
        return undefined;
      },
      { what: `${spec.database} on ${shell.label} to serve`, timeoutMs, intervalMs: 300 },
    );
    shell.capServing(pid);
    return pid;
  } catch (err) {
    await shell.stopProcess(pid, spec.marker, 2_000);
    if (err instanceof DatabaseStartError) throw err;
    throw await startFailure(shell, spec.database, spec.logFile, (err as Error).message);
  }
}
