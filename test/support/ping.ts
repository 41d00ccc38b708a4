import type { NodeExec } from '../../core/exec';

/** Replies to `count` pings from a node to an address (0.2 s apart, 1 s timeout each). */
export async function pingReplies(from: NodeExec, address: string, count = 3): Promise<number> {
  const { stdout } = await from.run(['ping', '-n', '-q', '-c', String(count), '-i', '0.2', '-W', '1', address], { allowFailure: true });
  return Number(/(\d+) received/.exec(stdout)?.[1] ?? 0);
}
