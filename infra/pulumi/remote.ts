/**
 * Runs a root shell script on a VM with @pulumi/command, directly or, for a VM without a public
 * address, from the jump host (the VM manager) over its own SSH key. The script travels on
 * standard input and is a secret, so it may carry private keys.
 */
import * as pulumi from '@pulumi/pulumi';
import { remote } from '@pulumi/command';
import { shellQuote } from '../../activities/exec/transports';

export interface SshTarget {
  host: pulumi.Input<string>;
  user: string;
  /** Where the command is started from when `host` has no public address. */
  jump?: { host: pulumi.Input<string>; user: string };
}

export interface RemoteScriptArgs {
  target: SshTarget;
  /** The operator's SSH private key (a secret), for the first hop. */
  sshPrivateKey: pulumi.Input<string>;
  /** Root shell script, run after cloud-init has finished. */
  script: pulumi.Input<string>;
  /** Root shell command run when the resource is deleted. */
  onDelete?: pulumi.Input<string>;
  /** Values whose change runs the script again. */
  triggers?: pulumi.Input<unknown>[];
}

const SSH_OPTS = '-o BatchMode=yes -o StrictHostKeyChecking=accept-new';
/** The first boot may still be installing packages when the VM answers SSH. */
const WAIT_FOR_BOOT = 'cloud-init status --wait >/dev/null 2>&1 || true';

export function remoteScript(name: string, args: RemoteScriptArgs, opts?: pulumi.CustomResourceOptions): remote.Command {
  const { target } = args;
  const first = target.jump ?? target;
  const hop = (command: string) =>
    target.jump ? pulumi.interpolate`ssh ${SSH_OPTS} ${target.user}@${target.host} ${shellQuote(command)}` : pulumi.output(command);
  return new remote.Command(
    name,
    {
      connection: { host: first.host, user: first.user, privateKey: args.sshPrivateKey },
      create: hop('sudo sh -s'),
      stdin: pulumi.secret(pulumi.output(args.script).apply((s) => `${WAIT_FOR_BOOT}\n${s}`)),
      ...(args.onDelete ? { delete: pulumi.output(args.onDelete).apply((d) => hop(`sudo sh -c ${shellQuote(d)}`)) } : {}),
      ...(args.triggers ? { triggers: args.triggers } : {}),
    },
    opts,
  );
}
