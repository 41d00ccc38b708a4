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
  spawnDetached(argv: string[], logFile: string, options?: { env?: Record<string, string> }): Promise<number> {
    // NodeExec asks for a promise (over SSH it waits); here the process is started at once.
    return Promise.resolve(spawnDetached(this.wrap(argv), logFile, options?.env));
  }
}

/** Options for every ssh hop: never prompt, trust a host's first key. */
const SSH_OPTIONS = ['BatchMode=yes', 'StrictHostKeyChecking=accept-new'];

/** Runs commands on a VM over SSH, through a jump host where the VM has no public address. */
export class SshExec implements NodeExec {
  readonly where: string;
  constructor(readonly target: Extract<ExecTarget, { transport: 'ssh' }>) {
    this.where = `${target.user}@${target.host}`;
  }
  /** The ssh argv that runs `argv` remotely; arguments are quoted for the remote shell. */
  sshArgv(argv: string[]): string[] {
    const t = this.target;
    const options = SSH_OPTIONS.flatMap((o) => ['-o', o]);
    const args = ['ssh', ...options];
    if (t.port) args.push('-p', String(t.port));
    // Not -J: ssh applies command-line -o options to the destination only, so the jump hop
    // would run without BatchMode and could stop at a password or host-key prompt.
    if (t.jump) {
      const jumpPort = t.jump.port ? ` -p ${t.jump.port}` : '';
      args.push('-o', `ProxyCommand=ssh ${options.join(' ')}${jumpPort} -W %h:%p ${t.jump.user}@${t.jump.host}`);
    }
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

/** `argv` as root on the target: through `sudo -n` for an SSH user other than root (VM images log in as a user). */
export function rootArgv(target: ExecTarget, argv: string[]): string[] {
  return target.transport === 'ssh' && target.user !== 'root' ? ['sudo', '-n', ...argv] : argv;
}

export function execFor(target: ExecTarget): NodeExec {
  return target.transport === 'netns' ? new NetnsExec(target.namespace) : new SshExec(target);
}
