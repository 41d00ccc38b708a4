/**
 * Trace replay: the CSV format (each bad row refused with its line number and the fix), targets
 * checked against the fleet, a `replay:` event planned with its rows and refused when it outlasts
 * its phase, the schedule (speed, loop), and the replay paced against its start on a recording
 * shaper.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planScenario, type ResolvedFleet } from '../../core/scenario-plan';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { withTraceRows } from '../../core/scenario-traces';
import { parseTrace, replaySchedule, traceTargetProblems, type ReplayReport, type TraceRow } from '../../core/trace';
import { injectEventInto, type EventTargets } from '../../activities/scenario';
import type { ReplayAction } from '../../core/event-kinds/trace-replay';
import { traceReplay } from '../../core/event-kinds/trace-replay';
import { eventOptions } from '../../workflows/activities';
import { loadTopology } from '../../core/load-topology';
import type { LinkConditions } from '../../core/link-conditions';
import { topologyView } from '../../operations/scenario/scenario-fleet';
import { localInventory } from '../../infra/local/inventory';
import { planFleet } from '../../infra/local/plan';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import { replayTrace } from '../../infra/shaping/condition-events';
import type { LinkShaper, ShapeItem } from '../../infra/shaping/shaper';
import { sleep } from '../../platform/wait';
import { inputProblems } from '../support/input-problems';

const ROOT = path.resolve(__dirname, '..', '..');
const topology = loadTopology('fhc-4');
const fleet: ResolvedFleet = { ref: { kind: 'local' }, view: topologyView(topology) };
const tagged = { ...fleet.view, nodes: fleet.view.nodes.map((n) => (n.name === 'seoul' ? { ...n, tags: ['satellite'] } : n)) };

const csv = (...rows: string[]) => ['# a comment', 't,target,property,value', ...rows].join('\n');
const rowsOf = (text: string): TraceRow[] => {
  const parsed = parseTrace(text, 't.csv');
  if ('errors' in parsed) throw new Error(parsed.errors.map((e) => e.message).join('\n'));
  return parsed.rows;
};
const errorsOf = (text: string): string[] => {
  const parsed = parseTrace(text, 't.csv');
  return 'errors' in parsed ? parsed.errors.map((e) => e.message) : [];
};

describe('the trace format', () => {
  test('the shipped LEO satellite trace parses: 300 s, handovers every 15 s, values in their ranges', () => {
    const rows = rowsOf(readFileSync(path.join(ROOT, 'traces/leo-satellite.csv'), 'utf8'));
    expect(rows.at(-1)!.tS).toBe(300);
    const rtts = rows.filter((r) => r.property === 'latencyMs').map((r) => r.value);
    expect([Math.min(...rtts), Math.max(...rtts)]).toEqual([25, 60]);
    const rates = rows.filter((r) => r.property === 'bandwidthMbps').map((r) => r.value);
    expect([Math.min(...rates), Math.max(...rates)]).toEqual([21, 100]);
    expect(new Set(rows.filter((r) => r.property === 'latencyMs').map((r) => r.tS % 15))).toEqual(new Set([0]));
    expect(traceTargetProblems(rows, fleet.view, 'leo.csv')).toEqual([]);
  });

  test('comments, blank lines and every way to write a target', () => {
    const rows = rowsOf(
      csv(
        '',
        '0,sydney-pune/0,latencyMs,40',
        '# later',
        '0.5,sydney-pune/0:a->b,delayMs,30',
        '1,node:seoul:out,lossPercent,2.5',
        '1,tag:satellite,jitterMs,3',
        '2,all,bandwidthMbps,50',
      ),
    );
    expect(rows.map((r) => [r.line, r.tS, r.target, r.property, r.value])).toEqual([
      [4, 0, { link: 'sydney-pune/0' }, 'latencyMs', 40],
      [6, 0.5, { link: 'sydney-pune/0', direction: 'a->b' }, 'delayMs', 30],
      [7, 1, { node: 'seoul', direction: 'out' }, 'lossPercent', 2.5],
      [8, 1, { tag: 'satellite' }, 'jitterMs', 3],
      [9, 2, { all: true }, 'bandwidthMbps', 50],
    ]);
  });

  test('each bad row is refused with its line number and what to write', () => {
    expect(
      errorsOf(
        csv(
          '0,sydney-pune/0,latencyMs',
          '-1,sydney-pune/0,latencyMs,40',
          'soon,sydney-pune/0,latencyMs,40',
          '1,sydney,latencyMs,40',
          '1,sydney-pune/0:out,latencyMs,40',
          '1,node:seoul:a->b,delayMs,4',
          '1,sydney-pune/0,rttMs,40',
          '1,sydney-pune/0,latencyMs,fast',
          '1,sydney-pune/0,lossPercent,120',
          '1,sydney-pune/0,bandwidthMbps,0',
          '1,sydney-pune/0,jitterMs,-2',
        ),
      ),
    ).toEqual([
      't.csv line 3: needs 4 cells (t,target,property,value), got 3',
      't.csv line 4: t "-1" must be seconds from the replay\'s start, 0 or more',
      't.csv line 5: t "soon" must be seconds from the replay\'s start, 0 or more',
      't.csv line 6: target "sydney": write a link id (<a>-<b>/<type>, optionally :a->b or :b->a), node:<name>[:out|:in], tag:<tag>[:out|:in] or all',
      't.csv line 7: target "sydney-pune/0:out": a link\'s direction is a->b, b->a or both',
      't.csv line 8: target "node:seoul:a->b": a node\'s direction is out, in or both',
      't.csv line 9: property "rttMs" is not one of latencyMs, delayMs, bandwidthMbps, lossPercent, jitterMs',
      't.csv line 10: value "fast" for latencyMs is not a number',
      't.csv line 11: value 120 for lossPercent must be 0..100',
      't.csv line 12: value 0 for bandwidthMbps must be above 0',
      't.csv line 13: value -2 for jitterMs must be 0 or more',
    ]);
  });

  test('rows out of time order, a missing header and an empty trace are refused', () => {
    expect(errorsOf(csv('5,all,latencyMs,40', '3,all,latencyMs,50'))).toEqual([
      "t.csv line 4: t 3 is before the previous row's 5 (line 3): sort the rows by t",
    ]);
    expect(errorsOf('0,all,latencyMs,40\n')).toEqual([
      't.csv line 1: the first line that is not a comment must be the header t,target,property,value (got "0,all,latencyMs,40")',
    ]);
    expect(errorsOf(csv())).toEqual([
      't.csv: has no rows: after the header t,target,property,value, give one row per value, e.g. 0,all,latencyMs,40',
    ]);
  });

  test('targets the fleet does not have, and a round trip on one direction, are named by line', () => {
    const rows = rowsOf(
      csv(
        '0,sydney-mars/0,latencyMs,40',
        '0,node:pluto,delayMs,4',
        '0,tag:satellite,delayMs,4',
        '1,sydney-pune/0:a->b,latencyMs,40',
        '2,node:seoul:out,latencyMs,40',
        '3,sydney-mars/0,bandwidthMbps,10',
        '3,node:seoul,latencyMs,40',
      ),
    );
    expect(traceTargetProblems(rows, fleet.view, 't.csv')).toEqual([
      't.csv line 3: unknown link "sydney-mars/0" in fleet fhc-4 (`fragbench fleet status` lists the links)',
      't.csv line 4: unknown node "pluto"; nodes: sydney, pune, singapore, seoul, client',
      't.csv line 5: no node of fleet fhc-4 has tag "satellite"; give nodes tags in the topology (nodes[].tags)',
      't.csv line 6: latencyMs is a round trip and sydney-pune/0:a->b is one direction: give delayMs (one way)',
      't.csv line 7: latencyMs is a round trip and node:seoul:out is one direction: give delayMs (one way)',
    ]);
    expect(traceTargetProblems(rows.slice(2, 3), tagged, 't.csv')).toEqual([]);
  });
});

describe('a replay event in a scenario', () => {
  const TRACES: Record<string, string> = {
    'traces/ok.csv': csv(
      '0,sydney-singapore/0,latencyMs,40',
      '0,sydney-singapore/0,bandwidthMbps,80',
      '20,sydney-singapore/0:a->b,lossPercent,5',
      '60,sydney-singapore/0,latencyMs,30',
    ),
    'traces/bad.csv': csv('0,sydney-singapore/0,latencyMs,40', '10,sydney-singapore/0,lossPercent,101'),
    'traces/unknown.csv': csv('0,sydney-mars/0,latencyMs,40'),
    'traces/still.csv': csv('0,all,latencyMs,40', '0,all,bandwidthMbps,40'),
  };
  const read = (file: string) => {
    if (!(file in TRACES)) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    return TRACES[file];
  };
  const scenario = (events: string) =>
    checkScenarioShape(
      parseScenarioText(`
name: t
experiment: replay
fleet: { local: fhc-4 }
database: { name: redis, nodes: [sydney, pune, singapore] }
phases:
  - phase: run
    duration: 100
    events:
${events}`),
    );
  const plan = (events: string, timeScale?: number) => planScenario(withTraceRows(scenario(events), read), () => fleet, { timeScale });
  const replayOf = (events: string, timeScale?: number) => {
    const [phase] = plan(events, timeScale).cells[0].phases;
    if (phase.kind !== 'run') throw new Error('not a run phase');
    return phase.events[0].action as ReplayAction;
  };
  const problems = (events: string) => inputProblems(() => plan(events)).map((e) => e.message);

  test('the planned action carries the rows; the plan line says rows, length and targets', () => {
    const action = replayOf('      - { at: 10, replay: { file: traces/ok.csv, speed: 2 } }');
    expect(action.rows.map((r) => [r.line, r.tS, r.property, r.value])).toEqual([
      [3, 0, 'latencyMs', 40],
      [4, 0, 'bandwidthMbps', 80],
      [5, 20, 'lossPercent', 5],
      [6, 60, 'latencyMs', 30],
    ]);
    expect(traceReplay.plan(action)).toBe(
      'replay traces/ok.csv: 4 rows over 30 s at speed 2; targets: link sydney-singapore/0, link sydney-singapore/0 (a->b)',
    );
    expect(traceReplay.apply(action, { fleet: { kind: 'local' }, database: 'redis' })?.input).toMatchObject({ speed: 2, loop: false });
  });

  test('a replay that would outlast its phase is refused, with the speed that would fit', () => {
    expect(problems('      - { at: 50, replay: { file: traces/ok.csv } }')).toEqual([
      'phases[0].events[0].replay: traces/ok.csv lasts 60 s at speed 1 (its last row is at t=60 s) but the phase ends 50 s after the event: give speed 1.2 or more, start it earlier, or lengthen the phase',
    ]);
    expect(replayOf('      - { at: 50, replay: { file: traces/ok.csv, speed: 1.2 } }').rows).toHaveLength(4);
  });

  test('a looped replay runs to the phase end; the time scale speeds it with the phase', () => {
    const looped = replayOf('      - { at: 30, replay: { file: traces/ok.csv, loop: true } }', 0.5);
    expect(looped.untilS).toBe(70);
    expect(traceReplay.apply(looped, { fleet: { kind: 'local' }, database: 'redis' })?.input).toMatchObject({ speed: 2, loop: true, untilS: 35 });
    expect(problems('      - { at: 0, replay: { file: traces/still.csv, loop: true } }')).toEqual([
      'phases[0].events[0].replay: loop needs rows at two times or more: every row of traces/still.csv is at t=0',
    ]);
  });

  test('the activity of a replay longer than the resize timeout (30 min) outlasts it, so no retry plays it again from the start', () => {
    const looped = replayOf('      - { at: 30, replay: { file: traces/ok.csv, loop: true } }');
    // A 40-minute phase's loop, at real time and rehearsed at a tenth.
    expect(eventOptions({ ...looped, untilS: 2400 }, 'replay').startToCloseTimeout).toBe(2400_000 + 300_000);
    expect(eventOptions({ ...looped, untilS: 2400, timeScale: 0.1 }, 'replay').startToCloseTimeout).toBe(30 * 60_000);
    expect(eventOptions(replayOf('      - { at: 30, replay: { file: traces/ok.csv } }'), 'replay').startToCloseTimeout).toBe(30 * 60_000);
  });

  test('bad rows, unknown targets and missing files are refused before the run, with the line', () => {
    expect(problems('      - { at: 0, replay: { file: traces/bad.csv } }')).toEqual([
      'phases[0].events[0].replay.file: traces/bad.csv line 4: value 101 for lossPercent must be 0..100',
    ]);
    expect(problems('      - { at: 0, replay: { file: traces/unknown.csv } }')).toEqual([
      'phases[0].events[0].replay: traces/unknown.csv line 3: unknown link "sydney-mars/0" in fleet fhc-4 (`fragbench fleet status` lists the links)',
    ]);
    expect(problems('      - { at: 0, replay: { file: traces/gone.csv } }')).toEqual([
      'phases[0].events[0].replay.file: traces/gone.csv: cannot read it (ENOENT): give a path relative to the project root, e.g. traces/leo-satellite.csv',
    ]);
  });

  test('injected: the replay activity gets the rows at the time-scaled pace; the event records the lateness', async () => {
    const [phase] = plan('      - { at: 30, replay: { file: traces/ok.csv, loop: true } }', 0.5).cells[0].phases;
    if (phase.kind !== 'run') throw new Error('not a run phase');
    const report: ReplayReport = { appliedAt: 1000, completedAt: 36_000, steps: 7, latenessMs: { p50: 2, p90: 7, p95: 8, p99: 9, max: 12 } };
    const replayLinkTrace = jest.fn(() => Promise.resolve(report));
    const done = await injectEventInto({ replayLinkTrace } as unknown as EventTargets, {
      fleet: { kind: 'local' },
      database: 'redis',
      event: phase.events[0],
    });
    expect(replayLinkTrace).toHaveBeenCalledWith({
      fleet: { kind: 'local' },
      rows: (phase.events[0].action as ReplayAction).rows,
      speed: 2,
      loop: true,
      untilS: 35,
    });
    expect(done.event).toMatchObject({
      kind: 'trace-replay',
      label: 'replay ok.csv',
      scheduledOffsetS: 15,
      acceptedAt: 1000,
      completedAt: 36_000,
      detail: { file: 'traces/ok.csv', rows: 4, speed: 1, loop: true, steps: 7, latenessMs: { p50: 2, p90: 7, p95: 8, p99: 9, max: 12 } },
    });
  });

  test('rows cannot be written into the scenario, and a plan made without the loader is refused', () => {
    expect(inputProblems(() => scenario('      - { at: 0, replay: { file: traces/ok.csv, rows: [] } }')).map((e) => e.field)).toEqual([
      'phases[0].events[0].replay.rows',
    ]);
    expect(
      inputProblems(() => planScenario(scenario('      - { at: 0, replay: { file: traces/ok.csv } }'), () => fleet)).map((e) => e.message),
    ).toEqual([
      'phases[0].events[0].replay: the rows of traces/ok.csv were not loaded: plan scenarios through operations/scenario/scenario-loader.ts, which reads trace files (at 0 s)',
    ]);
  });
});

describe('the replay schedule and its pacing', () => {
  const rows = rowsOf(
    csv('0,sydney-pune/0,latencyMs,40', '0,sydney-pune/0,bandwidthMbps,80', '1,sydney-pune/0:a->b,lossPercent,5', '2,sydney-pune/0,latencyMs,60'),
  );

  test('rows due together are one step; speed divides the times; a loop restarts at the last row until its end', () => {
    expect(replaySchedule(rows, { speed: 2, loop: false }).map((s) => [s.atMs, s.rows.map((r) => r.line)])).toEqual([
      [0, [3, 4]],
      [500, [5]],
      [1000, [6]],
    ]);
    expect(replaySchedule(rows, { speed: 1, loop: true, untilS: 5 }).map((s) => [s.atMs, s.rows.map((r) => r.line)])).toEqual([
      [0, [3, 4]],
      [1000, [5]],
      // the last row of a pass and the first rows of the next, together: the next pass's win
      [2000, [6, 3, 4]],
      [3000, [5]],
      [4000, [6, 3, 4]],
    ]);
  });

  /** A shaper that records what it was asked and when, slow on its first call. */
  function recordingShaper(firstCallMs: number) {
    const calls: { at: number; items: ShapeItem[] }[] = [];
    const shaper: LinkShaper = {
      apply: async () => {},
      applyMany: async (items) => {
        if (calls.length === 0) await sleep(firstCallMs);
        calls.push({ at: Date.now(), items });
      },
      cut: async () => {},
      restore: async () => {},
      seedDraws: async () => {},
      clear: async () => {},
    };
    return { calls, shaper };
  }

  const dir = mkdtempSync(path.join(tmpdir(), 'fb-replay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const plan = planFleet(topology);
  const inventory = localInventory(plan, new Map(plan.nodes.map((n, i) => [n.name, `${'k'.repeat(42)}${'AEIMQ'[i]}=`])), 'boringtun 0.7.1');

  test('each step sets its rows from where the link stands; a slow step does not delay the later ones', async () => {
    const { calls, shaper } = recordingShaper(150);
    const net = new FleetNetwork(inventory, shaper, path.join(dir, 'settings.json'));
    const result = await replayTrace(net, rows, { speed: 5, loop: false });
    expect(result.steps).toBe(3);
    const applied = calls.map((c) => c.items.map((i) => [i.link.id, i.conditions] as [string, LinkConditions]));
    expect(applied[0]).toEqual([
      [
        'sydney-pune/0',
        { ab: { delayMs: 20, bandwidthMbps: 80, lossPercent: 0, jitterMs: 0 }, ba: { delayMs: 20, bandwidthMbps: 80, lossPercent: 0, jitterMs: 0 } },
      ],
    ]);
    expect(applied[1][0][1].ab.lossPercent).toBe(5);
    expect(applied[1][0][1].ba.lossPercent).toBe(0);
    expect(applied[2][0][1]).toMatchObject({ ab: { delayMs: 30, bandwidthMbps: 80, lossPercent: 5 }, ba: { delayMs: 30, lossPercent: 0 } });
    // Steps at 0, 200 and 400 ms; the first took 150 ms: paced from the start, the next are on time.
    expect(result.latenessMs).toHaveLength(4);
    expect(result.latenessMs[0]).toBeGreaterThanOrEqual(150);
    expect(Math.max(...result.latenessMs.slice(2))).toBeLessThan(100);
    expect(calls[2].at - calls[0].at).toBeLessThan(400);
  });

  test('a target the fleet lacks stops the replay before its first row', async () => {
    const { calls, shaper } = recordingShaper(0);
    const net = new FleetNetwork(inventory, shaper, path.join(dir, 'bad.json'));
    await expect(replayTrace(net, rowsOf(csv('0,sydney-mars/0,latencyMs,40')), { speed: 1, loop: false })).rejects.toThrow(
      'replay.rows: trace line 3: unknown link "sydney-mars/0"',
    );
    expect(calls).toEqual([]);
  });
});
