// What tinc 1.0.36 writes on SIGUSR2 (node.c and edge.c) and what fleet status makes of it: each
// node's next hop and whether its packets go inside the TCP meta connection, and the graph's edges
// (the address each meta connection reached its peer at).
import { parseTincDump } from '../../services/probes/route';
import { formatPath } from '../../core/overlay-path';

const DUMP = [
  'Nodes:',
  ' op1 at MYSELF cipher 0 digest 0 maclength 0 compression 0 options b status 0018 nexthop op1 via op1 pmtu 1518 (min 0 max 1518)',
  ' op2 at 198.19.0.2 port 655 cipher 0 digest 0 maclength 0 compression 0 options 9 status 003a nexthop op2 via op1 pmtu 1518 (min 0 max 1518)',
  ' op3 at 198.19.0.3 port 655 cipher 0 digest 0 maclength 0 compression 0 options b status 003a nexthop op2 via op1 pmtu 1518 (min 0 max 1518)',
  ' op4 at (null) cipher 0 digest 0 maclength 0 compression 0 options 0 status 0000 nexthop - via - pmtu 1518 (min 0 max 1518)',
  'End of nodes.',
  'Edges:',
  ' op1 to op2 at 198.19.0.2 port 655 options b weight 9',
  ' op1 to op3 at 198.19.1.3 port 655 options b weight 31',
  ' op3 to op1 at 198.19.1.1 port 655 options b weight 31',
  'End of edges.',
].join('\n');

test('a dump gives each node its next hop and transport, and each meta connection the address it reached', () => {
  const dump = parseTincDump(
    `an older dump\nNodes:\n op2 at 198.18.9.9 port 655 options 0 nexthop op3 via op3\nEnd of nodes.\nEdges:\nEnd of edges.\n${DUMP}\n`,
  );
  expect(dump.nodes.get('op2')).toEqual({ nextHop: 'op2', overTcp: false });
  expect(dump.nodes.get('op3')).toEqual({ nextHop: 'op2', overTcp: true });
  expect(dump.nodes.get('op4')).toEqual({ nextHop: '-', overTcp: false });
  expect(dump.edges).toEqual([
    { from: 'op1', to: 'op2', address: '198.19.0.2' },
    { from: 'op1', to: 'op3', address: '198.19.1.3' },
    { from: 'op3', to: 'op1', address: '198.19.1.1' },
  ]);
});

test('a dump cut short is an error, not an empty graph', () => {
  expect(() => parseTincDump(DUMP.replace('End of nodes.', ''))).toThrow('no complete nodes dump');
  expect(() => parseTincDump(DUMP.replace('End of edges.', ''))).toThrow('no complete edges dump');
});

test('a hop inside tinc’s TCP connection shows as such in the path', () => {
  const path = { from: 'op1', to: 'op3', hops: ['op1', 'op2', 'op3'], links: ['op1-op2/0', 'op2-op3/0'] };
  expect(formatPath(path)).toBe('op1 =op1-op2/0=> op2 =op2-op3/0=> op3');
  expect(formatPath({ ...path, overTcp: [false, true] })).toBe('op1 =op1-op2/0=> op2 =op2-op3/0 tcp=> op3');
});
