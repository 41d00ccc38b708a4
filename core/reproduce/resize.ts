/**
 * SPEC.md §4.3 (one node removed, then added) and §4.4 (down- and up-sizing on the fly), scaled.
 * Redis moves a resize's 16384 hash slots one at a time, about seven round trips each: at the
 * published latencies one removal from 8 nodes takes over ten minutes here (plan-view's model,
 * and 252 s from 4 nodes at scale 0.1 in the quickstart's measurements). Redis therefore runs at
 * a tenth of the published scales (0.02 and 0.1, still five apart), Cassandra at the published ones.
 */
import type { ScenarioFile } from '../scenario';
import { LOAD_PHASE, REPRODUCTION_YCSB, warmup, type Reproduction } from './experiment';

const ycsb = { ...REPRODUCTION_YCSB, workload: 'a' as const, recordCount: 1000 };
/** Open-loop rates far below what the host carries: a resize's own work needs the rest. */
const RATE = { redis: { threads: 4, target: 200 }, cassandra: { threads: 2, target: 60 } };

/** A re-plan keeps both nodes at rest (core/reproduce/replan.ts): the join is the figure. */
const JOIN_FLOOR = { minDataNodes: 2, why: 'a resize that adds a node needs two at rest, or it measures a 1 -> 2 join' };

function singleResize(database: 'redis' | 'cassandra', scale: number, seconds: number): ScenarioFile {
  const redis = database === 'redis';
  return {
    name: `reproduce-single-resize-${database}-lsf${String(scale).replace('.', 'p')}`,
    experiment: 'single node removal and addition (reproduction, scaled to one host)',
    fleet: { local: 'fhc-8dc' },
    // Redis: remove one of 4 and add it back. Cassandra: add a third node and remove it (2 JVMs at rest, 3 during).
    database: redis
      ? { name: 'redis', nodes: ['singapore', 'sydney', 'pune', 'seoul'] }
      : { name: 'cassandra', nodes: ['singapore', 'pune'], options: { allowBelowSystemReplication: true } },
    ycsb: { ...ycsb, ...RATE[database] },
    matrix: { latencyScale: [scale] },
    phases: [
      { phase: 'flush' },
      LOAD_PHASE,
      ...(redis ? [] : [warmup(45)]),
      {
        phase: 'run',
        label: 'resize',
        duration: seconds,
        waitForResizes: true,
        // The membership lane runs one resize at a time: the second waits for the first to complete.
        events: redis
          ? [
              { at: 10, remove: 'seoul' },
              { at: 20, add: 'seoul' },
            ]
          : [
              { at: 10, add: 'seoul' },
              { at: 20, remove: 'seoul' },
            ],
      },
    ],
  };
}

export const singleResizeReproduction: Reproduction = {
  id: 'single-resize',
  title: 'Single node removal and addition: acceptance and completion times',
  source: 'SPEC.md §4.3',
  publishedSetup: '8 data nodes; one node removed and added per database at X and 5X; request acceptance and completion times',
  scaling: {
    sites:
      'fhc-8dc; Redis on 4 sites (singapore, sydney, pune, seoul: remove seoul, add it back); Cassandra on 2 (singapore, pune: add seoul, then remove it)',
    records: '1,000 records',
    durations:
      'Redis at scales 0.02 and 0.1 (a tenth of X and 5X), phases of 180 s and 600 s; Cassandra at 0.2 and 1.0, 180 s after a 45 s warm-up; each phase waits for its resizes',
    threads: 'Redis 4 threads at 200 ops/s, Cassandra 2 at 60 ops/s (open loop, so every cell offers the same load)',
    why: 'At published latencies a Redis resize would take over ten minutes per step; a removal from fewer nodes moves fewer slots at shorter round trips. Cassandra starts on 2 nodes so that a join adds a third JVM, not a ninth.',
  },
  notRunHere: [
    'Redis at the published scales 0.2 and 1.0: one resize alone would exceed the 30-minute budget',
    'MongoDB and MySQL Cluster: not runnable on this host',
  ],
  defaultRepeat: 1,
  // The load is the background the resizes run under: a figure at its target carried all of it.
  targetsAreOfferedLoad: true,
  parts: [
    { id: 'redis-lsf0p02', scenario: singleResize('redis', 0.02, 180) },
    { id: 'redis-lsf0p1', scenario: singleResize('redis', 0.1, 600) },
    { id: 'cassandra-lsf0p2', scenario: singleResize('cassandra', 0.2, 180), replan: JOIN_FLOOR },
    { id: 'cassandra-lsf1', scenario: singleResize('cassandra', 1.0, 180), replan: JOIN_FLOOR },
  ],
};

const STEP_S = 120;

function onTheFly(database: 'redis' | 'cassandra', nodes: string[], removals: string[], scale: number): ScenarioFile {
  const resizeS = STEP_S * (2 * removals.length + 1);
  return {
    name: `reproduce-resize-on-the-fly-${database}`,
    experiment: 'down- and up-sizing on the fly (reproduction, scaled to one host)',
    fleet: { local: 'fhc-8dc' },
    database: { name: database, nodes, ...(database === 'cassandra' ? { options: { allowBelowSystemReplication: true } } : {}) },
    ycsb: { ...ycsb, ...RATE[database] },
    matrix: { latencyScale: [scale] },
    phases: [
      { phase: 'flush' },
      LOAD_PHASE,
      ...(database === 'cassandra' ? [warmup(45)] : []),
      { phase: 'run', label: 'baseline', duration: 2 * STEP_S },
      {
        phase: 'run',
        label: 'resize',
        duration: resizeS,
        events: [
          { at: STEP_S, every: STEP_S, remove: removals },
          { at: STEP_S * (removals.length + 1), every: STEP_S, add: [...removals].reverse() },
        ],
      },
    ],
  };
}

export const resizeOnTheFly: Reproduction = {
  id: 'resize-on-the-fly',
  title: 'Down- and up-sizing on the fly: per-second throughput with settling periods',
  source: 'SPEC.md §4.4',
  publishedSetup: '8 -> 2 nodes one at a time, then 2 -> 8, a step every 120 s under load, against an all-8-nodes baseline',
  scaling: {
    sites:
      'fhc-8dc; Redis 5 -> 3 -> 5 (singapore, sydney, pune stay; seoul then dubai leave, farthest from the client first); Cassandra 3 -> 2 -> 3 (seoul leaves and returns)',
    records: '1,000 records',
    durations: `a step every ${STEP_S} s as published; a ${2 * STEP_S} s baseline instead of one as long as the resize phase`,
    threads: 'Redis 4 threads at 200 ops/s, Cassandra 2 at 60 ops/s',
    why: 'Redis Cluster needs 3 masters and each slot move costs round trips: at scale 0.02 one step from 5 nodes moves ~3,300 slots in well under 120 s. Cassandra keeps at most 3 JVMs on the 2 cores.',
  },
  notRunHere: [
    '8 -> 2 -> 8 nodes: 8 Cassandra JVMs do not fit 2 cores, and Redis Cluster cannot go below 3 masters',
    'Redis at the published scale 0.2: a step would take ~10 minutes instead of 120 s',
  ],
  defaultRepeat: 1,
  // The load is the background the resizes run under: a figure at its target carried all of it.
  targetsAreOfferedLoad: true,
  parts: [
    { id: 'redis', scenario: onTheFly('redis', ['singapore', 'sydney', 'pune', 'seoul', 'dubai'], ['seoul', 'dubai'], 0.02) },
    {
      id: 'cassandra',
      scenario: onTheFly('cassandra', ['singapore', 'pune', 'seoul'], ['seoul'], 0.2),
      replan: { minDataNodes: 2, why: 'a node leaves and returns: two at rest keep one serving while it is away' },
    },
  ],
};
