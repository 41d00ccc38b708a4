/**
 * Runs a root shell script on a VM with @pulumi/command, directly or, for a VM without a public
 * address, from the jump host (the VM manager) over its own SSH key. The script travels on
 * standard input and is a secret, so it may carry private keys.
 */
import { createHash } from 'crypto';
import * as pulumi from '@pulumi/pulumi';
import { remote } from '@pulumi/command';
import { shellQuote } from '../../services/exec/transports';
import { ROOT_SCRIPT_COMMAND, rootCommandLine, rootScriptInput } from './render/files-script';
import { SSH_READY, retrySshLine, waitForSsh } from './ssh-ready';

export interface SshHop {
  host: pulumi.Input<string>;
  user: string;
  /** The VM's id: a replaced VM is configured again, and its host key is pinned to it, not to its address. */
  vmId: pulumi.Input<string>;
}

export interface SshTarget extends SshHop {
  /** Where the command is started from when `host` has no public address. */
  jump?: SshHop;
}

export interface RemoteScriptArgs {
  /** The stack: the jump host keeps one known_hosts file per stack. */
  stack: string;
  target: SshTarget;
  /** The operator's SSH private key (a secret), for the first hop. */
  sshPrivateKey: pulumi.Input<string>;
  /** Root shell script, run after cloud-init has finished. */
  script: pulumi.Input<string>;
  /** Root shell command run when the resource is deleted. */
  onDelete?: pulumi.Input<string>;
  /** Values whose change runs the script again, besides the ids of the VMs on the way. */
  triggers?: pulumi.Input<unknown>[];
}

/**
 * Options of the jump host's ssh to the target. `accept-new` trusts the first key it sees, and
 * the key is filed under an alias made from the VM's id in the stack's own known_hosts: a VM
 * replaced on the same fixed address (or an address another stack's VM had) is a new entry, not
 * a changed key that ssh would refuse.
 */
export function jumpSshOptions(stack: string, vmId: string): string {
  const alias = `fb-${createHash('sha256').update(vmId).digest('hex').slice(0, 16)}`;
  return [
    'BatchMode=yes',
    'StrictHostKeyChecking=accept-new',
    `UserKnownHostsFile=~/.ssh/known_hosts.fragbench-${stack}`,
    `HostKeyAlias=${alias}`,
    `ConnectTimeout=${SSH_READY.connectTimeoutS}`,
  ]
    .map((o) => `-o ${o}`)
    .join(' ');
}

export function remoteScript(name: string, args: RemoteScriptArgs, opts: pulumi.CustomResourceOptions = {}): remote.Command {
  const { target } = args;
  const first = target.jump ?? target;
  const vmIds = target.jump ? [target.vmId, target.jump.vmId] : [target.vmId];
  const ready = waitForSsh(`${name}-ssh-ready`, { host: first.host, triggers: [first.vmId] }, opts);
  const hop = (command: string): pulumi.Output<string> => {
    if (!target.jump) return pulumi.output(command);
    return pulumi.all([target.host, target.vmId]).apply(([host, vmId]) => {
      const options = jumpSshOptions(args.stack, String(vmId));
      const destination = `${target.user}@${host}`;
      return `${retrySshLine(options, destination)}; ssh ${options} ${destination} ${shellQuote(command)}`;
    });
  };
  return new remote.Command(
    name,
    {
      connection: { host: first.host, user: first.user, privateKey: args.sshPrivateKey },
      create: hop(ROOT_SCRIPT_COMMAND),
      stdin: pulumi.secret(pulumi.output(args.script).apply(rootScriptInput)),
      ...(args.onDelete ? { delete: pulumi.output(args.onDelete).apply((d) => hop(rootCommandLine(d))) } : {}),
      triggers: [...vmIds, ...(args.triggers ?? [])],
    },
    { ...opts, dependsOn: [...dependencies(opts.dependsOn), ready] },
  );
}

function dependencies(dependsOn: pulumi.CustomResourceOptions['dependsOn']): pulumi.Input<pulumi.Resource>[] {
  if (!dependsOn) return [];
  return Array.isArray(dependsOn) ? dependsOn : [dependsOn as pulumi.Input<pulumi.Resource>];
}
