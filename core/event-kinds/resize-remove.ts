/** `remove: seoul`: a node leaves the cluster, its data moved to the others first. */
import { defineEventKind, oneOrList } from './event-kind';
import { resizeCall, resizeOutcome } from './resize';

export const resizeRemove = defineEventKind({
  key: 'remove',
  kind: 'resize-remove',
  schema: oneOrList({ $ref: '#/definitions/nodeName' }),
  takesList: true,
  toAction: (node: string) => ({ kind: 'resize-remove', node }),
  check(a, st, when) {
    if (!st.members.has(a.node)) return `"${a.node}" is not in the cluster ${when}; members then: ${[...st.members].join(', ')}`;
    if (st.members.size === 1) return `removing "${a.node}" would leave no node in the cluster`;
    st.members.delete(a.node);
    return undefined;
  },
  plan: (a) => `database node ${a.node} removed`,
  lane: 'cluster',
  duration: 'resize',
  apply: (a, target) => resizeCall('removeNode', a.node, target),
  outcome: (a, result) => resizeOutcome(a.node, result),
  resize: { node: (a) => a.node, delta: -1 },
  label: (a) => `remove ${a.node}`,
  marker: { name: 'resize: remove node', color: '#ff7f00' },
  phrase: 'nodes leaving',
  doc: { does: 'a node leaves the cluster, its data moved off first; timed like an add', example: '{ at: 90, remove: seoul }' },
});
