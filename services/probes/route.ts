/**
 * The overlay route between two nodes, as tinc itself forwards: each tincd, on SIGUSR2, logs its
 * view of every node with the next hop it sends that node's packets to. With IndirectData a
 * packet is forwarded hop by hop, so following the next hops from node to node is the path.
 */
import type { NodeExec } from '../../core/exec';
import { sleep } from '../../platform/wait';

/** Where a node's tincd keeps its PID and log. */
export interface TincFiles {
  pidFile: string;
  logFile: string;
}

/** `<name> at <address> ... nexthop <hop> via <via> ...` lines between "Nodes:" and "End of nodes.". */
export function parseNextHops(log: string): Map<string, string> {
  const start = log.lastIndexOf('Nodes:');
  const end = log.indexOf('End of nodes.', start);
  if (start < 0 || end < 0) throw new Error('no complete node dump in the tinc log');
  const hops = new Map<string, string>();
  for (const line of log.slice(start, end).split('\n')) {
    const m = /\s(\S+) at \S.* nexthop (\S+) via (\S+)/.exec(line);
    if (m) hops.set(m[1], m[2]);
  }
  return hops;
}

/**
 * Asks one tincd for its node dump and returns its next hop per destination. `asRoot` makes a
 * command run as root on the node (tincd's files and signals are root's; on a VM that is sudo).
 */
export async function nextHops(exec: NodeExec, files: TincFiles, asRoot: (argv: string[]) => string[] = (argv) => argv): Promise<Map<string, string>> {
  const run = (argv: string[]) => exec.run(asRoot(argv));
  const size = Number((await run(['stat', '-c', '%s', files.logFile])).stdout.trim());
  const pid = (await run(['cat', files.pidFile])).stdout.trim();
  await run(['kill', '-USR2', pid]);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    // Only what was logged after the signal: an older dump may describe an older graph.
    const { stdout } = await run(['tail', '-c', `+${size + 1}`, files.logFile]);
    if (stdout.includes('End of nodes.')) return parseNextHops(stdout);
    await sleep(50);
  }
  throw new Error(`tincd on ${exec.where} did not dump its nodes`);
}

/** Follows next hops from `from` to `to`; throws when `to` is unreachable or a loop shows up. */
export async function tincRoute(
  from: string,
  to: string,
  hopsOf: (node: string) => Promise<Map<string, string>>,
  maxHops: number,
): Promise<string[]> {
  const path = [from];
  let at = from;
  while (at !== to) {
    const hop = (await hopsOf(at)).get(to);
    if (!hop || hop === '-') throw new Error(`${to} is unreachable from ${at} on the overlay`);
    if (path.includes(hop) || path.length > maxHops) throw new Error(`routing loop on the overlay: ${[...path, hop].join(' -> ')}`);
    path.push(hop);
    at = hop;
  }
  return path;
}
