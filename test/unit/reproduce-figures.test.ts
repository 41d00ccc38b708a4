/**
 * A run's figures from its cell records (core/reproduce/figures.ts): a ramped client's phase is
 * judged by its run phase's verdict, and a phase at 90 % of its ceiling is flagged unless no
 * ceiling is passed (an experiment whose targets are the load offered); a phase that measured the
 * all-pairs RTT around its link cuts gives throughput and average ping before and after each.
 */
import { namingFleets, OPERATIONS_MEASURED, runFigures, THROUGHPUT_ERROR } from '../../core/reproduce/figures';
import { allClientsPerSecond, eventWindowFigures, linkEventFigures, pairTrafficFigures } from '../../core/reproduce/event-figures';
import type { RecordedEvent } from '../../core/events';
import type { CellRecord, PhaseRecord } from '../../core/run-record';
import type { Sample } from '../../core/samples';
import type { PhaseFigures, PhaseVerdict } from '../../core/verdict';

const seconds = (okPerS: number, n = 10): Sample[] =>
  Array.from({ length: n }, (_, i) => ({ time: 1000 * (i + 1), elapsedS: i + 1, ops: {}, okPerS, failedPerS: 0 }));
const phase = (name: string, okPerS: number, verdict?: PhaseVerdict): PhaseRecord => ({
  name,
  samples: seconds(okPerS),
  ...(verdict ? { verdict } : {}),
  events: [],
  rtt: [],
  traffic: [],
  resizes: [],
});
const judged = (verdict: PhaseVerdict['verdict'], hostBusyMedianPercent: number): PhaseVerdict => ({
  warmup: false,
  verdict,
  reasons: verdict === 'ok' ? [] : [{ verdict, figure: 40, threshold: 10, text: 'host CPU ≥ 90 % in 40 % of seconds (threshold 10 %)' }],
  unchecked: [],
  figures: { hostBusyMedianPercent } as PhaseFigures,
});
const cell = (phases: PhaseRecord[]): CellRecord => ({
  cellId: 'c1',
  cluster: { database: 'cassandra', version: '5.0.9', nonDefaultSettings: {} },
  coordinates: { latencyScale: 0.2 },
  phases,
  summary: { throughputOpsPerS: 0, okOps: 0, failedOps: 0, errorPercent: 0, avgLatencyUs: {}, zeroSeconds: 0, settleSeconds: {} },
});

test("a ramped client's phase takes its run phase's verdict; a phase of its own keeps its own", () => {
  const figures = runFigures([cell([phase('ramp', 60, judged('ok', 37)), phase('ramp:c2', 120), phase('other', 50)])]);
  const of = (name: string) => figures.find((f) => f.phase === name)!;
  expect(of('ramp:c2')).toMatchObject({ verdict: 'ok', hostBusyMedianPercent: 37, value: 120 });
  expect(of('other')).toMatchObject({ verdict: 'unjudged' });
  const flagged = runFigures([cell([phase('ramp', 60, judged('host-bound', 95)), phase('ramp:c2', 120)])]);
  expect(flagged.find((f) => f.phase === 'ramp:c2')).toMatchObject({ verdict: 'host-bound', why: expect.stringMatching(/^host CPU/) as unknown });
});

test('a phase at 90 % of its ceiling is flagged; with no ceiling passed (offered load), its figure stands; threads are carried', () => {
  const records = [cell([phase('ramp', 60, judged('ok', 37))])];
  expect(runFigures(records, () => ({ target: 60, threads: 2 }))[0]).toMatchObject({ verdict: 'ceiling-bound', threads: 2 });
  expect(runFigures(records, () => ({ threads: 2 }))[0]).toMatchObject({ verdict: 'ok', value: 60, threads: 2 });
});

test('around each link cut: throughput from the previous cut to it and from it to the next, the last ping before and the first after', () => {
  // 30 s at 40 ops/s, 30 s at 20 after the first cut (t=30 s), 40 after the second (t=60 s).
  const samples: Sample[] = Array.from({ length: 90 }, (_, i) => ({
    time: 1000 * (i + 1),
    elapsedS: i + 1,
    ops: {},
    okPerS: i < 30 ? 40 : i < 60 ? 20 : 40,
    failedPerS: 0,
  }));
  const cut = (at: number, label: string) => ({ kind: 'link-cut' as const, label, scheduledOffsetS: at, requestedAt: at * 1000 + 500, detail: {} });
  const ping = (at: number, meanMs: number) => ({ time: at * 1000, pairs: [], meanMs });
  const removals: PhaseRecord = {
    ...phase('removals', 0, judged('ok', 10)),
    samples,
    events: [cut(30, 'cut a-b/0'), cut(60, 'cut b-c/0')],
    rtt: [ping(20, 80), ping(25, 81), ping(40, 90), ping(70, 95)],
  };
  const of = (label: string, measure: string) =>
    runFigures([cell([removals])]).find((f) => f.phase === `removals · ${label}` && f.measure === measure)?.value;
  expect(of('cut a-b/0', 'throughput before')).toBe(40);
  expect(of('cut a-b/0', 'throughput after')).toBe(20);
  expect(of('cut b-c/0', 'throughput before')).toBe(20);
  expect(of('cut b-c/0', 'throughput after')).toBe(40);
  expect(of('cut a-b/0', 'average ping before')).toBe(81);
  expect(of('cut a-b/0', 'average ping after')).toBe(90);
  expect(of('cut b-c/0', 'average ping before')).toBe(90);
  expect(of('cut b-c/0', 'average ping after')).toBe(95);
  // A phase with a cut but no ping around it gives none of these.
  const removalMeasures = ['throughput before', 'throughput after', 'average ping before', 'average ping after'];
  expect(runFigures([cell([{ ...removals, rtt: [] }])]).filter((f) => removalMeasures.includes(f.measure))).toEqual([]);
});

test("the all-pairs pings' own cost: throughput in the seconds they ran against the seconds between them", () => {
  // 60 s at 40 ops/s, but 30 in the 10 s of each of the two ping rounds (ending at t=20 s and t=50 s).
  const slowed = (t: number) => (t > 10 && t <= 20) || (t > 40 && t <= 50);
  const samples: Sample[] = Array.from({ length: 60 }, (_, i) => ({
    time: 1000 * (i + 1),
    elapsedS: i + 1,
    ops: {},
    okPerS: slowed(i + 1) ? 30 : 40,
    failedPerS: 0,
  }));
  const round = (from: number, to: number) => ({ time: to * 1000, startedAt: from * 1000, pairs: [], meanMs: 80 });
  const pinged: PhaseRecord = { ...phase('removals', 0, judged('ok', 10)), samples, rtt: [round(10, 20), round(40, 50)] };
  const figures = runFigures([cell([pinged])]);
  const of = (measure: string) => figures.find((f) => f.phase === 'removals' && f.measure === measure);
  expect(of('throughput while pinging')).toMatchObject({ value: 30, verdict: 'ok' });
  // The first SKIPPED_FIRST_SECONDS are left out of both.
  expect(of('throughput between pings')?.value).toBe(40);
  // Rounds recorded without their start (older records) give neither figure.
  const older = { ...pinged, rtt: pinged.rtt.map(({ startedAt: _, ...m }) => m) };
  expect(runFigures([cell([older])]).filter((f) => f.measure.startsWith('throughput ') && f.measure !== 'throughput')).toEqual([]);
});

test('a throughput figure comes with the operations it counts and its relative error: those of the measured seconds, after the first two', () => {
  const figures = runFigures([cell([phase('e-lsf1', 3, judged('ok', 10))])]);
  const of = (measure: string) => figures.find((f) => f.measure === measure);
  expect(of('throughput')).toMatchObject({ value: 3, unit: 'ops/s' });
  // 10 seconds of 3 ops, the first two skipped.
  expect(of(OPERATIONS_MEASURED)).toMatchObject({ value: 24, unit: '', verdict: 'ok', detail: true });
  // Every second alike: no spread, so one operation in the 24 counted.
  expect(of(THROUGHPUT_ERROR)).toMatchObject({ value: 1 / 24, unit: '', verdict: 'ok', detail: true });
});

test("an experiment whose parts run on different fleets names each figure's fleet, so regions are not taken for repetitions", () => {
  const figure = runFigures([cell([phase('a', 40, judged('ok', 10))])])[0];
  const regions = [{ scenario: { fleet: { local: 'hybrid-sydney' } } }, { scenario: { fleet: { local: 'hybrid-mumbai' } } }];
  expect(namingFleets(regions, { local: 'hybrid-mumbai' }, [figure])[0].cell).toBe(`fleet=hybrid-mumbai ${figure.cell}`.trim());
  // One fleet for every part: the figure is left as it is.
  expect(namingFleets([regions[0], regions[0]], { local: 'hybrid-sydney' }, [figure])).toEqual([figure]);
});

const event = (kind: RecordedEvent['kind'], label: string, atS: number, completedAfterS?: number): RecordedEvent => ({
  kind,
  label,
  scheduledOffsetS: atS,
  requestedAt: atS * 1000,
  detail: {},
  ...(completedAfterS !== undefined ? { completedAt: (atS + completedAfterS) * 1000 } : {}),
});
const perSecond = (ok: (t: number) => number, n: number) => Array.from({ length: n }, (_, i) => ({ time: (i + 1) * 1000, ok: ok(i + 1) }));

test("after a link cut: seconds until the load recovers, the longest outage, and each step's path as the overlay settled on it", () => {
  // 20 ops/s, nothing from 31 s to 50 s after the cut at 30 s; the restore at 90 s costs nothing.
  const seconds = perSecond((t) => (t > 30 && t <= 50 ? 0 : 20), 120);
  const steps: PhaseRecord = {
    ...phase('steps', 0),
    events: [event('link-cut', 'cut a-b/1', 30), event('link-restore', 'restore a-b/1', 90)],
    paths: [
      { time: 0, from: 'a', to: 'b', hops: ['a', 'b'], links: ['a-b/1'] },
      { time: 40_000, from: 'a', to: 'b', hops: [], links: [] },
      { time: 49_000, from: 'a', to: 'b', hops: ['a', 'b'], links: ['a-b/0'], overTcp: [true] },
      { time: 91_000, from: 'a', to: 'b', hops: ['a', 'b'], links: ['a-b/1'] },
      { time: 0, from: 'a', to: 'c', hops: ['a', 'c'], links: ['a-c/0'] },
    ],
  };
  const figures = linkEventFigures(steps, seconds, [['a', 'b']]);
  const of = (p: string, measure: string) => figures.find((f) => f.phase === `steps · ${p}` && f.measure === measure);
  expect(of('cut a-b/1', 'outage after')?.value).toBe(20);
  expect(of('cut a-b/1', 'recovery after')?.value).toBe(21);
  expect(of('restore a-b/1', 'outage after')?.value).toBe(0);
  expect(of('restore a-b/1', 'recovery after')?.value).toBe(1);
  expect(of('before cut a-b/1', 'path')).toMatchObject({ text: 'a-b/1', value: 1, pair: 'a-b' });
  expect(of('after cut a-b/1', 'path')).toMatchObject({ text: 'a-b/0', value: 1 });
  expect(of('after restore a-b/1', 'path')).toMatchObject({ text: 'a-b/1' });
  // Settled on the step's last path: 19 s after the cut (through a moment with no path), 1 s after the restore.
  expect(of('cut a-b/1', 'path settled after')?.value).toBe(19);
  expect(of('restore a-b/1', 'path settled after')?.value).toBe(1);
  // Only the pairs asked for: a-c is another pair's path.
  expect(figures.filter((f) => f.pair === 'a-c')).toEqual([]);
  // One empty second is a slow operation, not an outage.
  expect(
    linkEventFigures(
      { ...steps, paths: [] },
      perSecond((t) => (t === 40 ? 0 : 20), 120),
      [],
    ).find((f) => f.measure === 'outage after')?.value,
  ).toBe(0);
});

test('around resizes and clients: the load after each event from its completion, before the first, and the lowest second after a join', () => {
  const all = allClientsPerSecond(
    Array.from({ length: 120 }, (_, i) => ({ time: (i + 1) * 1000, elapsedS: i + 1, ops: {}, okPerS: 10, failedPerS: 0 })),
    [
      Array.from({ length: 90 }, (_, i) => ({
        time: (i + 31) * 1000,
        elapsedS: i + 1,
        ops: {},
        okPerS: i + 31 > 65 && i + 31 <= 68 ? 0 : 20,
        failedPerS: 0,
      })),
    ],
  );
  const ramp: PhaseRecord = { ...phase('ramp', 0), events: [event('client-start', 'start client c2', 30), event('resize-add', 'add pune', 60, 10)] };
  const figures = eventWindowFigures(ramp, all);
  const of = (p: string, measure: string) => figures.find((f) => f.phase === `ramp · ${p}` && f.measure === measure)?.value;
  expect(of('start client c2', 'throughput before')).toBe(10);
  expect(of('start client c2', 'throughput after')).toBe(30);
  // From the join's completion (70 s) on: both clients at full rate again.
  expect(of('add pune', 'throughput after')).toBe(30);
  expect(of('add pune', 'lowest second after')).toBe(10);
});

test("per node pair: bytes per operation between the phase's first and last counter reading", () => {
  const measured: PhaseRecord = {
    ...phase('a-lsf1', 0),
    traffic: [
      {
        time: 0,
        pairs: [
          { a: 'pune', b: 'seoul', bytes: 1000 },
          { a: 'client', b: 'pune', bytes: 0 },
        ],
      },
      {
        time: 20_000,
        pairs: [
          { a: 'pune', b: 'seoul', bytes: 21_000 },
          { a: 'client', b: 'pune', bytes: 50_000 },
        ],
      },
    ],
  };
  expect(pairTrafficFigures(measured, 100).map((f) => [f.pair, f.value])).toEqual([
    ['pune-seoul', 200],
    ['client-pune', 500],
  ]);
  expect(pairTrafficFigures({ ...measured, traffic: measured.traffic.slice(0, 1) }, 100)).toEqual([]);
});
