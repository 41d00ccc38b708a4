/**
 * Scenario validation: each malformed scenario is rejected with the path of the bad field and a
 * hint; good ones expand into the cells, phases and timed events the engine runs.
 */
import { topologyView } from '../../operations/scenario/scenario-fleet';
import { loadTopology } from '../../core/load-topology';
import { planScenario, type ResolvedFleet } from '../../core/scenario-plan';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import type { RunPlan } from '../../core/scenario';
import { inputProblems } from '../support/input-problems';

const fhc4: ResolvedFleet = { ref: { kind: 'local' }, view: topologyView(loadTopology('fhc-4')) };

const BASE = `
name: t
experiment: quickstart
fleet: { local: fhc-4 }
database: { name: redis, nodes: [sydney, pune, singapore] }
ycsb: { workload: a, recordCount: 100 }
`;

function plan(yaml: string, options = {}): RunPlan {
  return planScenario(checkScenarioShape(parseScenarioText(yaml)), () => fhc4, options);
}

/** The problems a scenario is rejected with, one `field: problem` line each. */
function problems(yaml: string): string[] {
  return inputProblems(() => plan(yaml)).map((e) => e.message);
}

const run = (events: string, extra = '') => `${BASE}${extra}
phases:
  - phase: flush
  - phase: run
    duration: 100
    events:
${events}`;

describe('malformed scenarios are rejected with the path of the bad field', () => {
  test.each([
    [
      'an unknown link, naming the links that pair has',
      run('      - { at: 10, cut: sydney-pune/2 }'),
      /^phases\[1\]\.events\[0\]\.cut: unknown link "sydney-pune\/2"; between sydney and pune fleet fhc-4 has: sydney-pune\/0$/,
    ],
    [
      'a link between nodes with no link',
      run('      - { at: 10, cut: sydney-nowhere/0 }'),
      /^phases\[1\]\.events\[0\]\.cut: unknown link "sydney-nowhere\/0": fleet fhc-4 has no link/,
    ],
    [
      'a misspelt field, with the fields it could be',
      run('      - { at: 10, cutt: sydney-pune/0 }'),
      /^phases\[1\]\.events\[0\]\.cutt: unknown field; expected one of: at, every, times/,
    ],
    [
      'a value of the wrong type',
      run('      - { at: 10, latency: fast }'),
      /^phases\[1\]\.events\[0\]\.latency: must be number or array \(got "fast"\)$/,
    ],
    ['an event past the phase', run('      - { at: 100, latency: 0.2 }'), /^phases\[1\]\.events\[0\]\.at: at 100 s is not before the phase's end/],
    [
      'an event with two actions',
      run('      - { at: 10, latency: 0.2, remove: pune }'),
      /^phases\[1\]\.events\[0\]: needs exactly one action \(found latency, remove\)/,
    ],
    ['an event with no action', run('      - { at: 10 }'), /^phases\[1\]\.events\[0\]: needs exactly one action \(found none\)/],
    [
      'removing a node that is not a member',
      run('      - { at: 10, remove: seoul }'),
      /^phases\[1\]\.events\[0\]\.remove: "seoul" is not in the cluster at 10 s; members then: sydney, pune, singapore$/,
    ],
    [
      'adding a node twice',
      run('      - { at: 10, add: seoul }\n      - { at: 20, add: seoul }'),
      /^phases\[1\]\.events\[1\]\.add: "seoul" is already in the cluster at 20 s/,
    ],
    [
      'an unknown node',
      run('      - { at: 10, add: mars }'),
      /^phases\[1\]\.events\[0\]\.add: unknown data node "mars"; data nodes of fhc-4: sydney, pune, singapore, seoul$/,
    ],
    [
      'restoring a link that is not cut',
      run('      - { at: 10, restore: sydney-pune/0 }'),
      /^phases\[1\]\.events\[0\]\.restore: link "sydney-pune\/0" is not cut at 10 s$/,
    ],
    [
      'stopping a client that never started',
      run('      - { at: 10, clientStop: extra }'),
      /^phases\[1\]\.events\[0\]\.clientStop: no client "extra" is running at 10 s/,
    ],
    [
      'a list item out of time',
      run('      - { at: 60, every: 20, cut: [sydney-pune/0, pune-seoul/0, sydney-seoul/0] }'),
      /^phases\[1\]\.events\[0\]\.cut\[2\]: at 100 s is not before the phase's end/,
    ],
    [
      'times without every',
      run('      - { at: 10, times: 3, latency: 0.2 }'),
      /^phases\[1\]\.events\[0\]\.times: repeating needs `every: <seconds>`/,
    ],
    [
      'a cluster too small to form',
      `${BASE.replace('[sydney, pune, singapore]', '[sydney, pune]')}phases: [{ phase: load }]`,
      /^database\.nodes: redis needs at least 3 nodes to form a cluster/,
    ],
    [
      'the client as a data node',
      `${BASE.replace('pune, singapore', 'pune, client')}phases: [{ phase: load }]`,
      /^database\.nodes\[2\]: "client" is not a data node of fleet fhc-4/,
    ],
    ['no database', `${BASE.replace('name: redis, ', '')}phases: [{ phase: load }]`, /^database\.name: is required/],
    [
      'two fleet kinds',
      `${BASE.replace('{ local: fhc-4 }', '{ local: fhc-4, pulumiStack: x }')}phases: [{ phase: load }]`,
      /^fleet: needs exactly one of/,
    ],
    [
      'a loss seed that is not a whole number',
      `${BASE}lossSeed: 1.5\nphases: [{ phase: load }]`,
      /^lossSeed: must be integer \(got 1\.5\): a whole number from 0 to 9007199254740991/,
    ],
    ['a negative loss seed', `${BASE}lossSeed: -3\nphases: [{ phase: load }]`, /^lossSeed: must be >= 0 \(got -3\)/],
    ['a loss seed past 2^53', `${BASE}lossSeed: 9007199254740992\nphases: [{ phase: load }]`, /^lossSeed: must be <= 9007199254740991/],
    ['a loss seed given as text', `${BASE}lossSeed: "42"\nphases: [{ phase: load }]`, /^lossSeed: must be integer \(got "42"\)/],
    [
      'a reference outside the matrix',
      `${BASE}matrix: { latencyScale: [0.2, 1] }\nreference: { latencyScale: 0.5 }\nphases: [{ phase: load }]`,
      /^reference\.latencyScale: 0\.5 is not one of matrix\.latencyScale$/,
    ],
    [
      'a scalar in an unknown dimension',
      `${BASE}matrix: { layout: [a, b] }\nphases: [{ phase: load }]`,
      /^matrix\.layout\[0\]: "layout" is not one of database, workload/,
    ],
    [
      'a bad workload in the matrix',
      `${BASE}matrix: { workload: [a, z] }\nphases: [{ phase: load }]`,
      /^matrix\.workload\[1\]: must be one of: a, b, c, d, e, f$/,
    ],
    ['an unknown phase', `${BASE}phases: [{ phase: warmup }]`, /^phases\[0\]\.phase: must be one of: flush, load, run \(got "warmup"\)$/],
    [
      'an option the database does not take, naming the ones it does',
      `${BASE.replace('nodes: [sydney, pune, singapore]', 'nodes: [sydney, pune, singapore], options: { maxmemory: 100 }')}phases: [{ phase: load }]`,
      /^database\.options\.maxmemory: is not an option of redis; redis takes port, clusterNodeTimeoutMs, waitReplicas, waitTimeoutMs$/,
    ],
    [
      'replicas per master asked for as an option: the error names the setting that holds them',
      `${BASE.replace('nodes: [sydney, pune, singapore]', 'nodes: [sydney, pune, singapore], options: { replicasPerMaster: 1 }')}phases: [{ phase: load }]`,
      /^database\.options\.replicasPerMaster: is not an option of redis: replicas per master are set by database\.replication \(copies of each key: replicas per master \+ 1\)$/,
    ],
    [
      'a Redis node timeout below 100 ms',
      `${BASE.replace('nodes: [sydney, pune, singapore]', 'nodes: [sydney, pune, singapore], options: { clusterNodeTimeoutMs: 50 }')}phases: [{ phase: load }]`,
      /^database\.options\.clusterNodeTimeoutMs: must be a whole number >= 100, got 50$/,
    ],
    [
      'WAIT for more replicas than each master has',
      `${BASE.replace('nodes: [sydney, pune, singapore]', 'nodes: [sydney, pune, singapore], options: { waitReplicas: 1 }')}phases: [{ phase: load }]`,
      /^database\.options\.waitReplicas: is 1 but each master has 0 replica\(s\) \(database\.replication 1\): every write would fail; raise database\.replication or lower waitReplicas$/,
    ],
    [
      'a consistency check that is not true or false',
      `${BASE.replace('recordCount: 100', 'recordCount: 100, check: yes please')}phases: [{ phase: load }]`,
      /^ycsb\.check: must be boolean \(got "yes please"\): check consistency in run phases/,
    ],
    [
      'an option of the wrong kind',
      `${BASE.replace('name: redis, nodes: [sydney, pune, singapore]', 'name: cassandra, nodes: [sydney, pune, singapore], options: { readConsistency: MOST }')}phases: [{ phase: load }]`,
      /^database\.options\.readConsistency: must be one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE, got "MOST"$/,
    ],
    [
      "options checked against each cell's database",
      `${BASE.replace('name: redis, nodes: [sydney, pune, singapore]', 'nodes: [sydney, pune, singapore], options: { heapMb: 256 }')}matrix: { database: [cassandra, redis] }\nphases: [{ phase: load }]`,
      /^database\.options\.heapMb: is not an option of redis; redis takes port, clusterNodeTimeoutMs, waitReplicas, waitTimeoutMs \(in cell c2-redis\)$/,
    ],
    [
      'a CPU cap on a VM fleet, whose VM size sets the CPU',
      `${BASE.replace('fleet: { local: fhc-4 }', 'fleet: { inventoryFile: vms.json }').replace('name: redis,', 'name: redis, cpus: 0.5,')}phases: [{ phase: load }]`,
      /^database\.cpus: caps each server's CPU on a local fleet, whose nodes share this host's cores; on fleet fhc-4 each node is a VM whose size sets its CPU: leave it out$/,
    ],
    ['a CPU cap of no cores', `${BASE.replace('name: redis,', 'name: redis, cpus: 0,')}phases: [{ phase: load }]`, /^database\.cpus: must be > 0/],
    [
      'riak on a local fleet: VM fleets only, never executed here',
      `${BASE.replace('name: redis', 'name: riak')}phases: [{ phase: load }]`,
      /^database\.name: riak runs only on VM fleets \(inventoryFile or pulumiStack\), .*never been executed here and cannot run on local fleet fhc-4/,
    ],
    [
      'couchdb from a matrix on a local fleet, naming the matrix entry',
      `${BASE}matrix: { database: [redis, couchdb] }\nphases: [{ phase: load }]`,
      /^matrix\.database\[1\]: couchdb runs only on VM fleets .* \(in cell c2-couchdb\)$/,
    ],
    [
      'killing a node that is not a member',
      run('      - { at: 10, kill: seoul }'),
      /^phases\[1\]\.events\[0\]\.kill: "seoul" is not in the cluster at 10 s; members then: sydney, pune, singapore$/,
    ],
    [
      'killing a node twice',
      run('      - { at: 10, kill: pune }\n      - { at: 20, kill: pune }'),
      /^phases\[1\]\.events\[1\]\.kill: "pune" is already down at 20 s/,
    ],
    [
      'reviving a node that is not down',
      run('      - { at: 10, revive: pune }'),
      /^phases\[1\]\.events\[0\]\.revive: "pune" is not down at 10 s; kill it first \(`kill: pune`\)$/,
    ],
    [
      'events in a phase bounded by operations',
      `${BASE}phases: [{ phase: run, operations: 10, events: [{ at: 1, latency: 0.2 }] }]`,
      /^phases\[0\]\.events\[0\]: events need the phase to have a duration/,
    ],
  ])('%s', (_what, yaml, expected) => {
    const found = problems(yaml);
    expect(found).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
  });

  test('a kill then a revive of the same member is a valid timeline', () => {
    const planned = plan(run('      - { at: 10, kill: pune }\n      - { at: 20, revive: pune }\n      - { at: 30, kill: pune }'));
    const phase = planned.cells[0].phases[1];
    expect(phase.kind === 'run' && phase.events.map((e) => e.action)).toEqual([
      { kind: 'node-kill', node: 'pune' },
      { kind: 'node-revive', node: 'pune' },
      { kind: 'node-kill', node: 'pune' },
    ]);
  });

  test('all problems are reported together', () => {
    const found = problems(run('      - { at: 10, cut: sydney-pune/2 }\n      - { at: 20, remove: seoul }'));
    expect(found).toHaveLength(2);
  });

  test('a problem in only some cells names them', () => {
    const yaml = `${BASE}matrix:\n  side:\n    - { name: near, database: { nodes: [sydney, pune, singapore] } }\n    - { name: far, database: { nodes: [sydney, pune, mars] } }\nphases: [{ phase: load }]`;
    expect(problems(yaml)).toEqual([
      expect.stringMatching(/^matrix\.side\[1\]\.database\.nodes\[2\]: "mars" is not a data node .*\(in cell c2-far\)$/),
    ]);
  });
});

describe('planning', () => {
  test("a CPU cap per node goes to the cluster's settings; none is none", () => {
    expect(plan(`${BASE.replace('name: redis,', 'name: redis, cpus: 0.5,')}phases: [{ phase: load }]`).cells[0].settings).toEqual({
      cpusPerNode: 0.5,
    });
    expect(plan(`${BASE}phases: [{ phase: load }]`).cells[0].settings).not.toHaveProperty('cpusPerNode');
  });

  test('the matrix expands in order, the reference value first, and every cell knows its reference', () => {
    const p = plan(`${BASE}matrix: { workload: [a, b], latencyScale: [0.2, 1.0] }\nreference: { latencyScale: 1.0 }\nphases: [{ phase: load }]`);
    expect(p.cells.map((c) => c.cellId)).toEqual(['c1-a-lsf1', 'c2-a-lsf0.2', 'c3-b-lsf1', 'c4-b-lsf0.2']);
    expect(p.cells.map((c) => c.referenceCellId)).toEqual(['c1-a-lsf1', 'c1-a-lsf1', 'c3-b-lsf1', 'c3-b-lsf1']);
    expect(p.cells[1]).toMatchObject({ latencyScale: 0.2, coordinates: { workload: 'a', latencyScale: 0.2 } });
    expect(p.cells[3].phases[0]).toMatchObject({ kind: 'load', ycsb: { workload: 'b', recordCount: 100 } });
  });

  test('time scale shrinks offsets and durations; `every` expands lists and repetitions in time order', () => {
    const p = plan(
      run('      - { at: 10, every: 30, times: 3, measureRtt: { count: 3 } }\n      - { at: 20, every: 30, cut: [sydney-pune/0, pune-seoul/0] }'),
      { timeScale: 0.1 },
    );
    const phase = p.cells[0].phases[1];
    if (phase.kind !== 'run') throw new Error('expected a run phase');
    expect(phase.durationS).toBeCloseTo(10);
    expect(phase.events.map((e) => [Number(e.atS.toFixed(3)), e.label])).toEqual([
      [1, 'ping matrix'],
      [2, 'cut sydney-pune/0'],
      [4, 'ping matrix'],
      [5, 'cut pune-seoul/0'],
      [7, 'ping matrix'],
    ]);
    expect(phase.events[1].path).toBe('phases[1].events[1].cut[0]');
  });

  test('membership carries from one run phase to the next', () => {
    const yaml = `${BASE}phases:\n  - { phase: run, duration: 50, events: [{ at: 5, remove: pune }] }\n  - { phase: run, duration: 50, events: [{ at: 5, remove: pune }] }`;
    expect(problems(yaml)).toEqual([expect.stringMatching(/^phases\[1\]\.events\[0\]\.remove: "pune" is not in the cluster/)]);
  });

  test('a loss seed is carried to the plan as written (the run picks one when none is given)', () => {
    expect(plan(`${BASE}lossSeed: 9007199254740991\nphases: [{ phase: load }]`).lossSeed).toBe(9007199254740991);
    expect(plan(`${BASE}phases: [{ phase: load }]`).lossSeed).toBeUndefined();
  });

  test('a run phase with neither duration nor operations runs the YCSB operation count', () => {
    const p = plan(`${BASE}phases: [{ phase: run }]`);
    expect(p.cells[0].phases[0]).toMatchObject({ kind: 'run', operations: 100_000, durationS: undefined });
  });
});
