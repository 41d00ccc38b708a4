/**
 * Installing a database on an Ubuntu LTS VM from its vendor's apt repository, through the node's
 * exec. Each adapter describes its repository; this does the steps, and nothing when the packages
 * are there already.
 */
import type { NodeShell } from './node-shell';

export interface VendorRepository {
  /** Name of the sources.list.d file and the keyring. */
  name: string;
  /** The vendor's signing key (ASCII-armoured or binary). */
  keyUrl: string;
  /** The apt source line for an Ubuntu codename; `{keyring}` is replaced with the keyring path. */
  sourceLine(codename: string): string;
  packages: string[];
  /** Services the packages start on their own: the adapter runs its own processes instead. */
  disableServices: string[];
  /**
   * debconf answers (`debconf-set-selections` lines) for packages that ask at install time. They
   * may hold secrets: they reach the VM on standard input only, never in a command line.
   */
  preseed?: string;
}

/** A vendor that publishes a .deb per release rather than an apt repository (Riak). */
export interface VendorDeb {
  /** The package's name once installed. */
  package: string;
  /** The release's .deb for an Ubuntu codename. */
  url(codename: string): string;
  disableServices: string[];
}

const INSTALL_TIMEOUT_MS = 20 * 60_000;

/**
 * A node whose own apt sources stand in for the vendors' repositories has this file, saying what
 * stands in: the VM-shaped local nodes (infra/vmlocal), whose local repository holds Debian's
 * packages of the same names, as the vendors' servers are not reachable from them. On such a
 * node the vendor's key and source line are not installed; every other step is the same.
 */
export const VENDOR_STAND_IN_FILE = '/etc/fragbench/vendor-repositories';

async function installed(shell: NodeShell, packages: string[]): Promise<boolean> {
  const result = await shell.run(['dpkg-query', '-W', '-f', '${Status}\n', ...packages], { allowFailure: true });
  return (
    result.code === 0 &&
    result.stdout
      .trim()
      .split('\n')
      .every((s) => s.endsWith('install ok installed'))
  );
}

async function ubuntuCodename(shell: NodeShell): Promise<string> {
  const [id, codename] = (await shell.output(['sh', '-c', '. /etc/os-release && echo "$ID" && echo "$VERSION_CODENAME"'])).split('\n');
  if (id !== 'ubuntu') throw new Error(`${shell.label}: vendor packages are installed on Ubuntu LTS only, this node runs "${id}"`);
  return codename;
}

// The variable goes in argv (not ExecOptions.env): over SSH only argv reaches the VM.
const aptGet =
  (shell: NodeShell) =>
  (...args: string[]) =>
    shell.run(['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { timeoutMs: INSTALL_TIMEOUT_MS });

async function disable(shell: NodeShell, services: string[]): Promise<void> {
  for (const service of services) await shell.run(['systemctl', 'disable', '--now', service], { allowFailure: true });
}

export async function installFromVendor(shell: NodeShell, repo: VendorRepository): Promise<void> {
  if (await installed(shell, repo.packages)) return;
  const apt = aptGet(shell);
  // The file names what stands in; an empty answer (no file) is a node that uses the vendor's.
  const standIn = (await shell.run(['cat', VENDOR_STAND_IN_FILE], { allowFailure: true })).stdout.trim() !== '';
  const codename = standIn ? undefined : await ubuntuCodename(shell);
  await apt('update', '-qq');
  if (codename !== undefined) {
    const keyring = `/usr/share/keyrings/${repo.name}.gpg`;
    await apt('install', '-y', '-qq', 'curl', 'gnupg', 'ca-certificates');
    await shell.run(['sh', '-c', 'curl -fsSL "$1" | gpg --batch --yes --dearmor -o "$2"', 'sh', repo.keyUrl, keyring]);
    await shell.writeFile(`/etc/apt/sources.list.d/${repo.name}.list`, `${repo.sourceLine(codename).replace('{keyring}', keyring)}\n`);
    await apt('update', '-qq');
  }
  if (repo.preseed) await shell.run(['debconf-set-selections'], { input: repo.preseed });
  await apt('install', '-y', '-qq', ...repo.packages);
  await disable(shell, repo.disableServices);
}

/** Downloads the vendor's .deb for the node's Ubuntu release and installs it with its dependencies. */
export async function installDebFromVendor(shell: NodeShell, deb: VendorDeb): Promise<void> {
  if (await installed(shell, [deb.package])) return;
  const codename = await ubuntuCodename(shell);
  const file = `/tmp/fb-${deb.package}.deb`;
  const apt = aptGet(shell);
  await apt('update', '-qq');
  await apt('install', '-y', '-qq', 'curl', 'ca-certificates');
  await shell.run(['curl', '-fsSL', '-o', file, deb.url(codename)], { timeoutMs: INSTALL_TIMEOUT_MS });
  await apt('install', '-y', '-qq', file);
  await shell.run(['rm', '-f', file]);
  await disable(shell, deb.disableServices);
}
