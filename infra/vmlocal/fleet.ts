/**
 * VM-shaped local nodes: each its own network namespace, its own root filesystem (the cached
 * image of rootfs.ts under a per-node overlay), its own mount, PID and UTS namespaces, an sshd
 * started without systemd, and no way out but the fleet's LAN. Every node but the jump host is
 * reached by SSH through the jump host, as a cloud VM without a public address is; the operator's
 * ssh runs in a namespace of its own (see addresses.ts), through `operatorSshPath()`.
 *
 * A node's mounts live only in its private mount namespace, so they vanish with its processes;
 * `vmFleetDown` stops those by PID and then removes whatever still runs in the fleet's namespaces,
 * the namespaces and the directories. A run killed half-way is cleaned the same way by name
 * (the `fb-vm-` namespaces carrying the marker) on the next `up` or `down`.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecTarget } from '../../core/inventory';
import { netnsArgv, runHost } from '../../platform/command';
import { readJson, writeJsonAtomic, writePrivate } from '../../platform/files';
import { stateRoot } from '../../platform/paths';
import { ManagedProcess, type ProcessRecord } from '../../platform/process';
import { allDone, waitFor } from '../../platform/wait';
import { SshExec } from '../../services/exec/transports';
import { deleteNamespaces, ipBatch, listNamespaces, markedNamespaces } from '../local/namespaces';
import {
  JUMP_LAN_ADDRESS,
  JUMP_PUBLIC_ADDRESS,
  LAN_NAMESPACE,
  LAN_PREFIX,
  OPERATOR_ADDRESS,
  OPERATOR_NAMESPACE,
  PUBLIC_PREFIX,
  REPOSITORY_PORT,
  VM_NAMESPACE_MARKER,
  VM_PREFIX,
  nodeLanAddress,
} from './addresses';
import { cloudInit } from '../pulumi/render/cloud-init';
import { parseUserData } from './cloud-init';
import { NODE_INIT, SSH_USER } from './node-files';
import { builtRootfs, type RootfsPaths } from './rootfs';

export const JUMP_NODE = 'jump';
const RESERVED = new Set([JUMP_NODE, 'lan', 'op']);
/** Node names become interface names (`v<name>` on the LAN bridge: at most 15 characters). */
const NODE_NAME = /^[a-z][a-z0-9]{0,11}$/;
const SSH_TIMEOUT_MS = 30_000;

export interface VmNode {
  name: string;
  namespace: string;
  lanAddress: string;
  /** How the cloud code path reaches it: ssh as the cloud user, through the jump host. */
  exec: Extract<ExecTarget, { transport: 'ssh' }>;
}

interface VmFleetState {
  stamp: string;
  nodes: (Omit<VmNode, 'exec'> & { process?: ProcessRecord })[];
  repository?: ProcessRecord;
}

export interface VmFleet {
  jump: VmNode;
  nodes: VmNode[];
  /** The nodes' cloud-init user data (render/cloud-init.ts): the operator's key and the packages. */
  userData: string;
  /** Seconds from the call to every sshd answering through the jump host. */
  seconds: number;
}

export const vmFleetPaths = {
  dir: () => join(stateRoot(), 'vmfleet'),
  state: () => join(vmFleetPaths.dir(), 'state.json'),
  node: (name: string) => join(vmFleetPaths.dir(), 'nodes', name),
  log: (name: string) => join(vmFleetPaths.dir(), 'logs', `${name}.log`),
  operator: () => join(vmFleetPaths.dir(), 'operator'),
};

/** The directory to put first on PATH: its `ssh` runs in the operator namespace with the fleet's key. */
export function operatorSshPath(): string {
  return join(vmFleetPaths.operator(), 'bin');
}

function namespaceOf(name: string): string {
  return `${VM_PREFIX}${name}`;
}

function jumpTarget(): VmNode['exec'] {
  return { transport: 'ssh', host: JUMP_PUBLIC_ADDRESS, user: SSH_USER };
}

export function checkNodeNames(names: string[]): void {
  for (const name of names) {
    if (!NODE_NAME.test(name)) throw new Error(`node name "${name}": use 1-12 lower-case letters and digits, starting with a letter`);
    if (RESERVED.has(name)) throw new Error(`node name "${name}" is reserved by the VM-shaped fleet; choose another`);
  }
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) throw new Error(`node name(s) ${[...new Set(twice)].join(', ')} given more than once`);
}

export interface VmFleetOptions {
  /** The user data's packages, for applyCloudInitPackages to install (the jump host gets none). */
  packages?: string[];
  progress?: (line: string) => void;
}

/** Builds the jump host and the named nodes; a fleet left behind is removed first. */
export async function vmFleetUp(names: string[], options: VmFleetOptions = {}): Promise<VmFleet> {
  const progress = options.progress ?? (() => undefined);
  checkNodeNames(names);
  const image = builtRootfs();
  const started = Date.now();
  if (existsSync(vmFleetPaths.state()) || (await markedNamespaces(VM_PREFIX, VM_NAMESPACE_MARKER)).length > 0) {
    progress('found a VM-shaped fleet left behind; removing it');
    await vmFleetDown();
  }
  const jump: VmNode = { name: JUMP_NODE, namespace: namespaceOf(JUMP_NODE), lanAddress: JUMP_LAN_ADDRESS, exec: jumpTarget() };
  const nodes: VmNode[] = names.map((name, i) => ({
    name,
    namespace: namespaceOf(name),
    lanAddress: nodeLanAddress(i),
    exec: { ...jumpTarget(), host: nodeLanAddress(i), jump: { host: JUMP_PUBLIC_ADDRESS, user: SSH_USER } },
  }));
  const all = [jump, ...nodes];
  const taken = new Set(await listNamespaces());
  const clash = [LAN_NAMESPACE, OPERATOR_NAMESPACE, ...all.map((n) => n.namespace)].filter((ns) => taken.has(ns));
  if (clash.length) throw new Error(`namespace(s) ${clash.join(', ')} exist and were not made by the VM-shaped fleet; remove them first`);

  const state: VmFleetState = { stamp: image.stamp, nodes: all.map(({ exec: _exec, ...n }) => n) };
  mkdirSync(join(vmFleetPaths.dir(), 'logs'), { recursive: true, mode: 0o700 });
  writeJsonAtomic(vmFleetPaths.state(), state);
  let userData: string;
  try {
    userData = cloudInit({ sshPublicKeys: [await operatorKeys()], packages: options.packages ?? [] });
    const { sshAuthorizedKeys } = parseUserData(userData);
    await createNetwork(all);
    for (const node of all) {
      prepareNode(image, node.name, sshAuthorizedKeys);
      const entry = state.nodes.find((n) => n.name === node.name) as VmFleetState['nodes'][number];
      entry.process = bootNode(image, node).record;
      writeJsonAtomic(vmFleetPaths.state(), state);
    }
    state.repository = serveRepository(image, jump.namespace).record;
    writeJsonAtomic(vmFleetPaths.state(), state);
    await waitForSsh(jump);
    await allDone(nodes.map(waitForSsh));
  } catch (err) {
    await vmFleetDown().catch((cleanup: unknown) => progress(`cleaning up after a failed up: ${(cleanup as Error).message}`));
    throw err;
  }
  return { jump, nodes, userData, seconds: (Date.now() - started) / 1000 };
}

/** Removes the fleet: its processes (by PID, then whatever runs in its namespaces), namespaces, directories. */
export async function vmFleetDown(): Promise<void> {
  const state = readJson<VmFleetState>(vmFleetPaths.state());
  const records = [...(state?.nodes.map((n) => n.process) ?? []), state?.repository].filter((r): r is ProcessRecord => r !== undefined);
  // A node is powered off, not shut down: its unshare ignores SIGTERM while it waits for the
  // node's init, and SIGKILL takes the node's whole PID namespace with it (--kill-child).
  await Promise.all(records.map((r) => ManagedProcess.adopt(r)?.stop(0) ?? Promise.resolve()));
  const namespaces = new Set([...(state?.nodes.map((n) => n.namespace) ?? []), ...(await markedNamespaces(VM_PREFIX, VM_NAMESPACE_MARKER))]);
  const present = new Set(await listNamespaces());
  for (const ns of [LAN_NAMESPACE, OPERATOR_NAMESPACE]) if (present.has(ns) && state) namespaces.add(ns);
  await deleteNamespaces([...namespaces]);
  removeFleetDir();
}

/**
 * The directory goes only once nothing is mounted under it: a node's overlay is mounted in its
 * own mount namespace, never here, and this check keeps a surprise from deleting the image.
 */
function removeFleetDir(): void {
  const dir = vmFleetPaths.dir();
  const mounted = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point) => point && (point === dir || point.startsWith(`${dir}/`)));
  if (mounted.length) throw new Error(`still mounted under ${dir}: ${mounted.join(', ')}; unmount them, then run the down again`);
  rmSync(dir, { recursive: true, force: true });
}

/** The operator's key pair, its ssh configuration and the `ssh` on operatorSshPath(). */
async function operatorKeys(): Promise<string> {
  const dir = vmFleetPaths.operator();
  mkdirSync(join(dir, 'bin'), { recursive: true, mode: 0o700 });
  const key = join(dir, 'id_ed25519');
  await runHost(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-C', 'fragbench-vm-operator', '-f', key]);
  const config = join(dir, 'ssh_config');
  writePrivate(
    config,
    [
      'Host *',
      `  IdentityFile ${key}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      // One connection per node, reused by the commands that follow (as an operator's
      // ~/.ssh/config may have it): a new one through the jump host costs two handshakes, ~0.4 s.
      // The masters run in the operator namespace, and go with it.
      '  ControlMaster auto',
      `  ControlPath ${join(dir, 'cm-%C')}`,
      '  ControlPersist 60',
      '',
    ].join('\n'),
  );
  // The jump hop's ssh is started by the first one through the shell (ProxyCommand): it finds
  // this script on PATH too, and entering the namespace it is already in changes nothing.
  writeFileSync(join(dir, 'bin', 'ssh'), `#!/bin/sh\nexec ip netns exec ${OPERATOR_NAMESPACE} /usr/bin/ssh -F ${config} "$@"\n`, { mode: 0o755 });
  return readFileSync(`${key}.pub`, 'utf8');
}

async function createNetwork(all: VmNode[]): Promise<void> {
  const jump = all[0];
  const host = [LAN_NAMESPACE, OPERATOR_NAMESPACE, ...all.map((n) => n.namespace)].map((ns) => `netns add ${ns}`);
  for (const node of all) host.push(`link add eth0 netns ${node.namespace} type veth peer name v${node.name} netns ${LAN_NAMESPACE}`);
  host.push(`link add eth1 netns ${jump.namespace} type veth peer name pub0 netns ${OPERATOR_NAMESPACE}`);
  await ipBatch(host);
  const marker = [`link set lo alias ${VM_NAMESPACE_MARKER}`, 'link set lo up'];
  const lan = [
    ...marker,
    'link add br0 type bridge',
    'link set br0 up',
    ...all.flatMap((n) => [`link set v${n.name} master br0`, `link set v${n.name} up`]),
  ];
  const operator = [...marker, `addr add ${OPERATOR_ADDRESS}/${PUBLIC_PREFIX} dev pub0`, 'link set pub0 up'];
  const nodeCommands = (n: VmNode) => [...marker, `addr add ${n.lanAddress}/${LAN_PREFIX} dev eth0`, 'link set eth0 up'];
  await allDone<unknown>([
    ipBatch(lan, LAN_NAMESPACE),
    ipBatch(operator, OPERATOR_NAMESPACE),
    ipBatch([...nodeCommands(jump), `addr add ${JUMP_PUBLIC_ADDRESS}/${PUBLIC_PREFIX} dev eth1`, 'link set eth1 up'], jump.namespace),
    ...all.slice(1).map((n) => ipBatch(nodeCommands(n), n.namespace)),
  ]);
}

/**
 * The node's own layer: its hostname and the user data's keys for the cloud user (what cloud-init
 * writes on first boot). Directories on the way take the image's owner and
 * mode, as overlayfs shows the upper layer's.
 */
function prepareNode(image: RootfsPaths, name: string, authorizedKeys: string[]): void {
  const dir = vmFleetPaths.node(name);
  for (const sub of ['upper', 'work', 'root']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o755 });
  const upper = join(dir, 'upper');
  const home = `/home/${SSH_USER}`;
  layerFile(image, upper, '/etc/hostname', `${name}\n`, 0o644);
  layerFile(image, upper, '/etc/hosts', `127.0.0.1 localhost\n127.0.1.1 ${name}\n`, 0o644);
  const { uid, gid } = statSync(join(image.rootfs, home));
  mkdirSync(join(upper, home, '.ssh'), { recursive: true });
  mirrorOwnership(image, upper, home);
  chownSync(join(upper, home, '.ssh'), uid, gid);
  chmodSync(join(upper, home, '.ssh'), 0o700);
  layerFile(image, upper, `${home}/.ssh/authorized_keys`, authorizedKeys.map((k) => `${k.trim()}\n`).join(''), 0o600, { uid, gid });
}

function layerFile(image: RootfsPaths, upper: string, path: string, content: string, mode: number, owner = { uid: 0, gid: 0 }): void {
  const parent = path.slice(0, path.lastIndexOf('/'));
  mkdirSync(join(upper, parent), { recursive: true });
  mirrorOwnership(image, upper, parent);
  writeFileSync(join(upper, path), content);
  chmodSync(join(upper, path), mode);
  chownSync(join(upper, path), owner.uid, owner.gid);
}

/** Gives each directory from / down to `dir` in the upper layer the image's owner and mode, where the image has it. */
function mirrorOwnership(image: RootfsPaths, upper: string, dir: string): void {
  let path = '';
  for (const part of dir.split('/').filter(Boolean)) {
    path += `/${part}`;
    if (!existsSync(join(image.rootfs, path))) return;
    const { uid, gid, mode } = statSync(join(image.rootfs, path));
    chownSync(join(upper, path), uid, gid);
    chmodSync(join(upper, path), mode & 0o7777);
  }
}

/**
 * Runs in the node's network namespace, in new mount, UTS and PID namespaces: mounts the overlay
 * and what a booted system has (/proc of its own PIDs, /sys of its own network, /dev, a fresh
 * /run), names the host, and hands over to the image's init as PID 1.
 */
const BOOT = [
  'set -eu',
  'lower=$1 upper=$2 work=$3 root=$4 name=$5 source=$6',
  'mount -t overlay "$source" -o "lowerdir=$lower,upperdir=$upper,workdir=$work" "$root"',
  'mount -t proc proc "$root/proc"',
  'mount -t sysfs sysfs "$root/sys"',
  'mount --rbind /dev "$root/dev"',
  'mount -t tmpfs -o mode=755 tmpfs "$root/run"',
  'hostname "$name"',
  `exec chroot "$root" ${NODE_INIT}`,
].join('\n');

function bootNode(image: RootfsPaths, node: VmNode): ManagedProcess {
  const dir = vmFleetPaths.node(node.name);
  // --kill-child: the node's PID 1 dies with this process, and every process of the node with it.
  const argv = [
    'unshare',
    '--mount',
    '--uts',
    '--pid',
    '--fork',
    '--kill-child',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    BOOT,
    'sh',
    image.rootfs,
    join(dir, 'upper'),
    join(dir, 'work'),
    join(dir, 'root'),
    node.name,
    node.namespace,
  ];
  return ManagedProcess.start({
    argv,
    prefix: netnsArgv(node.namespace, []),
    marker: node.namespace,
    logFile: vmFleetPaths.log(node.name),
    name: `node ${node.name}`,
  });
}

/** The apt repository, served by the jump host on the LAN (its files stay on this host). */
function serveRepository(image: RootfsPaths, namespace: string): ManagedProcess {
  const argv = ['python3', '-m', 'http.server', '--bind', JUMP_LAN_ADDRESS, '--directory', image.repository, String(REPOSITORY_PORT)];
  return ManagedProcess.start({
    argv,
    prefix: netnsArgv(namespace, []),
    marker: image.repository,
    logFile: vmFleetPaths.log('repository'),
    name: 'apt repository',
  });
}

/** Until the node answers a command over SSH (through the jump host for the nodes). */
async function waitForSsh(node: VmNode): Promise<void> {
  const exec = new SshExec(node.exec);
  const env = { PATH: `${operatorSshPath()}:${process.env.PATH ?? ''}` };
  await waitFor(async () => ((await exec.run(['true'], { allowFailure: true, env, timeoutMs: 10_000 })).code === 0 ? true : undefined), {
    what: `sshd on ${node.name} (${exec.where}) to answer`,
    timeoutMs: SSH_TIMEOUT_MS,
    intervalMs: 200,
  });
}
