/**
 * SPEC.md §4.4's Redis paragraph: Redis resized offline, a fresh cluster per size, growing in
 * MongoDB's order of re-adding (the paper's two nodes left after downsizing, Melbourne and
 * Virginia, then Dubai, Seoul, Pune, Canberra, Sydney, Singapore), throughput at X and 5X for
 * workloads A, B, E and F (Table 5) with one client thread. Redis Cluster needs three masters
 * here, so the smallest cluster is 3 nodes, not 2. The 8-node cluster is the latency epochs'
 * (the same sites, threads, records and epochs): one `reproduce` invocation with both runs it once.
 */
import type { Workload } from '../ycsb';
import { EPOCH_RECORDS, EPOCH_SECONDS, LATENCY_CEILINGS, X, X5, epochParts, ratioSample, throughput, MAIN_CELL } from './latency';
import {
  LOAD_PHASE,
  REPRODUCTION_YCSB,
  epochLabel,
  epochPhases,
  type ComparisonSpec,
  type NotCompared,
  type Reproduction,
  type ReproductionPart,
} from './experiment';
import { fmt, greater, holdsIn, throughputRatio, valuesPerEvent, type RepetitionFigures } from './observe';
import { derivedTarget, publishedExperiment } from './published';
import { DECISION } from './rules';
import { versionsDeviation } from './shared-deviations';

/** MongoDB's order of re-adding after downsizing to Melbourne and Virginia (§4.2.3), which the Redis sizing follows. */
export const SIZING_ORDER = ['melbourne', 'virginia', 'dubai', 'seoul', 'pune', 'canberra', 'sydney', 'singapore'];
/** Cluster sizes run here; 8 comes from the latency epochs. */
export const SIZES = [3, 4];
export const SIZING_WORKLOADS: Workload[] = ['a', 'b', 'e', 'f'];

const sizesPart: ReproductionPart = {
  id: 'redis-sizes',
  scenario: {
    name: 'reproduce-offline-sizing-redis',
    experiment: 'Redis offline sizing (reproduction)',
    fleet: { local: 'fhc-8dc' },
    database: { name: 'redis' },
    ycsb: { ...REPRODUCTION_YCSB, recordCount: EPOCH_RECORDS, threads: 1, target: LATENCY_CEILINGS.redis },
    matrix: { latencyScale: [X], nodes: SIZES.map((n) => ({ name: String(n), database: { nodes: SIZING_ORDER.slice(0, n) } })) },
    phases: [{ phase: 'flush' }, LOAD_PHASE, ...epochPhases(SIZING_WORKLOADS, [X, X5], EPOCH_SECONDS)],
  },
};

const eightNodes: ReproductionPart = { ...epochParts().find((p) => p.id === 'redis')!, sameRunsAs: { experiment: 'latency', part: 'redis' } };

const cellOf = (size: number) => (size === 8 ? MAIN_CELL : `${MAIN_CELL} nodes=${size}`);
const at = (size: number, w: Workload, scale: number) => ({ database: 'redis', cell: cellOf(size), phase: epochLabel(w, scale) });
const T = (r: RepetitionFigures, size: number, w: Workload, scale: number) => throughput(r, 'redis', w, scale, cellOf(size)).value;
/** T(0.2)/T(1.0) at a size, with its own noise. */
const gain = (r: RepetitionFigures, size: number, w: Workload, from: string) => ratioSample(r, 'redis', w, X, X5, from, cellOf(size));
const UPPER = (w: Workload) => w.toUpperCase();

const table5 = (size: number, w: Workload): ComparisonSpec => ({
  id: `os-t5-${size}n-${w}`,
  ours: `Redis on ${size} nodes, ${UPPER(w)}: T(0.2)/T(1.0), one sample per repetition`,
  observe: (p) => valuesPerEvent(p, '', (r) => [gain(r, size, w, r.label)]),
});

export const OFFLINE_SIZING_COMPARES: ComparisonSpec[] = [
  {
    id: 'os-8v2-max',
    ours: 'Redis T(8 nodes)/T(3 nodes) at 1.0 (3, not 2: Redis Cluster needs 3 masters here; a disagreement carries over to 2 nodes, which are no faster, an agreement need not), one sample per repetition and workload A, B, F',
    observe: (p) =>
      valuesPerEvent(p, '', (r) =>
        (['a', 'b', 'f'] as Workload[]).map((w) => throughputRatio(r, at(8, w, X5), at(3, w, X5), `${r.label} ${UPPER(w)}`)),
      ),
  },
  {
    id: 'os-f-vs-ad',
    ours: "Redis at 1.0: F's throughput over the mean of A's and B's, one sample per repetition and cluster size (3, 4, 8)",
    observe: (p) =>
      valuesPerEvent(p, '', (r) =>
        [...SIZES, 8].map((n) => ({ value: T(r, n, 'f', X5) / ((T(r, n, 'a', X5) + T(r, n, 'b', X5)) / 2), from: `${r.label} ${n} nodes` })),
      ),
  },
  ...[4, 8].flatMap((size) => SIZING_WORKLOADS.map((w) => table5(size, w))),
  {
    id: 'os-redis-x-vs-5x',
    ours: 'Redis T(0.2)/T(1.0), one sample per repetition, cluster size (3, 4, 8) and workload (A, B, E, F)',
    observe: (p) =>
      valuesPerEvent(p, '', (r) => [...SIZES, 8].flatMap((n) => SIZING_WORKLOADS.map((w) => gain(r, n, w, `${r.label} ${n}n ${UPPER(w)}`)))),
  },
  {
    id: 'os-more-nodes',
    ours: 'Redis at 1.0: throughput higher at 4 nodes than at 3 and at 8 than at 4, per repetition and workload',
    observe: (p) =>
      holdsIn(p, (r) =>
        SIZING_WORKLOADS.flatMap((w) => [
          greater(`${r.label} ${UPPER(w)}`, '4 vs 3 nodes ops/s', T(r, 4, w, X5), T(r, 3, w, X5)),
          greater(`${r.label} ${UPPER(w)}`, '8 vs 4 nodes ops/s', T(r, 8, w, X5), T(r, 4, w, X5)),
        ]),
      ),
  },
  {
    id: 'os-ad-similar',
    ours: `Redis at 1.0: A's and B's throughput within ${DECISION.tolerance * 100} % of each other (C and D are not run at every size), per repetition and size`,
    observe: (p) =>
      holdsIn(p, (r) =>
        [...SIZES, 8].map((n) => {
          const [a, b] = [T(r, n, 'a', X5), T(r, n, 'b', X5)];
          return { holds: Math.abs(a / b - 1) <= DECISION.tolerance, from: `${r.label} ${n} nodes`, shows: `A ${fmt(a)}, B ${fmt(b)} ops/s` };
        }),
      ),
  },
  {
    id: 'os-linear-latency',
    ours: "the 'tracks the latency change' part: Redis T(0.2)/T(1.0) against the latency's own change, 1.0/0.2 = 5, one sample per repetition, size and workload (MongoDB's part is not runnable here; Cassandra's is another experiment's runs)",
    target: () => derivedTarget(X5 / X, X5 / X, 'the latency scale’s change, 1.0/0.2'),
    observe: (p) =>
      valuesPerEvent(p, '', (r) => [...SIZES, 8].flatMap((n) => SIZING_WORKLOADS.map((w) => gain(r, n, w, `${r.label} ${n}n ${UPPER(w)}`)))),
  },
];

const twoNodes = {
  group: 'set-up not emulated here',
  reason:
    'a 2-node Redis cluster: Redis Cluster here needs 3 masters, so the smallest cluster is 3 nodes (its figures are in the table beside the 4- and 8-node ones)',
} as const;

export const OFFLINE_SIZING_NOT_COMPARED: NotCompared[] = [
  ...(['a', 'b', 'e', 'f'] as Workload[]).map((w) => ({ id: `os-t5-2n-${w}`, ...twoNodes })),
  {
    id: 'os-e-skipped',
    group: 'not a measured result',
    reason: 'says the authors left E out because Redis could not run it effectively; E runs here and its figures are shown',
  },
  { id: 'os-why-offline', group: 'not a measured result', reason: 'the reason for resizing offline (a procedure), not a measurement' },
];

export const offlineSizing: Reproduction = {
  id: 'offline-sizing',
  title: 'Redis sized offline: throughput at 3, 4 and 8 nodes, at X and 5X',
  source: 'SPEC.md §4.4 (Redis, offline)',
  deviations: [
    {
      what: 'cluster sizes',
      published: `2 to 8 nodes (Table 5: 2, 4, 8); sites: ${String(publishedExperiment('offline-sizing').publishedSetup.sites)}`,
      ours: `3 (${SIZING_ORDER.slice(0, 3).join(', ')}), 4 (+ ${SIZING_ORDER[3]}) and 8 (all sites, the latency epochs' cluster)`,
      why: 'Redis Cluster needs 3 masters to form; the next node of the published order is the third',
    },
    {
      what: 'client threads',
      published: 'not stated',
      ours: '1 (YCSB’s default threadcount), as in the latency epochs',
      why: 'The paper does not change YCSB’s default; the 8-node figures are the latency epochs’ runs',
    },
    {
      what: 'run length',
      published: 'not stated',
      ours: `${EPOCH_SECONDS} s per workload and scale, one cluster and one load of 10,000 records per size`,
      why: 'A ratio of closed-loop throughputs does not depend on the run length',
    },
    versionsDeviation('Redis 6.0.11 with Jedis 2.9.0, YCSB 0.15.0'),
  ],
  compares: OFFLINE_SIZING_COMPARES,
  notCompared: OFFLINE_SIZING_NOT_COMPARED,
  defaultRepeat: 2,
  parts: [sizesPart, eightNodes],
};
