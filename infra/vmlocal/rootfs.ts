/**
 * The root filesystem of the VM-shaped local nodes, built once and cached: a Debian minbase with
 * what a cloud image brings for SSH (sshd, sudo, a `ubuntu` user with passwordless sudo), plus a
 * local apt repository holding the packages the cloud install scripts ask for, with their
 * dependency closure as seen from that rootfs, and packages built here that stand in for vendors'
 * packages Debian lacks (cassandra-deb.ts). Nodes overlay the rootfs; their apt sources name the
 * repository, served inside the fleet's own network (nodes never reach the internet).
 *
 * Built at setup time (debootstrap and the downloads need the network), into
 * `.cache/vmlocal/<stamp>/`: the stamp hashes everything the build depends on, so a change of the
 * spec, of the files written into the image or of the Cassandra jars builds a new one beside the
 * old. The jars come from scripts/build.d/cassandra.sh, which setup runs first.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { runHost } from '../../platform/command';
import { readJson, writeJsonAtomic } from '../../platform/files';
import { PACKAGE as CASSANDRA_PACKAGE } from '../../services/databases/cassandra/config';
import { YCSB_JAVA_PACKAGE } from '../../services/ycsb/client-install';
import { cassandraDeb, NO_CASSANDRA_JARS } from './cassandra-deb';
import { buildDeb, debFileName, type LocalDeb } from './local-deb';
import { NODE_FILES, SSH_USER } from './node-files';

export const ROOTFS_SPEC = {
  suite: 'bookworm',
  mirror: 'http://deb.debian.org/debian',
  /**
   * In the image: what an Ubuntu cloud image has and the nodes' first SSH needs. `iproute2` also
   * comes with the cloud scripts' packages, but the node's own network set-up needs it earlier.
   */
  base: ['openssh-server', 'sudo', 'iproute2', 'iputils-ping', 'procps'],
  /**
   * A package in the image that stands for the VM's kernel having WireGuard, as Ubuntu's does:
   * without it, wireguard-tools' recommendation pulls a whole Debian kernel and initramfs into
   * every node. Here the host's userspace WireGuard (boringtun) does the module's work.
   */
  kernelProvides: 'wireguard-modules (= 1.0.20210914)',
  /**
   * In the repository, for the cloud scripts to install: cloud-init's packages (render/cloud-init.ts),
   * what vendor-apt.ts installs first, the Redis adapter's packages, the YCSB client's Java, the
   * Cassandra adapter's JDK (its `cassandra` package is built here: cassandra-deb.ts).
   */
  repository: [
    'wireguard-tools',
    'tinc',
    'iperf3',
    'curl',
    'gnupg',
    'ca-certificates',
    'redis-server',
    'redis-tools',
    YCSB_JAVA_PACKAGE,
    CASSANDRA_PACKAGE.jdk,
  ],
};

const KERNEL_STAND_IN: LocalDeb = {
  name: 'fragbench-vm-kernel',
  version: '1.0',
  provides: ROOTFS_SPEC.kernelProvides,
  description: "the VM-shaped node's kernel features (WireGuard: the host's userspace one)",
};

/** The host's userspace WireGuard, copied in: this kernel has no WireGuard module (see infra/local/wireguard.ts). */
const USERSPACE_WIREGUARD = 'boringtun-cli';

export const CACHE_ROOT = resolve(__dirname, '../../.cache/vmlocal');

export interface RootfsPaths {
  stamp: string;
  /** The image, read-only lower layer of every node. */
  rootfs: string;
  /** The flat apt repository (`Packages.gz` and the .debs). */
  repository: string;
}

export function rootfsStamp(): string {
  // The packages built here by what they hold (installed paths, which name the jars' versions),
  // not by where their files are on this host.
  const localDebs = [KERNEL_STAND_IN, cassandraDeb()].map((deb) => deb && { ...deb, files: Object.keys(deb.files ?? {}) });
  return createHash('sha256').update(JSON.stringify({ ROOTFS_SPEC, NODE_FILES, SSH_USER, localDebs })).digest('hex').slice(0, 12);
}

export function rootfsPaths(stamp = rootfsStamp()): RootfsPaths {
  const dir = join(CACHE_ROOT, stamp);
  return { stamp, rootfs: join(dir, 'rootfs'), repository: join(dir, 'apt') };
}

const doneFile = (stamp: string) => join(CACHE_ROOT, stamp, 'built.json');

/** The cached image, or an error saying how to build it. */
export function builtRootfs(): RootfsPaths {
  const paths = rootfsPaths();
  if (!readJson(doneFile(paths.stamp))) {
    throw new Error(`the VM-shaped nodes' rootfs ${paths.stamp} is not built; run scripts/setup.sh (or npx tsx scripts/build-vm-rootfs.ts)`);
  }
  return paths;
}

const DEBOOTSTRAP_TIMEOUT_MS = 20 * 60_000;

export interface BuildResult extends RootfsPaths {
  /** Seconds spent, 0 when the cached image was used. */
  seconds: number;
  packages: number;
}

/** Builds the image and repository unless the current stamp's are there. */
export async function buildRootfs(log: (line: string) => void = () => undefined): Promise<BuildResult> {
  const paths = rootfsPaths();
  const done = readJson<{ packages: number }>(doneFile(paths.stamp));
  if (done) return { ...paths, seconds: 0, packages: done.packages };
  const cassandra = cassandraDeb();
  if (!cassandra) throw new Error(NO_CASSANDRA_JARS);
  const started = Date.now();
  const dir = join(CACHE_ROOT, paths.stamp);
  // A build killed half-way left an unfinished directory: start it again from nothing.
  rmSync(dir, { recursive: true, force: true });
  const building = `${dir}.building`;
  rmSync(building, { recursive: true, force: true });
  const rootfs = join(building, 'rootfs');
  const repository = join(building, 'apt');
  mkdirSync(repository, { recursive: true });
  log(`debootstrap ${ROOTFS_SPEC.suite} (minbase + ${ROOTFS_SPEC.base.join(' ')})`);
  await runHost(['debootstrap', '--variant=minbase', `--include=${ROOTFS_SPEC.base.join(',')}`, ROOTFS_SPEC.suite, rootfs, ROOTFS_SPEC.mirror], {
    timeoutMs: DEBOOTSTRAP_TIMEOUT_MS,
  });
  await installKernelStandIn(building, rootfs);
  log(
    `packaging ${cassandra.name} ${cassandra.version} (${Object.keys(cassandra.files ?? {}).length} jars); downloading ${ROOTFS_SPEC.repository.join(' ')} and its dependencies`,
  );
  const packages = await downloadClosure(rootfs, repository, await buildDeb(cassandra, building, repository));
  await indexRepository(repository);
  await configureImage(rootfs);
  renameSync(building, dir);
  const seconds = (Date.now() - started) / 1000;
  writeJsonAtomic(doneFile(paths.stamp), { spec: ROOTFS_SPEC, packages, seconds, builtAt: new Date().toISOString() });
  // Earlier stamps' images are of no use once this one is built (about 300 MB each).
  for (const old of readdirSync(CACHE_ROOT).filter((d) => d !== paths.stamp)) rmSync(join(CACHE_ROOT, old), { recursive: true, force: true });
  return { ...paths, seconds, packages };
}

/** What the cached image's build recorded: how long it took and how many packages the repository has. */
export function builtRootfsRecord(): { seconds?: number; packages: number; builtAt: string } | undefined {
  return readJson(doneFile(rootfsStamp()));
}

/** Runs a command inside the image (chroot), apt never asking. */
function inImage(rootfs: string) {
  return (...argv: string[]) =>
    runHost(['chroot', rootfs, ...argv], { timeoutMs: DEBOOTSTRAP_TIMEOUT_MS, env: { DEBIAN_FRONTEND: 'noninteractive' } });
}

/**
 * The repository's packages, as apt inside the image resolves them (recommends included, as the
 * cloud scripts' `apt-get install` does): exactly what a node overlaying this image lacks. The
 * packages built here (`localDebs`, already in the repository) are resolved with them, so that
 * what they depend on is there too. Returns how many packages the repository holds.
 */
async function downloadClosure(rootfs: string, repository: string, ...localDebs: string[]): Promise<number> {
  const chroot = inImage(rootfs);
  const staged = localDebs.map((deb) => {
    const inside = `/tmp/${basename(deb)}`;
    copyFileSync(deb, join(rootfs, inside));
    return inside;
  });
  await chroot('apt-get', 'update', '-qq');
  await chroot('apt-get', 'install', '-y', '-qq', '--download-only', ...ROOTFS_SPEC.repository, ...staged);
  for (const inside of staged) rmSync(join(rootfs, inside));
  const archives = join(rootfs, 'var/cache/apt/archives');
  const debs = readdirSync(archives).filter((f) => f.endsWith('.deb'));
  for (const deb of debs) renameSync(join(archives, deb), join(repository, deb));
  return readdirSync(repository).filter((f) => f.endsWith('.deb')).length;
}

async function installKernelStandIn(building: string, rootfs: string): Promise<void> {
  const deb = await buildDeb(KERNEL_STAND_IN, building, join(rootfs, 'tmp'));
  await inImage(rootfs)('dpkg', '-i', `/tmp/${debFileName(KERNEL_STAND_IN)}`);
  rmSync(deb);
}

async function indexRepository(repository: string): Promise<void> {
  const { stdout } = await runHost(['sh', '-c', 'cd "$1" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null', 'sh', repository]);
  writeFileSync(join(repository, 'Packages'), stdout);
  await runHost(['gzip', '-k9f', join(repository, 'Packages')]);
}

/** What cloud-init and the image builders do on a cloud image, done once here. */
async function configureImage(rootfs: string): Promise<void> {
  const chroot = inImage(rootfs);
  // The cloud user: passwordless sudo, as cloud-init's default user gets. '*' rather than a locked
  // '!' password: sshd without PAM refuses a locked account even for key logins.
  await chroot('useradd', '--create-home', '--shell', '/bin/bash', SSH_USER);
  await chroot('usermod', '--password', '*', SSH_USER);
  for (const [path, file] of Object.entries(NODE_FILES)) {
    const target = join(rootfs, path);
    mkdirSync(join(target, '..'), { recursive: true });
    writeFileSync(target, file.content);
    chmodSync(target, file.mode);
  }
  // Every node makes its own host keys on its first start, as a cloud VM does on first boot.
  for (const key of readdirSync(join(rootfs, 'etc/ssh')).filter((f) => f.startsWith('ssh_host_'))) rmSync(join(rootfs, 'etc/ssh', key));
  const wireguard = (await runHost(['sh', '-c', `command -v ${USERSPACE_WIREGUARD}`], { allowFailure: true })).stdout.trim();
  if (!wireguard) throw new Error(`${USERSPACE_WIREGUARD} is not installed on this host; run scripts/setup.sh`);
  copyFileSync(wireguard, join(rootfs, 'usr/local/bin', USERSPACE_WIREGUARD));
  chmodSync(join(rootfs, 'usr/local/bin', USERSPACE_WIREGUARD), 0o755);
  // Nothing of the build's downloads stays: the nodes' apt knows only the local repository.
  rmSync(join(rootfs, 'var/lib/apt/lists'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
  if (existsSync(join(rootfs, 'etc/apt/sources.list.d'))) {
    for (const f of readdirSync(join(rootfs, 'etc/apt/sources.list.d'))) rmSync(join(rootfs, 'etc/apt/sources.list.d', f));
  }
}
