/**
 * Overlay path steering on VM fleets, over the nodes' SSH executors: the local fleet's rules
 * (infra/local/overlay-paths.ts) applied to tinc 1.0 as the Pulumi stacks install it (network
 * `fb`, port 655, every node ConnectTo each neighbour, a host file per peer with one `Address` line
 * per connection type they share, written best first by the stack). On a change that reorders a
 * pair's links, each end's host file for the other gets its Address lines best first (the file's
 * mtime kept at tinc.conf's, so the rewrite alone makes tinc close nothing); a pair whose meta
 * connection runs over a link that is up but slower than the best by more than the margin, or
 * that has none and just got a link back, reconnects: its host file on the node listed first gets
 * an mtime ahead of tinc's last reload, that node's other host files tinc.conf's, and tincd a HUP,
 * on which tinc 1.0 closes the connections whose host file changed and redials from the first
 * Address. One SSH command per node touched, and one `ss` per dialing node; pairs joined by one
 * link (most VM fleets) cost nothing.
 */
import type { Inventory, InventoryLink } from '../../core/inventory';
import { findNode } from '../../core/inventory';
import type { NodeExec } from '../../core/exec';
import { isCutAnyWay, type NetworkSettings } from '../../core/network';
import { rankLinks, shouldReconnect } from '../../core/overlay-path';
import { execFor, rootArgv } from '../../services/exec/transports';

const TINC_DIR = '/etc/tinc/fb';
const TINC_PORT = 655;

const pairKey = (a: string, b: string) => [a, b].sort().join('-');
const hostFile = (peer: string) => `${TINC_DIR}/hosts/${peer}`;

/** The peer's mesh address on a link's connection type (its WireGuard interface of that type). */
function meshAddress(inventory: Inventory, node: string, type: number): string {
  const wg = findNode(inventory, node).wireguard.find((w) => w.type === type);
  if (!wg) throw new Error(`node "${node}" has no WireGuard interface for connection type ${type}`);
  return wg.address;
}

/** Pairs joined by two links or more, each with its links. */
function multiLinkPairs(inventory: Inventory): Map<string, InventoryLink[]> {
  const pairs = new Map<string, InventoryLink[]>();
  for (const link of inventory.links) pairs.set(pairKey(link.a, link.b), [...(pairs.get(pairKey(link.a, link.b)) ?? []), link]);
  return new Map([...pairs].filter(([, links]) => links.length > 1));
}

/** The node of a pair listed first in the inventory: the one made to redial. */
function dialerOf(inventory: Inventory, link: InventoryLink): string {
  const index = (name: string) => inventory.nodes.findIndex((n) => n.name === name);
  return index(link.a) < index(link.b) ? link.a : link.b;
}

const other = (link: InventoryLink, node: string) => (link.a === node ? link.b : link.a);
const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell lines that put a peer's Address lines in this order, keeping the rest of its host file and its mtime. */
export function rewriteAddressesScript(peer: string, addresses: string[]): string {
  const f = quoted(hostFile(peer));
  const lines = addresses.map((a) => quoted(`Address = ${a}`)).join(' ');
  return `{ printf '%s\\n' ${lines}; grep -v '^Address = ' ${f}; } > ${f}.fb-new && mv ${f}.fb-new ${f} && touch -r ${TINC_DIR}/tinc.conf ${f}`;
}

/** The shell lines that make tincd on a node close and redial the connections to `moving`, and no other. */
export function reconnectScript(peers: string[], moving: string[]): string {
  const keep = peers.filter((p) => !moving.includes(p)).map((p) => quoted(hostFile(p)));
  const ahead = moving.map((p) => quoted(hostFile(p)));
  return [
    ...(keep.length ? [`touch -r ${TINC_DIR}/tinc.conf ${keep.join(' ')}`] : []),
    `touch -d "@$(( $(date +%s) + 2 ))" ${ahead.join(' ')}`,
    'tincd -n fb -kHUP',
  ].join(' && ');
}

/** Remote mesh addresses of a node's established tinc connections (either side dialed). */
export function parseTincPeers(ssOutput: string): Set<string> {
  return new Set([...ssOutput.matchAll(/\s(\d+\.\d+\.\d+\.\d+):\d+\s*$/gm)].map((m) => m[1]));
}

export type ExecOf = (node: string) => NodeExec;

/** Steers the VMs' tinc after a change from `before` to `settings`; returns the pairs made to reconnect. */
export async function steerVmOverlay(inventory: Inventory, settings: NetworkSettings, before: NetworkSettings, execOf?: ExecOf): Promise<string[]> {
  const pairs = multiLinkPairs(inventory);
  if (pairs.size === 0) return [];
  const order = (links: InventoryLink[], s: NetworkSettings) =>
    rankLinks(links, s)
      .map((l) => l.id)
      .join(' ');
  const restored = (l: InventoryLink) => isCutAnyWay(before, l.id) && !isCutAnyWay(settings, l.id);
  const reordered = [...pairs].filter(([, links]) => order(links, settings) !== order(links, before));
  const candidates = [...pairs].filter(([key, links]) => reordered.some(([k]) => k === key) || links.some(restored));
  if (candidates.length === 0) return [];
  const run = (node: string, script: string) => {
    const exec = execOf?.(node) ?? execFor(findNode(inventory, node).exec);
    return exec.run(rootArgv(findNode(inventory, node).exec, ['sh', '-c', script]));
  };

  const rewrites = new Map<string, string[]>();
  for (const [, links] of reordered) {
    const ranked = rankLinks(links, settings);
    for (const node of [links[0].a, links[0].b]) {
      const peer = other(links[0], node);
      rewrites.set(node, [
        ...(rewrites.get(node) ?? []),
        rewriteAddressesScript(
          peer,
          ranked.map((l) => meshAddress(inventory, peer, l.type)),
        ),
      ]);
    }
  }
  await Promise.all([...rewrites].map(([node, scripts]) => run(node, scripts.join(' && '))));

  const dialers = [...new Set(candidates.map(([, links]) => dialerOf(inventory, links[0])))];
  const connected = new Map(
    await Promise.all(
      dialers.map(async (node) => {
        const { stdout } = await run(node, `ss -Htn state established '( dport = :${TINC_PORT} or sport = :${TINC_PORT} )'`);
        return [node, parseTincPeers(stdout)] as const;
      }),
    ),
  );
  const move = candidates.filter(([, links]) => {
    const dialer = dialerOf(inventory, links[0]);
    const peer = other(links[0], dialer);
    const now = links.find((l) => connected.get(dialer)!.has(meshAddress(inventory, peer, l.type)));
    return shouldReconnect(rankLinks(links, settings), now, settings);
  });
  const byDialer = new Map<string, string[]>();
  for (const [, links] of move) {
    const dialer = dialerOf(inventory, links[0]);
    byDialer.set(dialer, [...(byDialer.get(dialer) ?? []), other(links[0], dialer)]);
  }
  await Promise.all(
    [...byDialer].map(([dialer, moving]) => {
      const peers = [...new Set(inventory.links.filter((l) => l.a === dialer || l.b === dialer).map((l) => other(l, dialer)))];
      return run(dialer, reconnectScript(peers, moving));
    }),
  );
  return move.map(([key]) => key);
}
