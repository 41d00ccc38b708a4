/**
 * Waiting for sshd before a remote command dials it. @pulumi/command's remote connection dials
 * once (this version has no retry options), and a VM the cloud reports as created may still be
 * booting, so every remote command waits behind a bounded probe of its first hop, and a command
 * relayed through the jump host retries its second hop the same way.
 */
import * as pulumi from '@pulumi/pulumi';
import { local } from '@pulumi/command';

/** How long to wait for sshd: about 30 × (10 s + 10 s) at most, enough for a first boot. */
export const SSH_READY = { attempts: 30, intervalS: 10, connectTimeoutS: 10 };

/**
 * Run by Node on the operator's machine (Pulumi's Node host needs Node anyway): sshd is ready
 * when it sends its `SSH-` banner, which a bare TCP connect would not prove.
 */
export const SSH_PROBE_SOURCE = `
const net = require('net');
const env = process.env;
const host = env.FB_SSH_HOST, port = Number(env.FB_SSH_PORT);
const attempts = Number(env.FB_SSH_ATTEMPTS), gapMs = 1000 * Number(env.FB_SSH_INTERVAL_S), timeoutMs = 1000 * Number(env.FB_SSH_TIMEOUT_S);
const once = () => new Promise((resolve) => {
  const socket = net.connect({ host, port });
  const done = (ok) => { socket.destroy(); resolve(ok); };
  socket.setTimeout(timeoutMs, () => done(false));
  socket.on('error', () => done(false));
  socket.once('data', (data) => done(data.toString('latin1').startsWith('SSH-')));
});
(async () => {
  for (let i = 1; i <= attempts; i++) {
    if (await once()) return;
    if (i < attempts) await new Promise((r) => setTimeout(r, gapMs));
  }
  console.error('sshd on ' + host + ':' + port + ' did not answer after ' + attempts + ' tries');
  process.exit(1);
})();
`;

export interface SshReadyArgs {
  host: pulumi.Input<string>;
  port?: number;
  /** Values whose change waits again (the VM's id: a replaced VM boots again). */
  triggers: pulumi.Input<unknown>[];
}

export function waitForSsh(name: string, args: SshReadyArgs, opts?: pulumi.CustomResourceOptions): local.Command {
  return new local.Command(
    name,
    {
      interpreter: ['node', '-e'],
      create: SSH_PROBE_SOURCE,
      environment: {
        FB_SSH_HOST: args.host,
        FB_SSH_PORT: String(args.port ?? 22),
        FB_SSH_ATTEMPTS: String(SSH_READY.attempts),
        FB_SSH_INTERVAL_S: String(SSH_READY.intervalS),
        FB_SSH_TIMEOUT_S: String(SSH_READY.connectTimeoutS),
      },
      triggers: args.triggers,
    },
    opts,
  );
}

/**
 * A shell line for the jump host: try `ssh … true` until it succeeds, at most SSH_READY.attempts
 * times, then fail naming the host; `sshOptions` must bound each try with ConnectTimeout.
 */
export function retrySshLine(sshOptions: string, destination: string): string {
  const { attempts, intervalS } = SSH_READY;
  return [
    `n=0; until ssh -n ${sshOptions} ${destination} true; do`,
    `n=$((n+1)); if [ "$n" -ge ${attempts} ]; then echo "sshd on ${destination} did not answer after ${attempts} tries" >&2; exit 1; fi;`,
    `sleep ${intervalS}; done`,
  ].join(' ');
}
