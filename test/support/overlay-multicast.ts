/**
 * What the overlay carries besides unicast: tinc 1.0 floods multicast and broadcast to every node
 * unless told not to (core/overlay-path.ts, TINC_UNICAST_ONLY), and the kernel sends IPv6
 * multicast on any interface that has IPv6.
 */
import type { NodeExec } from '../../core/exec';

async function receivedPackets(node: NodeExec, overlayInterface: string): Promise<number> {
  const { stdout } = await node.run(['cat', `/sys/class/net/${overlayInterface}/statistics/rx_packets`]);
  return Number(stdout.trim());
}

/**
 * Packets each of `others` received on its overlay interface while `from` pinged the all-hosts
 * group (224.0.0.1) out of its own, three times (1 s apart, the shortest interval ping allows a user
 * other than root for a group): 0 each where the overlay carries unicast only.
 */
export async function multicastReceived(from: NodeExec, others: NodeExec[], overlayInterface: string): Promise<number[]> {
  const before = await Promise.all(others.map((node) => receivedPackets(node, overlayInterface)));
  await from.run(['ping', '-n', '-q', '-c', '3', '-i', '1', '-W', '1', '-I', overlayInterface, '224.0.0.1'], { allowFailure: true });
  const after = await Promise.all(others.map((node) => receivedPackets(node, overlayInterface)));
  return after.map((count, i) => count - before[i]);
}

/** The overlay interface's IPv6 addresses (`ip -6 -o addr` lines); none where IPv6 is off on it. */
export async function ipv6Addresses(node: NodeExec, overlayInterface: string): Promise<string[]> {
  const { stdout } = await node.run(['ip', '-6', '-o', 'addr', 'show', 'dev', overlayInterface]);
  return stdout.split('\n').filter(Boolean);
}
