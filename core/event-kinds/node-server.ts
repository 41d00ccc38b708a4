/**
 * `kill: pune` and `revive: pune` are mirror images: a member's database server crashes (SIGKILL)
 * as a node of a fragmented cloud can, staying a member, down, and left down by supervision; a
 * revive starts it again in place (data and configuration kept) and it rejoins as itself. One
 * factory keeps both sides of the rule (a member is up before a kill, down before a revive).
 */
import { appliedAt, defineEventKind, oneOrList, type EventDuration, type TimelineState } from './event-kind';

interface NodeServerSpec<Key extends string, Kind extends string> {
  key: Key;
  kind: Kind;
  killing: boolean;
  /** What `validate` says happens to the node's server. */
  effect: string;
  duration: EventDuration;
  marker: { name: string; color: string };
  phrase: string;
  doc: { does: string; example: string };
}

function nodeServerChange<const Key extends string, const Kind extends string>(spec: NodeServerSpec<Key, Kind>) {
  return defineEventKind({
    key: spec.key,
    kind: spec.kind,
    schema: oneOrList({ $ref: '#/definitions/nodeName' }),
    takesList: true,
    toAction: (node: string) => ({ kind: spec.kind, node }),
    check: (a, st, when) => checkServerChange(a.node, spec.killing, st, when),
    plan: (a) => `database server on ${a.node} ${spec.effect}`,
    lane: 'cluster',
    duration: spec.duration,
    apply: (a, { fleet, database }) => ({ activity: spec.killing ? 'killNode' : 'reviveNode', input: { fleet, database, node: a.node } }),
    outcome: (a, result) => appliedAt({ node: a.node }, result),
    label: (a) => `${spec.key} ${a.node}`,
    marker: spec.marker,
    phrase: spec.phrase,
    doc: spec.doc,
  });
}

function checkServerChange(node: string, killing: boolean, st: TimelineState, when: string): string | undefined {
  if (killing && !st.members.has(node)) return `"${node}" is not in the cluster ${when}; members then: ${[...st.members].join(', ')}`;
  if (killing && st.down.has(node)) return `"${node}" is already down ${when} (killed before, not revived)`;
  if (!killing && !st.down.has(node)) return `"${node}" is not down ${when}; kill it first (\`kill: ${node}\`)`;
  if (killing) st.down.add(node);
  else st.down.delete(node);
  return undefined;
}

export const nodeKill = nodeServerChange({
  key: 'kill',
  kind: 'node-kill',
  killing: true,
  effect: 'killed (SIGKILL); it stays a member, down',
  duration: 'quick',
  marker: { name: 'node killed', color: '#b10026' },
  phrase: 'nodes crashing',
  doc: { does: "a member's database server is SIGKILLed; it stays a member, down", example: '{ at: 40, kill: pune }' },
});

export const nodeRevive = nodeServerChange({
  key: 'revive',
  kind: 'node-revive',
  killing: false,
  effect: 'started again in place (rejoins as itself)',
  // It waits until the server serves: a JVM database takes tens of seconds.
  duration: 'resize',
  marker: { name: 'node revived', color: '#238b45' },
  phrase: 'nodes coming back',
  doc: { does: 'a killed member starts again in place and rejoins as itself', example: '{ at: 70, revive: pune }' },
});
