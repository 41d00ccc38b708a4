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

export interface RecordedCall {
  node: string;
  argv: string[];
  input?: string;
}

/** Returns the reply (stdout, or a full result for failures) for a command run on `node`. */
export type Responder = (node: string, argv: string[]) => string | ExecResult;

export class CommandRecorder {
  readonly calls: RecordedCall[] = [];
  private nextPid = 4000;

  constructor(private readonly respond: Responder) {}

  /** An ExecProvider for adapters. */
  readonly execFor = (node: InventoryNode): NodeExec => {
    const recorder = this;
    return {
      where: `${node.name}-vm`,
      async run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
        recorder.calls.push({ node: node.name, argv, ...(options?.input !== undefined ? { input: options.input } : {}) });
        const reply = recorder.respond(node.name, argv);
        const result = typeof reply === 'string' ? { code: 0, stdout: reply, stderr: '' } : reply;
        if (result.code !== 0 && !options?.allowFailure) throw new CommandError(argv, this.where, result);
        return result;
      },
      async spawnDetached(argv: string[], logFile: string): Promise<number> {
        recorder.calls.push({ node: node.name, argv: ['spawn', logFile, ...argv] });
        return recorder.nextPid++;
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
