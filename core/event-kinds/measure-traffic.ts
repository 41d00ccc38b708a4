/** `measureTraffic: {}`: bytes exchanged per node pair so far, read from the fleet's counters. */
import type { TrafficMatrix } from '../network';
import { defineEventKind } from './event-kind';

export const measureTraffic = defineEventKind({
  key: 'measureTraffic',
  kind: 'measure-traffic',
  schema: { type: 'object', additionalProperties: false },
  takesList: false,
  toAction: (_: Record<string, never>) => ({ kind: 'measure-traffic' }),
  plan: () => 'traffic per node pair measured',
  lane: 'measure',
  duration: 'measurement',
  apply: (_a, { fleet }) => ({ activity: 'readTraffic', input: { fleet } }),
  outcome(_a, result) {
    const traffic = result as TrafficMatrix;
    return { detail: { pairs: traffic.pairs.length }, times: { completedAt: traffic.time }, traffic };
  },
  measures: 'traffic',
  label: () => 'traffic counters',
  marker: { name: 'traffic reading', color: '#bbbbbb' },
  phrase: 'traffic readings',
  doc: { does: "bytes each node pair exchanged so far, from the fleet's counters", example: '{ at: 60, measureTraffic: {} }' },
});
