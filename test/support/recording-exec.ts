/**
 * A NodeExec that runs nothing: it records every command (per node, in order) and answers with
 * what a responder returns, for databases that cannot run on this machine (MongoDB, MySQL
 * Cluster). The responder plays the database, from its tools' documented output.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError, type ExecOptions, type ExecResult, type NodeExec } from '../../core/exec';
import type { InventoryNode } from '../../core/inventory';
import { SUDO_DETACH } from '../../services/databases/node-shell';

export interface RecordedCall {
  node: string;
  argv: string[];
  input?: string;
}

/** Returns the reply (stdout, or a full result for failures) for a command run on `node` (with its standard input). */
export type Responder = (node: string, argv: string[], input?: string) => string | ExecResult;

export class CommandRecorder {
  readonly calls: RecordedCall[] = [];
  private nextPid = 4000;
  private dyingAt?: { at: (call: RecordedCall) => boolean; died: () => void };
  private dead = false;

  constructor(private readonly respond: Responder) {}

  /**
   * The caller dies at the first command `at` matches: the VM carries that command out, but its
   * answer never comes back, nor does any later command's (the adapter's promise stays pending,
   * with no clean-up run), until revive(). Resolves when it has died.
   */
  killCallerAt(at: (call: RecordedCall) => boolean): Promise<void> {
    return new Promise((died) => (this.dyingAt = { at, died }));
  }

  /** A new caller (a retried activity on another worker): commands are answered again. */
  revive(): void {
    this.dead = false;
    this.dyingAt = undefined;
  }

  /** Runs `resize` until its caller dies at `at` (see killCallerAt), then revives for the next caller. */
  async killedAt(at: (call: RecordedCall) => boolean, resize: () => Promise<unknown>): Promise<void> {
    const died = this.killCallerAt(at);
    // A resize that fails or finishes before reaching `at` fails the test with its own error.
    const ran = resize().then(() => {
      throw new Error('the resize finished before its caller could be killed');
    });
    await Promise.race([died, ran]);
    this.revive();
  }

  /** An ExecProvider for adapters. */
  readonly execFor = (node: InventoryNode): NodeExec => {
    const never = new Promise<never>(() => undefined);
    const where = `${node.name}-vm`;
    return {
      where,
      run: async (argv: string[], options?: ExecOptions): Promise<ExecResult> => {
        if (this.dead) return never;
        const call = { node: node.name, argv, ...(options?.input !== undefined ? { input: options.input } : {}) };
        this.calls.push(call);
        const reply = this.respond(node.name, argv, options?.input);
        if (this.dyingAt?.at(call)) {
          this.dead = true;
          this.dyingAt.died();
          return never;
        }
        const result = typeof reply === 'string' ? { code: 0, stdout: reply, stderr: '' } : reply;
        if (result.code !== 0 && !options?.allowFailure) throw new CommandError(argv, where, result);
        return result;
      },
      spawnDetached: (argv: string[], logFile: string): Promise<number> => {
        this.calls.push({ node: node.name, argv: ['spawn', logFile, ...argv] });
        return Promise.resolve(this.nextPid++);
      },
    };
  };

  /** Process ids for the sudo detach helper, which prints the PID it started. */
  pid(): string {
    return String(this.nextPid++);
  }

  /** The calls as `node: argv` lines, without the `sudo -n` every VM command starts with. */
  lines(filter: (call: RecordedCall) => boolean = () => true): string[] {
    return this.calls.filter(filter).map((c) => `${c.node}: ${c.argv.slice(c.argv[0] === 'sudo' ? 2 : 0).join(' ')}`);
  }

  clear(): void {
    this.calls.length = 0;
  }
}

/**
 * The processes of the VMs a recorder plays, for the commands that start and look at them: the
 * sudo detach helper, `cat /proc/<pid>/cmdline`, `kill`, and the grep that finds a server by its
 * marker (NodeShell.findOurs).
 */
export class VmProcesses {
  readonly table = new Map<number, { node: string; argv: string[]; alive: boolean }>();

  constructor(private readonly recorder: CommandRecorder) {}

  /** The reply to a command (without sudo) that is about processes; undefined for any other. */
  answer(node: string, a: string[]): string | ExecResult | undefined {
    if (a[0] === 'sh' && a[2] === SUDO_DETACH) {
      const pid = Number(this.recorder.pid());
      this.table.set(pid, { node, argv: a.slice(5), alive: true });
      return String(pid);
    }
    const proc = /^\/proc\/(\d+)\/cmdline$/.exec(a[1] ?? '');
    if (a[0] === 'cat' && proc) {
      const p = this.table.get(Number(proc[1]));
      return p?.alive ? p.argv.join('\0') + '\0' : { code: 1, stdout: '', stderr: 'No such file or directory' };
    }
    if (a[0] === 'kill') {
      const p = this.table.get(Number(a[2]));
      if (p) p.alive = false;
      return '';
    }
    if (a[0] === 'sh' && a[2]?.startsWith('grep -l -s -z -F')) {
      const markers = a.slice(4).filter((_, i) => i % 2 === 1);
      const found = [...this.table].filter(([, p]) => p.node === node && p.alive && p.argv.some((arg) => markers.some((m) => arg.includes(m))));
      return found.length > 0 ? found.map(([pid]) => `/proc/${pid}/cmdline`).join('\n') + '\n' : { code: 1, stdout: '', stderr: '' };
    }
    return undefined;
  }

  /** PID of the live process whose argv starts with `program` and holds every one of `args`. */
  pidOf(program: string, ...args: string[]): number {
    const found = [...this.table].find(([, p]) => p.alive && p.argv[0] === program && args.every((arg) => p.argv.includes(arg)));
    if (!found) throw new Error(`no ${program} ${args.join(' ')} runs`);
    return found[0];
  }

  /** Live processes of `program`. */
  running(program: string): number {
    return [...this.table.values()].filter((p) => p.alive && p.argv[0] === program).length;
  }
}

/** The VM inventory both command-level tests use: Ubuntu VMs reached as `ubuntu` (so via sudo). */
export function vmNode(name: string, address: string): InventoryNode {
  return {
    name,
    site: name,
    cloud: 'azure',
    role: 'data',
    overlayAddress: address,
    exec: { transport: 'ssh', host: address, user: 'ubuntu' },
    wireguard: [],
  };
}

/**
 * Points the adapters' state (and the node paths built from it) at a temporary directory for the
 * tests of one file; returns a getter for that directory.
 */
export function scratchStateDir(): () => string {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fb-dbstate-'));
    process.env.FRAGBENCH_DB_STATE_DIR = dir;
  });
  afterAll(() => {
    delete process.env.FRAGBENCH_DB_STATE_DIR;
    rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}
