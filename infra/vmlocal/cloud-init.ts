/**
 * What cloud-init does with the stacks' user data (render/cloud-init.ts) on a VM's first boot, done
 * for a VM-shaped node: the authorized keys go into the cloud user's home before sshd starts
 * (fleet.ts), the packages are installed over SSH once it answers, with the same apt-get.
 */
import { parse } from 'yaml';
import type { NodeExec } from '../../core/exec';

export interface UserData {
  sshAuthorizedKeys: string[];
  packageUpdate: boolean;
  packages: string[];
}

const HEADER = '#cloud-config\n';
/** A cold apt on two cores: the mesh packages take about ten seconds, a JRE about a minute. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** The fields of the stacks' user data; anything else in it is refused, as this does not do it. */
export function parseUserData(text: string): UserData {
  if (!text.startsWith(HEADER)) throw new Error('user data: not a #cloud-config document');
  const doc = (parse(text.slice(HEADER.length)) ?? {}) as Record<string, unknown>;
  const known = ['ssh_authorized_keys', 'package_update', 'packages'];
  const unknown = Object.keys(doc).filter((k) => !known.includes(k));
  if (unknown.length) throw new Error(`user data: ${unknown.join(', ')} not supported on VM-shaped nodes (only ${known.join(', ')})`);
  const strings = (key: string): string[] => {
    const value = doc[key] ?? [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new Error(`user data: ${key} must be a list of strings`);
    return value as string[];
  };
  return { sshAuthorizedKeys: strings('ssh_authorized_keys'), packageUpdate: doc.package_update === true, packages: strings('packages') };
}

/** cloud-init's package stage: `apt-get update` when asked, then the packages, as root. */
export async function applyCloudInitPackages(exec: NodeExec, userData: string): Promise<void> {
  const { packageUpdate, packages } = parseUserData(userData);
  const apt = (...args: string[]) =>
    exec.run(['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { timeoutMs: INSTALL_TIMEOUT_MS });
  if (packageUpdate) await apt('update', '-qq');
  if (packages.length) await apt('install', '-y', '-qq', ...packages);
}
