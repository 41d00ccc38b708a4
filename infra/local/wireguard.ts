/**
 * The WireGuard mesh of the local fleet: one userspace interface (boringtun) per node per
 * connection type. Each peer's endpoint is the emulator's address on the node's own veth, so
 * every datagram between two nodes passes through the emulator. Private keys stay in the fleet's
 * state directory: written there by `wg genkey`, read by `wg setconf` from a 0600 file.
 */
import { readFileSync, rmSync } from 'node:fs';
import { runHost } from '../../platform/command';
import { endsFrom, type FleetPlan, type PlannedInterface, type PlannedNode } from './plan';
import { startDaemon } from './processes';
import { routedLinks } from './static-routes';
import { writePrivate } from '../../platform/files';
import { fleetPaths, type FleetProcess } from './state';

/**
 * This kernel has no WireGuard module, so the mesh runs in user space. boringtun (Cloudflare's
 * implementation, configured by the same `wg` tool over the same UAPI socket) on one thread
 * spends a third of wireguard-go's CPU per datagram here: 382 -> 123 us per database operation
 * at 500 Redis ops/s (`npm run bench:stack`); wireguard-go hands each datagram between goroutines
 * and threads, which at the fleet's packet rates costs more than the cryptography. Same protocol,
 * same keys and configuration; results record which implementation ran (`overlay.wireguard`).
 */
export const WIREGUARD_PROGRAM = 'boringtun-cli';
/** One worker thread, in the foreground (the fleet keeps its PID), keeping root: it runs in a namespace the fleet owns. */
const WIREGUARD_ARGS = ['--foreground', '--threads', '1', '--disable-drop-privileges'];
const UAPI_DIR = '/var/run/wireguard';

export function uapiSocket(iface: string): string {
  return `${UAPI_DIR}/${iface}.sock`;
}

/** What `boringtun-cli --version` says, e.g. "boringtun 0.7.1": every result records it. */
export async function wireguardImplementation(): Promise<string> {
  const { stdout } = await runHost([WIREGUARD_PROGRAM, '--version']);
  return stdout.trim();
}

/** Generates the node's key pair; the private key goes to a 0600 file, the public key is returned. */
export async function generateWireguardKey(node: string): Promise<string> {
  const { stdout: privateKey } = await runHost(['wg', 'genkey']);
  writePrivate(fleetPaths.wireguardKey(node), privateKey);
  const { stdout: publicKey } = await runHost(['wg', 'pubkey'], { input: privateKey });
  return publicKey.trim();
}

/** Starts the WireGuard daemon for one interface inside the node's namespace; resolves once it listens. */
export async function startWireguard(
  node: PlannedNode,
  iface: PlannedInterface,
  cpus: string | undefined,
  record: (p: FleetProcess) => void,
): Promise<void> {
  // A socket left by a killed daemon would look like a ready one.
  rmSync(uapiSocket(iface.name), { force: true });
  const socket = uapiSocket(iface.name);
  await startDaemon(
    { namespace: node.namespace, kind: 'wireguard', owner: iface.name, argv: [WIREGUARD_PROGRAM, ...WIREGUARD_ARGS, iface.name], cpus },
    record,
    {
      ready: { socket },
      what: `${socket} to appear`,
      timeoutMs: 10_000,
    },
  );
}

/** wg-quick style config of one interface: its key and port, and one peer per link of its type. */
export function wireguardConfig(
  plan: FleetPlan,
  node: PlannedNode,
  iface: PlannedInterface,
  privateKey: string,
  publicKeys: Map<string, string>,
): string {
  const lines = ['[Interface]', `PrivateKey = ${privateKey}`, `ListenPort = ${iface.listenPort}`];
  // Without an overlay, a pair's packets between overlay addresses go over its routed link: that peer takes them.
  const routed = plan.stack.overlay === 'none' ? new Set([...routedLinks(plan).values()].map((l) => l.id)) : new Set<string>();
  for (const link of plan.links.filter((l) => l.type === iface.type && (l.a === node.name || l.b === node.name))) {
    const { near, far } = endsFrom(link, node.name);
    const overlay = routed.has(link.id) ? `, ${plan.nodes.find((n) => n.name === far.node)!.overlayAddress}/32` : '';
    lines.push(
      '',
      '[Peer]',
      `# ${link.id}`,
      `PublicKey = ${publicKeys.get(far.node)}`,
      `AllowedIPs = ${far.meshAddress}/32${overlay}`,
      `Endpoint = ${near.relayAddress}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Keys, peers and the mesh address of one interface; the interface comes up afterwards. */
export async function configureWireguard(
  plan: FleetPlan,
  node: PlannedNode,
  iface: PlannedInterface,
  publicKeys: Map<string, string>,
): Promise<void> {
  const file = fleetPaths.wireguardConfig(iface.name);
  writePrivate(file, wireguardConfig(plan, node, iface, readPrivateKey(node.name), publicKeys));
  // `wg` talks to the interface over its global UAPI socket, so it runs on the host.
  await runHost(['wg', 'setconf', iface.name, file]);
  await runHost(['ip', '-n', node.namespace, '-batch', '-'], {
    input: `addr add ${iface.address}/24 dev ${iface.name}\nlink set ${iface.name} up\n`,
  });
}

function readPrivateKey(node: string): string {
  return readFileSync(fleetPaths.wireguardKey(node), 'utf8').trim();
}
