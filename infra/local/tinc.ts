/**
 * The tinc 1.0 overlay of the local fleet: one tincd per node, in router mode, over the WireGuard
 * mesh. A node knows only the peers it has a link to, at the mesh addresses of those links, and
 * every node is IndirectData, so tinc forwards hop by hop along its graph of meta connections
 * (fewest hops, as the published set-up observed) and never tries a direct path that does not
 * exist. The topology's failover profile sets how soon a cut link drops out of the graph.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runHost } from '../../platform/command';
import { OVERLAY_MTU, TINC_PACKET_PROTECTION } from './overlay-cost';
import { addressLines } from './overlay-paths';
import { OVERLAY_WITHOUT_IPV6, TINC_UNICAST_ONLY, rankLinks } from '../../core/overlay-path';
import { OVERLAY_INTERFACE, OVERLAY_PREFIX, TINC_PORT, endsFrom, type FleetPlan, type PlannedNode } from './plan';
import { waitFor } from '../../platform/wait';
import { startDaemon } from './processes';
import { writePrivate } from '../../platform/files';
import { fleetPaths, type FleetProcess } from './state';

/** tinc's failure detection, from the topology's failover profile (core/topology.ts `tincTimers`). */
function timerLines(plan: FleetPlan): string[] {
  return [`PingInterval = ${plan.tinc.pingInterval}`, `PingTimeout = ${plan.tinc.pingTimeout}`, `MaxTimeout = ${plan.tinc.maxTimeout}`];
}

const TINC_CRYPTO = [
  `Cipher = ${TINC_PACKET_PROTECTION.cipher}`,
  `Digest = ${TINC_PACKET_PROTECTION.digest}`,
  `MACLength = ${TINC_PACKET_PROTECTION.macLength}`,
  `Compression = ${TINC_PACKET_PROTECTION.compression}`,
];

const readyFile = (node: string) => join(fleetPaths.run, `${node}.tinc-up`);

/** Generates the node's RSA key pair into its private tinc directory; returns the public key (PEM). */
export async function generateTincKey(node: string): Promise<string> {
  const dir = fleetPaths.tincDir(node);
  writePrivate(join(dir, 'tinc.conf'), `Name = ${node}\n`);
  rmSync(join(dir, 'hosts', node), { force: true });
  mkdirSync(join(dir, 'hosts'), { recursive: true, mode: 0o700 });
  await runHost(['tincd', '-c', dir, '-K2048']);
  const pem = /-----BEGIN RSA PUBLIC KEY-----[\s\S]*?-----END RSA PUBLIC KEY-----/.exec(readFileSync(join(dir, 'hosts', node), 'utf8'));
  if (!pem) throw new Error(`tincd -K wrote no public key for ${node}`);
  return pem[0];
}

export interface TincFile {
  /** Relative to the node's tinc directory. */
  path: string;
  content: string;
  mode: number;
}

/** tinc.conf, tinc-up and one host file per peer the node has a link to (plus its own). */
export function tincFiles(plan: FleetPlan, node: PlannedNode, publicKeys: Map<string, string>): TincFile[] {
  const peers = peerAddresses(plan, node.name);
  const byName = new Map(plan.nodes.map((n) => [n.name, n]));
  const file = (path: string, lines: string[], mode = 0o600): TincFile => ({ path, content: lines.join('\n') + '\n', mode });
  const conf = [
    `Name = ${node.name}`,
    'Mode = router',
    `Interface = ${OVERLAY_INTERFACE}`,
    'AddressFamily = ipv4',
    TINC_UNICAST_ONLY,
    'IndirectData = yes',
    ...timerLines(plan),
    ...TINC_CRYPTO,
    // One meta connection per pair: the node listed first in the topology dials.
    ...[...peers.keys()]
      .filter((peer) => byName.get(peer)!.index > node.index)
      .sort((x, y) => byName.get(x)!.index - byName.get(y)!.index)
      .map((peer) => `ConnectTo = ${peer}`),
  ];
  const tincUp = [
    '#!/bin/sh',
    OVERLAY_WITHOUT_IPV6,
    `ip addr add ${node.overlayAddress}/${OVERLAY_PREFIX} dev "$INTERFACE"`,
    `ip link set dev "$INTERFACE" mtu ${OVERLAY_MTU} up`,
    `touch ${readyFile(node.name)}`,
  ];
  const dataTransport = carriesDataOverTcp(plan) ? 'TCPOnly = yes' : 'PMTUDiscovery = no';
  const host = (name: string, addresses: string[]) =>
    file(join('hosts', name), [
      ...addressLines(addresses),
      `Port = ${TINC_PORT}`,
      `Subnet = ${byName.get(name)!.overlayAddress}/32`,
      'IndirectData = yes',
      dataTransport,
      // What a node sends to `name` is protected as `name`'s host file says.
      ...TINC_CRYPTO,
      publicKeys.get(name) ?? '',
    ]);
  return [
    file('tinc.conf', conf),
    file('tinc-up', tincUp, 0o700),
    host(node.name, []),
    ...[...peers].map(([peer, addresses]) => host(peer, addresses)),
  ];
}

export function writeTincConfig(plan: FleetPlan, node: PlannedNode, publicKeys: Map<string, string>): void {
  for (const f of tincFiles(plan, node, publicKeys)) writePrivate(join(fleetPaths.tincDir(node.name), f.path), f.content, f.mode);
}

/**
 * tinc 1.0 sends a neighbour's UDP packets to the address it first learnt for that node and keeps
 * it while the node stays reachable. With one connection type every node has one mesh address and
 * that is always right. With several, the address can be that of a link since cut (the meta
 * connection moved to another type while the node stayed reachable through others), and UDP to it
 * is lost for good; so such fleets carry data over the meta connections themselves (TCPOnly),
 * which always follow tinc's current graph. With one type, UDP needs no path MTU probing: the
 * overlay MTU leaves room for every header.
 */
export function carriesDataOverTcp(plan: FleetPlan): boolean {
  return new Set(plan.links.map((l) => l.type)).size > 1;
}

/** For each peer of `node`: the peer's mesh address on every link between them, best first (rankLinks). */
function peerAddresses(plan: FleetPlan, node: string): Map<string, string[]> {
  const peers = new Map<string, string[]>();
  for (const link of rankLinks(plan.links)) {
    if (link.a !== node && link.b !== node) continue;
    const { far } = endsFrom(link, node);
    peers.set(far.node, [...(peers.get(far.node) ?? []), far.meshAddress]);
  }
  return peers;
}

function tincLog(node: string): string {
  return existsSync(fleetPaths.log(`tinc-${node}`)) ? readFileSync(fleetPaths.log(`tinc-${node}`), 'utf8') : '';
}

/** Peers this node's tincd has had a meta connection activated with, from its log. */
export function activatedPeers(node: string): Set<string> {
  return new Set([...tincLog(node).matchAll(/Connection with (\S+) \(.*\) activated/g)].map((m) => m[1]));
}

/** Meta connections this node's tincd has closed so far (a peer that stopped answering, a reconnect), from its log. */
export function closedConnections(node: string): number {
  return [...tincLog(node).matchAll(/^.*Closing connection with /gm)].length;
}

/** Resolves once every tincd has a meta connection to every peer it has a link to. */
export function waitForTincMesh(plan: FleetPlan, timeoutMs: number): Promise<true> {
  return waitFor(
    () => {
      const missing = plan.nodes.flatMap((node) => {
        const connected = activatedPeers(node.name);
        return [...peerAddresses(plan, node.name).keys()].filter((peer) => !connected.has(peer)).map((peer) => `${node.name}-${peer}`);
      });
      return missing.length === 0;
    },
    { what: 'every tinc meta connection', timeoutMs, intervalMs: 100 },
  );
}

export const tincPidFile = fleetPaths.tincPid;

/**
 * Writes every node's configuration and starts the daemons one by one, last node first. A node
 * dials only peers listed after it, so each dial finds its peer listening: tinc 1.0 moves on to a
 * peer's next address when one is refused, and a peer still starting would leave the pair's meta
 * connection on a slower connection type for as long as that link lives.
 */
export async function startTincOverlay(
  plan: FleetPlan,
  publicKeys: Map<string, string>,
  cpus: string | undefined,
  record: (p: FleetProcess) => void,
): Promise<void> {
  for (const node of plan.nodes) writeTincConfig(plan, node, publicKeys);
  for (const node of [...plan.nodes].sort((x, y) => y.index - x.index)) await startTinc(node, cpus, record);
}

/** Starts one node's tincd from its configuration on disk; resolves once it is up and listening. */
export async function startTinc(node: PlannedNode, cpus: string | undefined, record: (p: FleetProcess) => void): Promise<void> {
  rmSync(readyFile(node.name), { force: true });
  // A killed tincd whose parent has not reaped it yet still answers kill(pid, 0), and a new tincd
  // refuses to start beside the PID in its pidfile ("A tincd is already running"). Supervision
  // restarts only a daemon it found dead, so the file is stale. (Seen with bench:faults: the
  // daemons' parent, a worker killed earlier, had left them to an init that reaps slowly.)
  rmSync(tincPidFile(node.name), { force: true });
  const dir = fleetPaths.tincDir(node.name);
  const owner = `tinc-${node.name}`;
  const log = fleetPaths.log(owner);
  const argv = ['tincd', '-D', '-d1', '-c', dir, `--pidfile=${tincPidFile(node.name)}`, `--logfile=${log}`];
  // "Ready" follows the listening sockets; tinc-up may run just before them.
  const listening = () => existsSync(readyFile(node.name)) && existsSync(log) && /: Ready$/m.test(readFileSync(log, 'utf8'));
  await startDaemon({ namespace: node.namespace, kind: 'tinc', owner, argv, cpus }, record, {
    ready: listening,
    what: 'tinc-up and its listening socket',
    timeoutMs: 10_000,
    intervalMs: 10,
  });
}
