import type { ExecTarget } from '../../core/inventory';
import type { ExecOptions, ExecResult, NodeExec } from '../../core/exec';
import { netnsArgv, runHost } from '../../platform/command';
import { spawnDetached } from '../../platform/process';

/** Runs commands inside a network namespace of this host (the local fleet). */
export class NetnsExec implements NodeExec {
  readonly where: string;
  constructor(readonly namespace: string) {
    this.where = namespace;
  }
  private wrap(argv: string[]): string[] {
    return netnsArgv(this.namespace, argv);
  }
  run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    return runHost(this.wrap(argv), options, this.where);
  }
  async spawnDetached(argv: string[], logFile: string, options?: { env?: Record<string, string> }): Promise<number> {
    return spawnDetached(this.wrap(argv), logFile, options?.env);
  }
}

/** Runs commands on a VM over SSH, through a jump host where the VM has no public address. */
export class SshExec implements NodeExec {
  readonly where: string;
  constructor(readonly target: Extract<ExecTarget, { transport: 'ssh' }>) {
    this.where = `${target.user}@${target.host}`;
  }
  /** The ssh argv that runs `argv` remotely; arguments are quoted for the remote shell. */
  sshArgv(argv: string[]): string[] {
    const t = this.target;
    const args = ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=accept-new'];
    if (t.port) args.push('-p', String(t.port));
    if (t.jump) args.push('-J', `${t.jump.user}@${t.jump.host}${t.jump.port ? `:${t.jump.port}` : ''}`);
    args.push(this.where, '--', argv.map(shellQuote).join(' '));
    return args;
  }
  run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    return runHost(this.sshArgv(argv), options, this.where);
  }
  async spawnDetached(argv: string[], logFile: string): Promise<number> {
    const remote = `nohup ${argv.map(shellQuote).join(' ')} >>${shellQuote(logFile)} 2>&1 & echo $!`;
    const { stdout } = await runHost(this.sshArgv(['sh', '-c', remote]), {}, this.where);
    return Number(stdout.trim());
  }
}

export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export { netnsArgv };

/** The argv that runs `argv` on the target from this host, for callers that stream output. */
export function hostArgvFor(target: ExecTarget, argv: string[]): string[] {
  return target.transport === 'netns' ? netnsArgv(target.namespace, argv) : new SshExec(target).sshArgv(argv);
}

export function execFor(target: ExecTarget): NodeExec {
  return target.transport === 'netns' ? new NetnsExec(target.namespace) : new SshExec(target);
}
