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

/** One node as a tincd sees it: where it sends the node's packets next, and whether it sends
 *  them inside its TCP meta connection (the node's TCPOnly option) rather than over UDP. */
export interface TincNodeView {
  nextHop: string;
  overTcp: boolean;
}

/** A meta connection as tinc's graph holds it: `from` reached `to` at `address` (tinc's edge). */
export interface TincEdge {
  from: string;
  to: string;
  address: string;
}

/** What one tincd's dump (SIGUSR2) says: every node and every edge of its graph. */
export interface TincDump {
  nodes: Map<string, TincNodeView>;
  edges: TincEdge[];
}

/** tinc 1.0's OPTION_TCPONLY bit (net.h). */
const OPTION_TCPONLY = 0x2;

/** The lines between the last `start` and the `end` after it; throws when there is none whole. */
function lastSection(log: string, start: string, end: string): string[] {
  const from = log.lastIndexOf(start);
  const to = log.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`no complete ${start.replace(':', '').toLowerCase()} dump in the tinc log`);
  return log.slice(from, to).split('\n');
}

/**
 * tinc 1.0.36's dump (node.c and edge.c): ` <name> at <address> ... options <hex> ... nexthop
 * <hop> via <via> ...` lines between "Nodes:" and "End of nodes.", and ` <from> to <to> at
 * <address> port <port> options <hex> weight <w>` lines between "Edges:" and "End of edges.".
 */
export function parseTincDump(log: string): TincDump {
  const nodes = new Map<string, TincNodeView>();
  for (const line of lastSection(log, 'Nodes:', 'End of nodes.')) {
    const m = /\s(\S+) at \S.* options ([0-9a-f]+) .*nexthop (\S+) via \S+/.exec(line);
    if (m) nodes.set(m[1], { nextHop: m[3], overTcp: (parseInt(m[2], 16) & OPTION_TCPONLY) !== 0 });
  }
  const edges: TincEdge[] = [];
  for (const line of lastSection(log, 'Edges:', 'End of edges.')) {
    const m = /\s(\S+) to (\S+) at (\S+) port \d+/.exec(line);
    if (m) edges.push({ from: m[1], to: m[2], address: m[3] });
  }
  return { nodes, edges };
}

/**
 * Asks one tincd for its dump (SIGUSR2 writes it to the log). `asRoot` makes a command run as root
 * on the node (tincd's files and signals are root's; on a VM that is sudo).
 */
export async function tincDump(exec: NodeExec, files: TincFiles, asRoot: (argv: string[]) => string[] = (argv) => argv): Promise<TincDump> {
  const run = (argv: string[]) => exec.run(asRoot(argv));
  const size = Number((await run(['stat', '-c', '%s', files.logFile])).stdout.trim());
  const pid = (await run(['cat', files.pidFile])).stdout.trim();
  await run(['kill', '-USR2', pid]);
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    // Only what was logged after the signal: an older dump may describe an older graph.
    const { stdout } = await run(['tail', '-c', `+${size + 1}`, files.logFile]);
    if (stdout.includes('End of edges.')) return parseTincDump(stdout);
    await sleep(50);
  }
  throw new Error(`tincd on ${exec.where} did not dump its graph`);
}

/** Each destination's next hop in a dump. */
export function nextHopsOf(dump: TincDump): Map<string, string> {
  return new Map([...dump.nodes].map(([node, view]) => [node, view.nextHop]));
}

/** Each destination's next hop as one tincd forwards now. */
export async function nextHops(exec: NodeExec, files: TincFiles, asRoot?: (argv: string[]) => string[]): Promise<Map<string, string>> {
  return nextHopsOf(await tincDump(exec, files, asRoot));
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
