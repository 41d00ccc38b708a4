/** `measureRtt: { nodes: [a, b], count: 10 }`: a ping matrix between nodes, stored beside the samples. */
import type { RttMatrix } from '../network';
import { defineEventKind } from './event-kind';

/** Pings per node pair when a scenario does not say. */
export const DEFAULT_PING_COUNT = 10;

/** Nodes left out: every node of the fleet. */
export interface MeasureRttAction {
  kind: 'measure-rtt';
  nodes?: string[];
  count: number;
}

export const measureRtt = defineEventKind({
  key: 'measureRtt',
  kind: 'measure-rtt',
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      nodes: { type: 'array', minItems: 2, items: { $ref: '#/definitions/nodeName' } },
      count: { type: 'integer', minimum: 1, maximum: 100 },
    },
  },
  takesList: false,
  toAction: (m: { nodes?: string[]; count?: number }): MeasureRttAction => ({
    kind: 'measure-rtt',
    nodes: m.nodes,
    count: m.count ?? DEFAULT_PING_COUNT,
  }),
  check(a, st) {
    const unknown = (a.nodes ?? []).filter((n) => !st.nodeNames.includes(n));
    return unknown.length
      ? `unknown node${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; nodes: ${st.nodeNames.join(', ')}`
      : undefined;
  },
  plan: (a) => `RTT measured between ${a.nodes?.join(', ') ?? 'all nodes'} (${a.count} pings)`,
  lane: 'measure',
  duration: 'measurement',
  apply: (a, { fleet }) => ({ activity: 'measureRtt', input: { fleet, nodes: a.nodes, count: a.count } }),
  outcome(a, result) {
    const rtt = result as RttMatrix;
    return { detail: { meanMs: rtt.meanMs, count: a.count }, times: { completedAt: rtt.time }, rtt };
  },
  measures: 'rtt',
  label: () => 'ping matrix',
  marker: { name: 'RTT measurement', color: '#999999' },
  phrase: 'RTT measurements',
  doc: { does: 'ping matrix between the nodes (all by default), stored with the phase', example: '{ at: 30, measureRtt: { count: 10 } }' },
});
