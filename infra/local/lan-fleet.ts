/**
 * A plain bridged LAN of network namespaces, for testing and benchmarking database adapters
 * without the full emulated fleet. Each LAN has a one-letter tag so that users running in
 * parallel (test files, the db benchmark) get their own: namespaces `fb-tl<tag><i>` (data nodes tl<tag>1..N) and `fb-tl<tag>c` (client), each with
 * one veth into a bridge in the namespace `fb-tl<tag>br`, on a /27 of the scratch subnet
 * 198.19.243.0/24 (tag a = .0/27, b = .32/27, ...). No WireGuard, no tinc, no shaping: a node's
 * overlay address is its LAN address.
 */
import { runHost } from '../../platform/command';
import type { Inventory, InventoryNode } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';

const SUBNET = '198.19.243';
const TAGS = 'abcdefgh';
/** Addresses per LAN: a /27 holds the client (.1) and up to 29 data nodes. */
const LAN_SIZE = 32;

export interface LanFleet {
  inventory: Inventory;
  /** What runs in the LAN's node namespaces: PID and program name. */
  processes(): Promise<{ pid: number; comm: string }[]>;
  /** Deletes exactly the namespaces this fleet made, after killing what still runs in them. */
  teardown(): Promise<void>;
}

const ip = (...args: string[]) => runHost(['ip', ...args]);
const inNs = (ns: string, ...args: string[]) => runHost(['ip', '-n', ns, ...args]);

/** Namespaces of this tag left by an earlier run that died before its teardown. */
async function staleNamespaces(prefix: string): Promise<string[]> {
  const { stdout } = await ip('netns', 'list');
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter((name) => name.startsWith(prefix));
}

async function pidsIn(namespace: string): Promise<number[]> {
  const { stdout } = await ip('netns', 'pids', namespace);
  return stdout.split('\n').filter(Boolean).map(Number);
}

async function deleteNamespaces(names: string[]): Promise<void> {
  for (const name of names) {
    for (const pid of await pidsIn(name)) await runHost(['kill', '-KILL', String(pid)], { allowFailure: true });
  }
  for (const name of names) await runHost(['ip', 'netns', 'delete', name], { allowFailure: true });
}

/** Adds the namespace and records it in `made` so that teardown deletes it. */
async function addNamespace(name: string, made: string[]): Promise<void> {
  await ip('netns', 'add', name);
  made.push(name);
  await inNs(name, 'link', 'set', 'lo', 'up');
}

/** One node namespace, its veth's other end enslaved to the bridge. */
async function addMember(bridgeNs: string, namespace: string, port: string, address: string, made: string[]): Promise<void> {
  await addNamespace(namespace, made);
  await inNs(bridgeNs, 'link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace);
  await inNs(bridgeNs, 'link', 'set', port, 'master', 'br0', 'up');
  await inNs(namespace, 'addr', 'add', `${address}/27`, 'dev', 'eth0');
  await inNs(namespace, 'link', 'set', 'eth0', 'up');
}

function lanNode(name: string, role: InventoryNode['role'], address: string): InventoryNode {
  return {
    name,
    site: name,
    cloud: 'local',
    role,
    overlayAddress: address,
    underlayAddress: address,
    exec: { transport: 'netns', namespace: `fb-${name}` },
    wireguard: [],
  };
}

/**
 * Builds LAN `tag` with `dataNodes` data nodes (tl<tag>1..N) and a client (tl<tag>c). The
 * inventory is named `lan-<tag>`, which keys adapters' state. Give each test file its own tag.
 */
export async function createLanFleet(tag: string, dataNodes: number): Promise<LanFleet> {
  const index = TAGS.indexOf(tag);
  if (tag.length !== 1 || index < 0) throw new Error(`tag must be one of the letters ${TAGS}, got "${tag}"`);
  if (dataNodes < 1 || dataNodes > LAN_SIZE - 3) throw new Error(`dataNodes must be 1..${LAN_SIZE - 3}, got ${dataNodes}`);
  const prefix = `tl${tag}`;
  const bridgeNs = `fb-${prefix}br`;
  const address = (host: number) => `${SUBNET}.${index * LAN_SIZE + host}`;
  await deleteNamespaces(await staleNamespaces(`fb-${prefix}`));

  const made: string[] = [];
  const teardown = () => deleteNamespaces(made);
  try {
    await addNamespace(bridgeNs, made);
    await inNs(bridgeNs, 'link', 'add', 'br0', 'type', 'bridge');
    await inNs(bridgeNs, 'link', 'set', 'br0', 'up');

    const nodes = [lanNode(`${prefix}c`, 'client', address(1))];
    for (let i = 1; i <= dataNodes; i++) nodes.push(lanNode(`${prefix}${i}`, 'data', address(1 + i)));
    for (const node of nodes) {
      await addMember(bridgeNs, `fb-${node.name}`, `p-${node.name}`, node.overlayAddress, made);
    }
    const inventory = validateInventory({
      schemaVersion: 1,
      name: `lan-${tag}`,
      source: 'local',
      nodes,
      links: [],
      clientNode: `${prefix}c`,
      shaping: 'emulator',
    });
    const processes = async () => {
      const found: { pid: number; comm: string }[] = [];
      for (const node of nodes) {
        for (const pid of await pidsIn(`fb-${node.name}`)) {
          const comm = await runHost(['cat', `/proc/${pid}/comm`], { allowFailure: true });
          if (comm.code === 0) found.push({ pid, comm: comm.stdout.trim() });
        }
      }
      return found;
    };
    return { inventory, processes, teardown };
  } catch (err) {
    await teardown().catch(() => undefined);
    throw err;
  }
}
