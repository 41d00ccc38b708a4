/** `add: seoul`: a data node joins the cluster (Redis moves slots to it, Cassandra bootstraps it). */
import { defineEventKind, oneOrList } from './event-kind';
import { resizeCall, resizeOutcome } from './resize';

export const resizeAdd = defineEventKind({
  key: 'add',
  kind: 'resize-add',
  schema: oneOrList({ $ref: '#/definitions/nodeName' }),
  takesList: true,
  toAction: (node: string) => ({ kind: 'resize-add', node }),
  check(a, st, when) {
    if (!st.dataNodes.includes(a.node)) return `unknown data node "${a.node}"; data nodes of ${st.fleet.name}: ${st.dataNodes.join(', ')}`;
    if (st.members.has(a.node)) return `"${a.node}" is already in the cluster ${when}; remove it first or start without it (database.nodes)`;
    st.members.add(a.node);
    return undefined;
  },
  plan: (a) => `database node ${a.node} added`,
  lane: 'cluster',
  duration: 'resize',
  apply: (a, target) => resizeCall('addNode', a.node, target),
  outcome: (a, result) => resizeOutcome(a.node, result),
  resize: { node: (a) => a.node, delta: 1 },
  label: (a) => `add ${a.node}`,
  marker: { name: 'resize: add node', color: '#33a02c' },
  phrase: 'nodes joining',
  doc: { does: 'a node joins the database cluster; requested, accepted and completed are timed', example: '{ at: 30, add: seoul }' },
});
