/**
 * A run's figures from its cell records (core/reproduce/figures.ts): a ramped client's phase is
 * judged by its run phase's verdict, and a phase at 90 % of its ceiling is flagged unless no
 * ceiling is passed (an experiment whose targets are the load offered).
 */
import { runFigures } from '../../core/reproduce/figures';
import type { CellRecord, PhaseRecord } from '../../core/run-record';
import type { Sample } from '../../core/samples';
import type { PhaseFigures, PhaseVerdict } from '../../core/verdict';

const seconds = (okPerS: number, n = 10): Sample[] => Array.from({ length: n }, (_, i) => ({ time: 1000 * (i + 1), elapsedS: i + 1, ops: {}, okPerS, failedPerS: 0 }));
const phase = (name: string, okPerS: number, verdict?: PhaseVerdict): PhaseRecord => ({ name, samples: seconds(okPerS), ...(verdict ? { verdict } : {}), events: [], rtt: [], traffic: [], resizes: [] });
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
  summary: { throughputOpsPerS: 0, okOps: 0, failedOps: 0, errorPercent: 0, avgLatencyUs: {} },
});

test("a ramped client's phase takes its run phase's verdict; a phase of its own keeps its own", () => {
  const figures = runFigures([cell([phase('ramp', 60, judged('ok', 37)), phase('ramp:c2', 120), phase('other', 50)])]);
  const of = (name: string) => figures.find((f) => f.phase === name)!;
  expect(of('ramp:c2')).toMatchObject({ verdict: 'ok', hostBusyMedianPercent: 37, value: 120 });
  expect(of('other')).toMatchObject({ verdict: 'unjudged' });
  const flagged = runFigures([cell([phase('ramp', 60, judged('host-bound', 95)), phase('ramp:c2', 120)])]);
  expect(flagged.find((f) => f.phase === 'ramp:c2')).toMatchObject({ verdict: 'host-bound', why: expect.stringMatching(/^host CPU/) });
});

test('a phase at 90 % of its ceiling is flagged; with no ceiling passed (offered load), its figure stands; threads are carried', () => {
  const records = [cell([phase('ramp', 60, judged('ok', 37))])];
  expect(runFigures(records, () => ({ target: 60, threads: 2 }))[0]).toMatchObject({ verdict: 'ceiling-bound', threads: 2 });
  expect(runFigures(records, () => ({ threads: 2 }))[0]).toMatchObject({ verdict: 'ok', value: 60, threads: 2 });
});
