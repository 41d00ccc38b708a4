/**
 * SPEC.md §4, timed events: clients start one after another against one server until it is
 * overloaded, then servers join one by one; the report plots ops/s with each event as a dotted
 * line. Here the server is one Cassandra node and the clients are closed-loop YCSB clients, so
 * each new client asks for all the server gives: the ramp runs into overload as published.
 * On this 2-core host an overloaded server is an overloaded host; the verdict says so when it is,
 * and the comparison then reads "not reproducible here" (see the deviation below).
 */
import { LOAD_PHASE, REPRODUCTION_YCSB, warmup, type ComparisonSpec, type NotCompared, type Reproduction } from './experiment';
import { fmt, holdsIn, type RepetitionFigures } from './observe';
import { DECISION, type Observation } from './rules';
import { versionsDeviation } from './shared-deviations';

/** Clients after the first, each with more threads: 1 + 2 + 4 + 8 threads in the end. */
export const RAMP = [
  { name: 'c2', threads: 2, at: 30 },
  { name: 'c3', threads: 4, at: 60 },
  { name: 'c4', threads: 8, at: 90 },
];
export const JOINS = [
  { node: 'pune', at: 150 },
  { node: 'seoul', at: 240 },
];
const RAMP_S = 330;

const at = (phase: string, measure: string) => ({ database: 'cassandra', phase: `ramp · ${phase}`, measure });
const after = (r: RepetitionFigures, label: string) => r.value(at(label, 'throughput after'));
/** The load before an event: after the event before it, or the phase's start before the first. */
function before(r: RepetitionFigures, labels: string[], i: number): number {
  return i === 0 ? r.value(at(labels[0], 'throughput before')) : after(r, labels[i - 1]);
}
const LABELS = [...RAMP.map((c) => `start client ${c.name}`), ...JOINS.map((j) => `add ${j.node}`)];

export const TIMED_EVENTS_COMPARES: ComparisonSpec[] = [
  {
    id: 'te-overload',
    ours: 'each client added to the single server: the load all clients carry together after it below the load before it, one observation per added client',
    observe: (p) =>
      holdsIn(p, (r) =>
        RAMP.map((_, i): Observation => {
          const [was, now] = [before(r, LABELS, i), after(r, LABELS[i])];
          return { holds: now < was, from: `${r.label} ${LABELS[i]}`, shows: `${fmt(was)} -> ${fmt(now)} ops/s` };
        }),
      ),
  },
  {
    id: 'te-join-dip',
    ours: `each server joining: its lowest second within 20 s below the load before it by more than ${DECISION.tolerance * 100} %, one observation per join`,
    observe: (p) =>
      holdsIn(p, (r) =>
        JOINS.map((j, k): Observation => {
          const i = RAMP.length + k;
          const [was, dip] = [before(r, LABELS, i), r.value(at(LABELS[i], 'lowest second after'))];
          return {
            holds: dip < (1 - DECISION.tolerance) * was,
            from: `${r.label} add ${j.node}`,
            shows: `lowest second ${fmt(dip)} against ${fmt(was)} ops/s before`,
          };
        }),
      ),
  },
  {
    id: 'te-stable-gain',
    ours: 'each server joining: the load carried from its completion to the next event above the load before it, one observation per join',
    observe: (p) =>
      holdsIn(p, (r) =>
        JOINS.map((j, k): Observation => {
          const i = RAMP.length + k;
          const [was, now] = [before(r, LABELS, i), after(r, LABELS[i])];
          return { holds: now > was, from: `${r.label} add ${j.node}`, shows: `${fmt(was)} -> ${fmt(now)} ops/s` };
        }),
      ),
  },
];

const THEIR_STORE = {
  group: 'set-up not emulated here',
  reason:
    'a figure of the students’ own key-value store (its cache, its B-tree, its request mix), which is not available; Cassandra stands in for the timed events only',
} as const;

export const TIMED_EVENTS_NOT_COMPARED: NotCompared[] = [
  ...[
    'te-one-server',
    'te-final',
    'te-get-latency',
    'te-put-latency',
    'te-delete-latency',
    'te-get-fastest',
    'te-cache-strategy',
    'te-cache-size',
  ].map((id) => ({
    id,
    ...THEIR_STORE,
  })),
];

export const timedEvents: Reproduction = {
  id: 'timed-events',
  title: 'Timed events: a client ramp into overload against one server, then servers joining one by one',
  source: 'SPEC.md §4 (timed events)',
  deviations: [
    {
      what: 'system',
      published: 'a students’ key-value store (ECS coordinator, cached B-tree servers), put-get-delete over the Enron e-mails',
      ours: 'Cassandra from one node (singapore, fhc-4 at latency scale 0.2), YCSB workload A',
      why: 'The store is not available; the timed events (clients and servers started on a schedule) are what is reproduced',
    },
    {
      what: 'clients',
      published: 'up to 20 clients against the one server, added periodically (interval not stated)',
      ours: `closed-loop YCSB clients: 1 thread from the start, then ${RAMP.map((c) => `${c.name} with ${c.threads} at ${c.at} s`).join(', ')} (15 threads in 4 JVMs)`,
      why: 'A YCSB client is a JVM; threads stand for the further clients, so the load grows past what one server gives without 20 JVMs',
    },
    {
      what: 'servers',
      published: 'up to 10, added periodically',
      ours: `${JOINS.map((j) => `${j.node} at ${j.at} s`).join(', ')} (3 in the end), the phase ${RAMP_S} s`,
      why: 'fhc-4 has four sites and every Cassandra node is a JVM on the same 2 cores',
    },
    {
      what: 'where the overload is',
      published: 'the server (one process per server on one machine, implied)',
      ours: 'the server, and with it this 2-core host: the verdict flags the phase host-bound if the host saturates, and its figures are then not reproducible here',
      why: 'Every node shares the host’s CPU; nothing here can limit one node’s CPU on its own (a per-node CPU quota would)',
    },
    versionsDeviation('not applicable (the group’s own store; a Java simulator)'),
  ],
  compares: TIMED_EVENTS_COMPARES,
  notCompared: TIMED_EVENTS_NOT_COMPARED,
  defaultRepeat: 1,
  parts: [
    {
      id: 'cassandra',
      scenario: {
        name: 'reproduce-timed-events',
        experiment: 'timed events (reproduction)',
        fleet: { local: 'fhc-4' },
        database: { name: 'cassandra', nodes: ['singapore'] },
        ycsb: { ...REPRODUCTION_YCSB, workload: 'a', recordCount: 1000, threads: 1 },
        matrix: { latencyScale: [0.2] },
        phases: [
          { phase: 'flush' },
          LOAD_PHASE,
          warmup(45),
          {
            phase: 'run',
            label: 'ramp',
            duration: RAMP_S,
            events: [
              ...RAMP.map((c) => ({ at: c.at, clientStart: { name: c.name, threads: c.threads } })),
              ...JOINS.map((j) => ({ at: j.at, add: j.node })),
            ],
          },
        ],
      },
      replan: { minDataNodes: 1, why: 'servers join one by one from a single one' },
    },
  ],
};
