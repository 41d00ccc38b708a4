/**
 * `partition: [[alpha, bravo], [charlie, delta]]` cuts every link between the groups (nodes in no
 * group keep theirs); `heal: true` restores exactly the links partitions cut, none that a `cut`
 * event took down.
 */
import { linksBetweenGroups, partitionProblem } from '../link-selection';
import { appliedAt, defineEventKind } from './event-kind';

export const partition = defineEventKind({
  key: 'partition',
  kind: 'partition',
  schema: { type: 'array', minItems: 2, items: { type: 'array', minItems: 1, items: { $ref: '#/definitions/nodeName' } } },
  takesList: false,
  toAction: (groups: string[][]) => ({ kind: 'partition' as const, groups }),
  check: (a, st, when) => {
    const problem = partitionProblem(a.groups, st.fleet);
    if (problem) return `${problem} (${when})`;
    for (const id of linksBetweenGroups(a.groups, st.fleet)) st.cut.add(id);
    return undefined;
  },
  plan: (a) => `partition ${a.groups.map((g) => `[${g.join(', ')}]`).join(' | ')}: every link between the groups cut`,
  lane: 'network',
  duration: 'quick',
  apply: (a, { fleet }) => ({ activity: 'partitionLinks', input: { fleet, groups: a.groups } }),
  outcome: (a, result) => appliedAt({ groups: a.groups, cut: (result as { cut: string[] }).cut }, result),
  label: (a) => `partition ${a.groups.map((g) => g.join('+')).join(' | ')}`,
  marker: { name: 'partition', color: '#e377c2' },
  phrase: 'partitions',
  doc: { does: 'every link between the groups is cut', example: '{ at: 70, partition: [[sydney, pune], [singapore, seoul]] }' },
});

export const heal = defineEventKind({
  key: 'heal',
  kind: 'heal',
  schema: { const: true, description: 'restores exactly the links partitions cut' },
  takesList: false,
  toAction: (_: true) => ({ kind: 'heal' as const }),
  plan: () => 'the links partitions cut restored',
  lane: 'network',
  duration: 'quick',
  apply: (_a, { fleet }) => ({ activity: 'healPartition', input: { fleet } }),
  outcome: (_a, result) => appliedAt({ restored: (result as { restored: string[] }).restored }, result),
  label: () => 'heal partition',
  marker: { name: 'heal', color: '#7f7f7f' },
  phrase: 'partition heals',
  doc: { does: 'exactly the links partitions cut are restored', example: '{ at: 90, heal: true }' },
});
