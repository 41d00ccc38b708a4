/**
 * tinc 1.0 configuration for one node of the overlay (network `fb`), rendered from the inventory:
 * the node connects to its mesh neighbours and reaches them at their WireGuard addresses, fastest
 * link first (the fleet's network steering keeps that order as conditions change:
 * infra/shaping/vm-overlay.ts), so the overlay routes around a removed link over the links that remain.
 */
import type { InventoryNode } from '../../../core/inventory';
import { OVERLAY_WITHOUT_IPV6, TINC_UNICAST_ONLY, rankLinks } from '../../../core/overlay-path';
import { parseCidr } from '../cidr';
import type { FileSpec } from './files-script';
import type { MeshView } from './wireguard';

export const TINC_NETWORK = 'fb';
/** The overlay's interface on a VM. */
export const TINC_INTERFACE = 'tinc0';
const DIR = `/etc/tinc/${TINC_NETWORK}`;
/**
 * Where tincd keeps its PID and log on a VM. The shipped `tinc@` unit runs `tincd -n %i -D`, which
 * logs to the journal; the overlay route probe (services/probes/route.ts) reads tinc's node dump
 * from a file, so a drop-in gives tincd one.
 */
/** The `tinc@fb` unit Debian and Ubuntu ship. */
export const TINC_SERVICE = `tinc@${TINC_NETWORK}`;
export const VM_TINC_FILES = { pidFile: `/run/tinc.${TINC_NETWORK}.pid`, logFile: `/var/log/tinc.${TINC_NETWORK}.log` };
/** Seconds between keepalive pings and how long a silent peer is kept: what bounds failover time. */
const PING = { interval: 10, timeout: 5 };

export interface TincArgs {
  mesh: MeshView;
  node: string;
  /** PKCS#1 PEM of this node's RSA key. */
  privateKey: string;
  /** PKCS#1 PEM public key per node. */
  publicKeys: Record<string, string>;
  overlayCidr: string;
}

export function tincFiles(args: TincArgs): Record<string, FileSpec> {
  const self = nodeNamed(args.mesh, args.node);
  const neighbours = neighboursOf(args.mesh, args.node);
  const prefix = parseCidr(args.overlayCidr).prefix;
  const files: Record<string, FileSpec> = {
    [`${DIR}/tinc.conf`]: {
      mode: '644',
      content: lines(
        `Name = ${self.name}`,
        'Mode = router',
        `Interface = ${TINC_INTERFACE}`,
        'AddressFamily = ipv4',
        TINC_UNICAST_ONLY,
        `PingInterval = ${PING.interval}`,
        `PingTimeout = ${PING.timeout}`,
        ...[...neighbours.keys()].map((n) => `ConnectTo = ${n}`),
      ),
    },
    [`${DIR}/rsa_key.priv`]: { mode: '600', content: args.privateKey },
    [`${DIR}/tinc-up`]: {
      mode: '755',
      content: lines(
        '#!/bin/sh',
        OVERLAY_WITHOUT_IPV6,
        'ip link set "$INTERFACE" up',
        `ip addr add ${self.overlayAddress}/${prefix} dev "$INTERFACE"`,
      ),
    },
    [`${DIR}/tinc-down`]: { mode: '755', content: lines('#!/bin/sh', 'ip link set "$INTERFACE" down') },
    [hostFile(self.name)]: {
      mode: '644',
      content: hostEntry(
        self,
        self.wireguard.map((w) => w.type),
        args.publicKeys,
      ),
    },
    [`/etc/systemd/system/${TINC_SERVICE}.service.d/fragbench-log.conf`]: {
      mode: '644',
      content: lines(
        '[Service]',
        'ExecStart=',
        `ExecStart=/usr/sbin/tincd -n ${TINC_NETWORK} -D --pidfile=${VM_TINC_FILES.pidFile} --logfile=${VM_TINC_FILES.logFile}`,
      ),
    },
  };
  for (const [name, types] of neighbours) {
    files[hostFile(name)] = { mode: '644', content: hostEntry(nodeNamed(args.mesh, name), types, args.publicKeys) };
  }
  return files;
}

/** Neighbours and the connection types this node shares with each, fastest link first (tinc dials the first Address that answers). */
function neighboursOf(mesh: MeshView, node: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const l of rankLinks(mesh.links)) {
    if (l.a !== node && l.b !== node) continue;
    const other = l.a === node ? l.b : l.a;
    out.set(other, [...(out.get(other) ?? []), l.type]);
  }
  return out;
}

/** A hosts file: the node's overlay subnet, then its mesh addresses on the types we share with it. */
function hostEntry(node: InventoryNode, types: number[], publicKeys: Record<string, string>): string {
  const key = publicKeys[node.name];
  if (!key) throw new Error(`no tinc public key for "${node.name}"`);
  const addresses = types.flatMap((t) => node.wireguard.filter((w) => w.type === t)).map((w) => `Address = ${w.address}`);
  return lines(`Subnet = ${node.overlayAddress}/32`, ...addresses, '', key.trimEnd());
}

function hostFile(node: string): string {
  return `${DIR}/hosts/${node}`;
}

function nodeNamed(mesh: MeshView, name: string): InventoryNode {
  const node = mesh.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node "${name}" in the mesh`);
  return node;
}

function lines(...items: string[]): string {
  return `${items.join('\n')}\n`;
}
