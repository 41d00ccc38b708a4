/**
 * SPEC.md §4, timed events: clients start against one server until it is overloaded, then servers
 * join one by one; the report plots ops/s with each event as a dotted line.
 */
import { LOAD_PHASE, REPRODUCTION_YCSB, warmup, type Reproduction } from './experiment';

export const timedEvents: Reproduction = {
  id: 'timed-events',
  title: 'Timed events: client ramp against one server, then servers added one by one',
  source: 'SPEC.md §4 (timed events)',
  publishedSetup:
    'clients ramped against one server until it is overloaded, then servers added one by one; ops/s per second with each event as a dotted line',
  scaling: {
    sites: 'fhc-4; Cassandra starts on singapore alone, then pune and seoul join',
    records: '1,000 records',
    durations: 'one client from the start, two more at 30 s and 90 s, servers joining at 180 s and 270 s, 420 s in all after a 45 s warm-up',
    threads: 'each client 2 threads, at 60, 120 and 180 ops/s (360 ops/s offered at most)',
    why: 'On 2 cores an overloaded server is an overloaded host: the ramp stops at rates this host carries (4 JVMs at most besides the joining node), so the figure shows where throughput stops following the offered load only if the database, not the host, gives out first.',
  },
  notRunHere: ['a ramp until the server is overloaded: on this host that is the host overloaded, which the verdict would flag'],
  defaultRepeat: 1,
  targetsAreOfferedLoad: true,
  parts: [
    {
      id: 'cassandra',
      scenario: {
        name: 'reproduce-timed-events',
        experiment: 'timed events (reproduction, scaled to one host)',
        fleet: { local: 'fhc-4' },
        database: { name: 'cassandra', nodes: ['singapore'] },
        ycsb: { ...REPRODUCTION_YCSB, workload: 'a', recordCount: 1000, threads: 2, target: 60 },
        matrix: { latencyScale: [0.2] },
        phases: [
          { phase: 'flush' },
          LOAD_PHASE,
          warmup(45),
          {
            phase: 'run',
            label: 'ramp',
            duration: 420,
            events: [
              {
                at: 30,
                every: 60,
                clientStart: [
                  { name: 'c2', threads: 2, target: 120 },
                  { name: 'c3', threads: 2, target: 180 },
                ],
              },
              { at: 180, every: 90, add: ['pune', 'seoul'] },
              { at: 390, clientStop: 'c3' },
            ],
          },
        ],
      },
      replan: { minDataNodes: 1, why: 'servers join one by one from a single one' },
    },
  ],
};
