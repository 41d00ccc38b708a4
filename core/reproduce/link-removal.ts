/**
 * SPEC.md §4.5, link removal under load on the 64-link mesh: the first removals of the published
 * experiment's seeded order (scenarios/link-removal.ts), each with 60 s of load before and after
 * it as published and the all-pairs ping matrix before and after, under tinc's own failover
 * timers (the published 20-40 s outages can only appear there) and, as a second curve, under
 * `fast`. The client joins the mesh through Singapore's node, so removals can touch its paths.
 */
import type { ScenarioFile } from '../scenario';
import { LOAD_PHASE, REPRODUCTION_YCSB, warmup, type ComparisonSpec, type NotCompared, type Reproduction } from './experiment';
import { holdsIn, valuesPerEvent, type RepetitionFigures } from './observe';
import type { Observation } from './rules';
import { DECISION } from './rules';
import { MONGODB_MYSQL, OTHER_HARDWARE, versionsDeviation } from './shared-deviations';

/** The first removals of the 50 in scenarios/link-removal.yaml, in its order. */
export const FIRST_REMOVALS = ['singapore-dubai/0', 'melbourne-dubai/1', 'sydney-canberra/2', 'canberra-pune/0'];
/** Seconds per removal: the published 60 s before and 60 s after under tinc-defaults; `fast` re-routes in about 2 s. */
export const STEP_S = { 'tinc-defaults': 120, fast: 40 } as const;
type Failover = keyof typeof STEP_S;
export const CASSANDRA_NODES = ['singapore', 'pune', 'seoul'];
/**
 * The published Redis client was YCSB patched to retry while tinc re-routes: retries enough to
 * outlast tinc-defaults' detection (PingInterval 60 + PingTimeout 5 s) at 10 s a try.
 */
const REDIS_RETRIES = 7;

function removal(database: 'redis' | 'cassandra', failover: Failover): ScenarioFile {
  const redis = database === 'redis';
  const step = STEP_S[failover];
  return {
    name: `reproduce-link-removal-${database}-${failover}`,
    experiment: 'link removal under load (reproduction)',
    fleet: { local: `fhc-8dc-mesh64-${failover}` },
    database: redis ? { name: 'redis', nodes: 'all' } : { name: 'cassandra', nodes: CASSANDRA_NODES },
    ycsb: {
      ...REPRODUCTION_YCSB,
      workload: 'a',
      recordCount: 1000,
      threads: 1,
      ...(redis ? { retries: REDIS_RETRIES, target: 200 } : { target: 60 }),
    },
    phases: [
      { phase: 'flush' },
      LOAD_PHASE,
      ...(redis ? [] : [warmup(45)]),
      {
        phase: 'run',
        label: 'removals',
        duration: step * FIRST_REMOVALS.length,
        events: [
          { at: step / 2 - 20, every: step, times: FIRST_REMOVALS.length, label: 'ping before', measureRtt: { count: 10 } },
          { at: step / 2, every: step, cut: FIRST_REMOVALS },
          // Late in the step: under tinc-defaults a re-route takes up to 65 s.
          { at: step - 12, every: step, times: FIRST_REMOVALS.length, label: 'ping after', measureRtt: { count: 10 } },
        ],
      },
    ],
  };
}

const cellOf = (failover: Failover) => `fleet=fhc-8dc-mesh64-${failover}`;
const at = (database: string, link: string, failover: Failover = 'tinc-defaults') => ({
  database,
  cell: cellOf(failover),
  phase: `removals · cut ${link}`,
});

/** The removals after which one of the client's paths to the database's nodes moved (it crossed the removed link). */
function touching(r: RepetitionFigures, database: string): string[] {
  return FIRST_REMOVALS.filter((link) => r.all({ ...at(database, link), measure: 'path settled after' }).length > 0);
}

/** Per removal that moved one of the client's paths: whether the load stopped (an outage) after it. */
function outagesOnReroutes(r: RepetitionFigures, database: string): Observation[] {
  return touching(r, database).map((link) => {
    const outage = r.value({ ...at(database, link), measure: 'outage after' });
    return { holds: outage > 0, from: `${r.label} ${database} cut ${link}`, shows: `longest outage ${outage} s` };
  });
}

const outages = (r: RepetitionFigures, database: string) =>
  FIRST_REMOVALS.filter((link) => r.value({ ...at(database, link), measure: 'outage after' }) > 0).length;

export const LINK_REMOVAL_COMPARES: ComparisonSpec[] = [
  {
    id: 'lr-redis-outage-length',
    ours: 'Redis under tinc-defaults: the length of each outage (2 s or more without a successful operation) after a removal, one sample per outage',
    observe: (p) =>
      valuesPerEvent(p, 's', (r) =>
        FIRST_REMOVALS.flatMap((link) => {
          const outage = r.value({ ...at('redis', link), measure: 'outage after' });
          return outage > 0 ? [{ value: outage, from: `${r.label} cut ${link}` }] : [];
        }),
      ),
  },
  {
    id: 'lr-cassandra-zero',
    ours: 'Cassandra under tinc-defaults: an outage after each removal that moved one of its client’s paths (workload A; B is not run), one observation per such removal',
    observe: (p) => holdsIn(p, (r) => outagesOnReroutes(r, 'cassandra')),
  },
  {
    id: 'lr-redis-unresponsive',
    ours: 'Redis under tinc-defaults: an outage after each removal that moved one of its client’s paths; and fewer removals followed by an outage than Cassandra’s (both 1 thread), per repetition',
    observe: (p) =>
      holdsIn(p, (r) => {
        r.sameThreads(
          r.figure({ ...at('redis', FIRST_REMOVALS[0]), measure: 'outage after' }),
          r.figure({ ...at('cassandra', FIRST_REMOVALS[0]), measure: 'outage after' }),
        );
        const [redis, cassandra] = [outages(r, 'redis'), outages(r, 'cassandra')];
        return [
          ...outagesOnReroutes(r, 'redis'),
          { holds: redis < cassandra, from: `${r.label}`, shows: `removals followed by an outage: redis ${redis}, cassandra ${cassandra}` },
        ];
      }),
  },
  {
    id: 'lr-reroute-latency',
    ours: `the all-pairs average ping moves by more than ${DECISION.tolerance * 100} % across at least one removal, per repetition and database (under tinc-defaults)`,
    disagreement: {
      measured:
        "one removal re-routes few of the 56 pairs on the 64-link mesh, so the average moves little per removal; over a sequence it adds up: in the eight removals of the 2026-11-27 run the all-pairs average rose from 82.5 to 98.7 ms (20 %) with no single step past 20 % (docs/reproduce-results.md). Four of the paper's fifty removals run here, and its 'noticeably' is not tied to one removal",
    },
    observe: (p) =>
      holdsIn(p, (r) =>
        ['redis', 'cassandra'].map((db): Observation => {
          const shifts = FIRST_REMOVALS.map((link) => {
            const [before, after] = [
              r.value({ ...at(db, link), measure: 'average ping before' }),
              r.value({ ...at(db, link), measure: 'average ping after' }),
            ];
            return Math.abs(after / before - 1);
          });
          const largest = Math.max(...shifts);
          return { holds: largest > DECISION.tolerance, from: `${r.label} ${db}`, shows: `largest shift ${(largest * 100).toFixed(0)} %` };
        }),
      ),
  },
];

const randomOrder = {
  group: 'set-up not emulated here',
  reason:
    'when in the run re-routing helped depends on the published random removal order and mesh, which are not published; ours are drawn from a seed of our own',
} as const;

export const LINK_REMOVAL_NOT_COMPARED: NotCompared[] = [
  ...['lr-cassandra-dense-a', 'lr-cassandra-dense-b', 'lr-cassandra-dense-e', 'lr-cassandra-dense-f'].map((id) => ({ id, ...OTHER_HARDWARE })),
  { id: 'lr-cassandra-a-gain-window-1', ...randomOrder },
  { id: 'lr-cassandra-a-gain-window-2', ...randomOrder },
  ...[
    'lr-mongodb-outage-count',
    'lr-mongodb-outage-length',
    'lr-mongodb-a-peak',
    'lr-mysql-outages-a',
    'lr-mysql-outages-b',
    'lr-mysql-outages-e',
    'lr-mysql-outages-f',
  ].map((id) => ({
    id,
    ...MONGODB_MYSQL,
  })),
  {
    id: 'lr-redis-outage-count',
    group: 'ambiguous in the paper',
    reason: `‘about 10 times’ reads as Redis's count over 50 removals or as a ratio to Cassandra's; and a count depends on which links the random order removes (we run ${FIRST_REMOVALS.length} of 50 of our own seeded order)`,
  },
  { id: 'lr-mongodb-resilient', ...MONGODB_MYSQL },
  { id: 'lr-mysql-like-mongodb', ...MONGODB_MYSQL },
  { id: 'lr-ranking', ...MONGODB_MYSQL, reason: `${MONGODB_MYSQL.reason}; the ranking sets Cassandra and Redis against them` },
];

export const linkRemoval: Reproduction = {
  id: 'link-removal',
  title: 'Link removal: throughput, outages and average ping before and after each removal',
  source: 'SPEC.md §4.5',
  deviations: [
    {
      what: 'removals',
      published: '50 of 64 links, in a random order, 120 s each (60 s before and after)',
      ours: `the first ${FIRST_REMOVALS.length} of the 50 of our seeded order (scenarios/link-removal.yaml), ${STEP_S['tinc-defaults']} s each under tinc-defaults, ${STEP_S.fast} s under fast`,
      why: `The suite's 3 hours: ${FIRST_REMOVALS.length} removals under both profiles and both databases take about half an hour; the order is a seeded one, so a longer run continues it`,
    },
    {
      what: 'failover',
      published: 'tinc with unstated settings; re-routes took 30-40 s',
      ours: 'tinc-defaults (PingInterval 60 s, PingTimeout 5 s), and fast beside it as a second curve',
      why: 'Outages of 20-40 s cannot happen under a failover that re-routes in seconds',
    },
    {
      what: 'where the client joins',
      published: 'its own VM in Singapore (not restated here)',
      ours: "one LAN link to Singapore's node; all its traffic crosses the mesh from there",
      why: 'With a link of its own to every site (fhc-8dc) no removal could touch the client’s paths and no outage could appear',
    },
    {
      what: 'Cassandra nodes',
      published: '8',
      ours: CASSANDRA_NODES.join(', '),
      why: 'Three JVMs beside 8 tinc daemons and two profiles’ runs within the budget; Redis runs on all 8',
    },
    {
      what: 'client',
      published: 'threads not stated; Redis: YCSB 0.17.0 patched to retry while tinc re-routes',
      ours: `1 thread (YCSB’s default), workload A (published A, B, E, F), 10 s timeouts; Redis retries ${REDIS_RETRIES} times (beyond tinc-defaults' 65 s), Cassandra once`,
      why: 'A retrying Redis client measures an outage as the published one did; the other workloads do not fit the budget',
    },
    versionsDeviation('Cassandra 3.11.13, Redis 6.0.11 with Jedis 2.10.2, YCSB 0.15.0 (0.17.0 patched for Redis)'),
  ],
  compares: LINK_REMOVAL_COMPARES,
  notCompared: LINK_REMOVAL_NOT_COMPARED,
  defaultRepeat: 1,
  parts: (['tinc-defaults', 'fast'] as Failover[]).flatMap((f) =>
    (['redis', 'cassandra'] as const).map((db) => ({
      id: `${db}-${f}`,
      scenario: removal(db, f),
      ...(db === 'cassandra' ? { replan: { minDataNodes: 2, why: 'with one node beside the client no removed link lies on a database path' } } : {}),
    })),
  ),
};
