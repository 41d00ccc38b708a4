/**
 * Real sshd servers for tests of the SSH transport: each on 127.0.0.1 and a free high port, run as
 * this user from a configuration, host key and authorized key made in a scratch directory, and
 * stopped by PID. The ssh client finds the scratch key and known_hosts through a wrapper put first
 * on PATH: ssh reads ~/.ssh from the passwd entry, not $HOME, so without it a test would have to
 * write into root's own ~/.ssh.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { writePrivate } from '../../platform/files';
import { ManagedProcess } from '../../platform/process';
import { withRetries } from '../../platform/retry';
import { freeLoopbackPort } from './ports';

export interface SshKeys {
  dir: string;
  hostKey: string;
  clientKey: string;
  authorizedKeys: string;
}

async function keyPair(file: string, comment: string): Promise<void> {
  await runHost(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  chmodSync(file, 0o600);
}

/** A host key and a client key, the client's public half as the only authorized key (all 0600). */
export async function makeSshKeys(dir: string): Promise<SshKeys> {
  const keys = {
    dir,
    hostKey: path.join(dir, 'host_ed25519'),
    clientKey: path.join(dir, 'client_ed25519'),
    authorizedKeys: path.join(dir, 'authorized_keys'),
  };
  await keyPair(keys.hostKey, 'fb-test-host');
  await keyPair(keys.clientKey, 'fb-test-client');
  const { stdout } = await runHost(['ssh-keygen', '-y', '-f', keys.clientKey]);
  writePrivate(keys.authorizedKeys, stdout);
  return keys;
}

export interface LoopbackSshd {
  port: number;
  process: ManagedProcess;
  /** What sshd has logged (-e: to stderr, which goes to its log file). */
  log(): string;
  stop(): Promise<void>;
}

/** sshd's privilege separation directory: the system service creates it at boot, a bare install does not. */
const PRIVSEP_DIR = '/run/sshd';

/**
 * A port from freeLoopbackPort can be taken by another test's server before sshd binds it; sshd
 * then exits, and a check of the port alone would find the other server (ssh then waits forever
 * for a banner: every test of a file timed out so in one CI run). Ready means sshd's own log says
 * it listens there; a port lost that way is given up for a fresh one.
 */
const PORT_TRIES = 3;

/** Starts `sshd -D` on 127.0.0.1 with a configuration of its own; resolves once it listens. */
export function startLoopbackSshd(keys: SshKeys, name: string, logLevel: 'INFO' | 'DEBUG1' = 'INFO'): Promise<LoopbackSshd> {
  return withRetries(PORT_TRIES, () => startOnFreePort(keys, name, logLevel));
}

async function startOnFreePort(keys: SshKeys, name: string, logLevel: 'INFO' | 'DEBUG1'): Promise<LoopbackSshd> {
  mkdirSync(PRIVSEP_DIR, { recursive: true, mode: 0o755 });
  const port = await freeLoopbackPort();
  const config = path.join(keys.dir, `sshd-${name}.conf`);
  writeFileSync(
    config,
    [
      `ListenAddress 127.0.0.1:${port}`,
      `HostKey ${keys.hostKey}`,
      `AuthorizedKeysFile ${keys.authorizedKeys}`,
      // The scratch directory lies under /tmp, which is world-writable: StrictModes would refuse
      // the key for that, though the key files themselves are 0600.
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'UseDNS no',
      'PidFile none',
      // The jump host forwards to the node (ssh -W), as the VM manager does.
      'AllowTcpForwarding yes',
      `LogLevel ${logLevel}`,
      '',
    ].join('\n'),
  );
  const logFile = path.join(keys.dir, `sshd-${name}.log`);
  const argv = ['/usr/sbin/sshd', '-D', '-e', '-f', config];
  // Once listening, sshd retitles itself "sshd: <its command line> [listener] ...", one string.
  const marker = [config, `sshd: ${argv.join(' ')}`];
  const sshd = ManagedProcess.start({ argv, logFile, marker, name: `sshd ${name}` });
  const listening = new RegExp(`Server listening on 127\\.0\\.0\\.1 port ${port}\\b`);
  await sshd.waitReady({ logLine: listening }, { what: `sshd ${name} to listen on 127.0.0.1:${port}`, timeoutMs: 10_000, intervalMs: 100 });
  const stop = async () => {
    await sshd.stop();
    if (sshd.isAlive()) throw new Error(`sshd ${name} (pid ${sshd.pid}) still runs after its stop`);
  };
  return { port, process: sshd, log: () => sshd.logSinceStart(), stop };
}

/**
 * Puts an `ssh` first on PATH that runs the real one with a configuration naming the scratch
 * client key and known_hosts, as a user's ~/.ssh/config would; also for the jump hop, which ssh
 * starts through the shell from its ProxyCommand. Returns the function that puts PATH back.
 */
export function sshClientOnPath(keys: SshKeys): () => void {
  const config = path.join(keys.dir, 'ssh_config');
  writeFileSync(
    config,
    [
      'Host *',
      `  IdentityFile ${keys.clientKey}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(keys.dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '',
    ].join('\n'),
  );
  const bin = path.join(keys.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F ${config} "$@"\n`, { mode: 0o755 });
  const before = process.env.PATH;
  process.env.PATH = `${bin}:${before ?? ''}`;
  return () => {
    process.env.PATH = before;
  };
}
