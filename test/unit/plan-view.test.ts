/** `fragbench validate`: the plan a scenario will follow, and the warnings it deserves, from its topology alone. */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadScenario, readScenarioFile } from '../../operations/scenario/scenario-loader';
import { formatPlanView, planView } from '../../core/plan-view';

const base = {
  name: 'mine',
  experiment: 'My own question',
  fleet: { local: 'fhc-4' },
  database: { name: 'redis', nodes: ['sydney', 'pune', 'singapore'] },
  ycsb: { workload: 'a', recordCount: 1000 },
};

async function view(scenario: Record<string, unknown>, cores = 2) {
  const { plan, fleets } = await loadScenario({ ...base, ...scenario }, 'offline');
  return planView(plan, fleets[0].view, cores);
}

const run = (phase: Record<string, unknown>) => ({ phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', ...phase }] });

test('every event at its phase time and its time into the run, with what it changes', async () => {
  const v = await view({
    matrix: { latencyScale: [0.2] },
    ...run({
      duration: 60,
      events: [
        { at: 10, cut: 'sydney-pune/0' },
        { at: 20, latency: 0.4 },
      ],
    }),
  });
  const events = v.cells[0].phases[2].events;
  expect(events.map((e) => [e.phaseAtS, e.description])).toEqual([
    [10, 'link sydney-pune/0 cut (both ways)'],
    [20, "every link's latency set to 0.4 x the reference"],
  ]);
  // Fleet up and the cell's set-up come before the run phase.
  expect(events[0].runAtS).toBeGreaterThan(10);
  expect(v.expectedDurationS).toBeGreaterThanOrEqual(60);
  expect(v.fleet.links.find((l) => l.id === 'sydney-pune/0')).toMatchObject({ latencyMs: 81, bandwidthMbps: 167 });
  expect(v.warnings).toEqual([]);
  expect(formatPlanView(v)).toMatch(/at 10 s \(~\d+ s into the run\): link sydney-pune\/0 cut/);
});

test('an event at or after its phase ends is not a warning but an error naming it (the planner refuses it)', async () => {
  await expect(view(run({ duration: 30, events: [{ at: 30, cut: 'sydney-pune/0' }] }))).rejects.toThrow(
    /phases\[2\]\.events\[0\]\.at: at 30 s is not before the phase's end/,
  );
});

test('a Redis resize that cannot move its slots before the phase ends is a warning, unless the phase waits for it', async () => {
  // 16384/3 slots x 7 round trips x 81 ms (sydney-pune at scale 1) is about 3100 s.
  const late = await view(run({ duration: 120, events: [{ at: 10, remove: 'pune' }] }));
  expect(late.warnings).toEqual([expect.stringMatching(/remove pune at 10 s needs at least ~3\d{3} s .* ends 110 s later/)]);
  const waits = await view(run({ duration: 120, waitForResizes: true, events: [{ at: 10, remove: 'pune' }] }));
  expect(waits.warnings).toEqual([]);
  const fast = await view({ matrix: { latencyScale: [0.001] }, ...run({ duration: 120, events: [{ at: 10, remove: 'pune' }] }) });
  expect(fast.warnings).toEqual([]);
});

test('a load over a WAN takes its round trips: Cassandra waits for its quorum, Redis for the record and its scan index', async () => {
  // hybrid-virginia: the client and prv1 0.6 ms apart, the public nodes 229.5 ms from both.
  const loadS = async (database: Record<string, unknown>) => {
    const duration = async (threads: number) =>
      (await view({ fleet: { local: 'hybrid-virginia' }, database, ycsb: { ...base.ycsb, threads }, ...run({ duration: 20 }) })).expectedDurationS;
    // One thread loads for twice as long as two: the difference is the two-thread load.
    return (await duration(1)) - (await duration(2));
  };
  // RF 2, quorum 2: prv1 coordinates in 0.6 + 229.5 ms, pub1 in 229.5 + 229.5; 1,000 records over 2 threads.
  expect(Math.abs((await loadS({ name: 'cassandra', nodes: ['prv1', 'pub1'] })) - 172.3)).toBeLessThan(1.5);
  // Twice the mean client RTT (0.6, 229.5, 229.5) per record.
  expect(Math.abs((await loadS({ name: 'redis', nodes: ['prv1', 'pub1', 'pub2'] })) - 153.2)).toBeLessThan(1.5);
  // On a LAN the load is bound by the host, not the round trips.
  expect(await loadS({ name: 'redis', nodes: ['prv1', 'prv2', 'prv3'] })).toBeLessThan(1);
});

test('more JVMs than cores is a warning that names them', async () => {
  const v = await view({ database: { name: 'cassandra', nodes: ['sydney', 'pune', 'singapore'] }, ...run({ duration: 30 }) }, 2);
  expect(v.warnings).toEqual([expect.stringMatching(/4 JVMs \(1 YCSB client\(s\) \+ 3 Cassandra nodes\) on 2 cores/)]);
  expect((await view({ database: { name: 'cassandra', nodes: ['sydney', 'pune', 'singapore'] }, ...run({ duration: 30 }) }, 8)).warnings).toEqual([]);
});

test('every shipped scenario on a local topology plans in well under 2 s, as JSON too', async () => {
  const dir = path.join(__dirname, '../../scenarios');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const value = readScenarioFile(path.join('scenarios', file)) as { fleet: Record<string, unknown> };
    if (!('local' in value.fleet)) continue;
    const started = Date.now();
    const { plan, fleets } = await loadScenario(value, 'offline');
    const v = planView(plan, fleets[0].view, 2);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(v.cells.length).toBe(plan.cells.length);
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  }
});

test('a checked run phase says so, with the read-back that follows it; an unchecked one and the load phase do not', async () => {
  const checked = await view({ ycsb: { ...base.ycsb, check: true }, ...run({ duration: 30 }) });
  expect(checked.cells[0].phases.map((p) => p.checked)).toEqual([undefined, undefined, true]);
  expect(formatPlanView(checked)).toMatch(/^ {2}run \(30 s, consistency checked, then every key written read back\)$/m);
  const plain = await view(run({ duration: 30 }));
  expect(plain.cells[0].phases[2].checked).toBeUndefined();
  expect(formatPlanView(plain)).toMatch(/^ {2}run \(30 s\)$/m);
});
