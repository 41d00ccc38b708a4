/** Bytes carried per link, from WireGuard's per-peer transfer counters. */
import type { NodeExec } from '../../core/exec';
import { findNode, type Inventory } from '../../core/inventory';

export interface PeerTransfer {
  publicKey: string;
  rxBytes: number;
  txBytes: number;
}

/** `wg show <iface> transfer`: one `<public key>\t<rx>\t<tx>` line per peer. */
export function parseTransfer(stdout: string): PeerTransfer[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const [publicKey, rx, tx] = line.trim().split('\t');
      return { publicKey, rxBytes: Number(rx), txBytes: Number(tx) };
    });
}

/**
 * Bytes each link carried (both directions), read at the link's `a` end so no byte counts twice;
 * keyed by link id.
 */
export async function linkBytes(inventory: Inventory, execOf: (node: string) => NodeExec): Promise<Map<string, number>> {
  const reads = new Map<string, Promise<PeerTransfer[]>>();
  const transfers = (node: string, iface: string) => {
    const key = `${node}/${iface}`;
    if (!reads.has(key))
      reads.set(
        key,
        execOf(node)
          .run(['wg', 'show', iface, 'transfer'])
          .then((r) => parseTransfer(r.stdout)),
      );
    return reads.get(key)!;
  };
  const bytes = new Map<string, number>();
  await Promise.all(
    inventory.links.map(async (link) => {
      const [near, far] = link.ends;
      const peerKey = findNode(inventory, far.node).wireguard.find((w) => w.type === link.type)?.publicKey;
      const peer = (await transfers(near.node, near.interface)).find((t) => t.publicKey === peerKey);
      bytes.set(link.id, peer ? peer.rxBytes + peer.txBytes : 0);
    }),
  );
  return bytes;
}
