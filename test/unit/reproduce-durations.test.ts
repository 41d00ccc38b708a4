import { experimentDurations, formatDurations } from '../../core/reproduce/durations';
import type { Ledger, LedgerRun } from '../../core/reproduce/ledger';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 26, 12, 0);

function run(experiment: string, part: string, repetition: number, fromMin: number, toMin: number, extra: Partial<LedgerRun> = {}): LedgerRun {
  return {
    experiment,
    part,
    repetition,
    runId: `${experiment}-${part}-${repetition}-${fromMin}`,
    status: 'completed',
    finishedCells: [],
    startedAt: T0 + fromMin * MIN,
    finishedAt: T0 + toMin * MIN,
    ...extra,
  };
}

const ledger = (repeat: Record<string, number>, runs: LedgerRun[]): Ledger => ({ createdAt: T0, repeat, runs });

const parts = (...ids: string[]) => ids.map((id) => ({ id }));
const EXPERIMENTS = [
  { id: 'traffic', parts: parts('redis', 'cassandra') },
  { id: 'bursting', parts: parts('redis') },
  { id: 'latency', parts: parts('redis') },
];

test("an experiment's time runs from its first run's start to its last run's end when it ran without a pause, re-plans included", () => {
  const found = experimentDurations(
    [
      {
        directory: 'reproduce-a',
        ledger: ledger({ traffic: 1 }, [
          run('traffic', 'redis', 1, 0, 4),
          run('traffic', 'cassandra', 1, 4, 9),
          run('traffic', 'cassandra', 1, 9, 12, { attempt: 2 }),
        ]),
      },
    ],
    EXPERIMENTS,
  );
  expect(found.get('traffic')).toMatchObject({ directory: 'reproduce-a', realS: 12 * 60, replans: 1, complete: true, repeat: 1 });
  expect(found.get('latency')).toBeUndefined();
});

test('an interrupted invocation resumed hours later counts the time its runs ran, not the hours between', () => {
  const found = experimentDurations(
    [
      {
        directory: 'reproduce-a',
        ledger: ledger({ traffic: 1 }, [
          run('traffic', 'redis', 1, 0, 4),
          run('traffic', 'cassandra', 1, 4, 6, { status: 'cancelled' }),
          // Resumed 3 hours later; two runs overlapping by a minute count that minute once.
          run('traffic', 'cassandra', 1, 186, 192),
          run('traffic', 'cassandra', 1, 191, 193, { attempt: 2 }),
        ]),
      },
    ],
    EXPERIMENTS,
  );
  expect(found.get('traffic')).toMatchObject({ realS: (6 + 7) * 60, startedAt: T0, finishedAt: T0 + 193 * MIN, complete: true, replans: 1 });
});

test("a part that runs another experiment's scenario is complete when that one's run completed, and its time is counted there", () => {
  const shares = [
    { id: 'single-resize', parts: [{ id: 'redis' }, { id: 'cassandra', sameRunsAs: [{ experiment: 'resize-on-the-fly', part: 'cassandra' }] }] },
    { id: 'resize-on-the-fly', parts: [{ id: 'cassandra', sameRunsAs: [{ experiment: 'single-resize', part: 'cassandra' }] }] },
  ];
  const interrupted = [run('single-resize', 'redis', 1, 0, 10), run('single-resize', 'cassandra', 1, 10, 12, { status: 'cancelled' })];
  const alone = experimentDurations([{ directory: 'reproduce-a', ledger: ledger({ 'single-resize': 1 }, interrupted) }], shares);
  expect(alone.get('single-resize')).toMatchObject({ complete: false });

  const found = experimentDurations(
    [
      {
        directory: 'reproduce-a',
        ledger: ledger({ 'single-resize': 1, 'resize-on-the-fly': 1 }, [...interrupted, run('resize-on-the-fly', 'cassandra', 1, 100, 120)]),
      },
    ],
    shares,
  );
  expect(found.get('single-resize')).toMatchObject({ complete: true, realS: 12 * 60 });
  expect(found.get('resize-on-the-fly')).toMatchObject({ complete: true, realS: 20 * 60 });
  // Another repetition's completed run does not complete this one.
  const otherRepetition = experimentDurations(
    [{ directory: 'reproduce-a', ledger: ledger({ 'single-resize': 1 }, [...interrupted, run('resize-on-the-fly', 'cassandra', 2, 100, 120)]) }],
    shares,
  );
  expect(otherRepetition.get('single-resize')).toMatchObject({ complete: false });
});

test('an experiment whose every part ran under another is complete in no time of its own; with none of them run, it has no run', () => {
  const reads = [{ id: 'traffic', parts: [{ id: 'redis', sameRunsAs: [{ experiment: 'latency', part: 'redis' }] }] }];
  const latencyRuns = [run('latency', 'redis', 1, 0, 10), run('latency', 'redis', 2, 10, 20)];
  const both = experimentDurations([{ directory: 'reproduce-a', ledger: ledger({ latency: 2, traffic: 2 }, latencyRuns) }], reads);
  expect(both.get('traffic')).toMatchObject({ complete: true, realS: 0, repeat: 2, startedAt: T0, finishedAt: T0 + 20 * MIN });
  const oneOfTwo = experimentDurations([{ directory: 'reproduce-a', ledger: ledger({ latency: 2, traffic: 2 }, latencyRuns.slice(0, 1)) }], reads);
  expect(oneOfTwo.get('traffic')).toBeUndefined();
});

test('the newest complete run wins over a newer incomplete one; an incomplete one shows only when nothing completed', () => {
  const older = ledger({ traffic: 1, bursting: 2 }, [
    run('traffic', 'redis', 1, 0, 3),
    run('traffic', 'cassandra', 1, 3, 6),
    run('bursting', 'redis', 1, 6, 10),
  ]);
  const newer = ledger({ traffic: 1 }, [run('traffic', 'redis', 1, 100, 104), run('traffic', 'cassandra', 1, 104, 105, { status: 'cancelled' })]);
  const found = experimentDurations(
    [
      { directory: 'reproduce-old', ledger: older },
      { directory: 'reproduce-new', ledger: newer },
    ],
    EXPERIMENTS,
  );
  expect(found.get('traffic')).toMatchObject({ directory: 'reproduce-old', complete: true, realS: 6 * 60 });
  // Two repetitions asked, one ran: incomplete, and still the only run there is.
  expect(found.get('bursting')).toMatchObject({ directory: 'reproduce-old', complete: false, repeat: 2 });
});

test('the table sums only complete experiments against the suite budget, and flags one over 30 minutes', () => {
  const found = experimentDurations(
    [
      {
        directory: 'reproduce-a',
        ledger: ledger({ traffic: 1, bursting: 2 }, [
          run('traffic', 'redis', 1, 0, 20),
          run('traffic', 'cassandra', 1, 20, 41),
          run('bursting', 'redis', 1, 41, 50),
        ]),
      },
    ],
    EXPERIMENTS,
  );
  const text = formatDurations(
    found,
    new Map([
      ['traffic', 25 * 60],
      ['bursting', 12 * 60],
      ['latency', 20 * 60],
    ]),
  );
  expect(text).toMatch(/^traffic\s+25\.0 min\s+41\.0 min \(over 30\.0 min\)\s+1\s+0\s+2026-11-26 12:00 to 12:41\s+reproduce-a$/m);
  expect(text).toMatch(/^bursting\s+12\.0 min\s+9\.0 min \(incomplete\)/m);
  expect(text).toMatch(/^latency\s+20\.0 min\s+not run$/m);
  expect(text).toContain(
    'suite, 1 of 3 experiments (the others have no complete run here): 41.0 min real against 25.0 min planned (budget 180.0 min)',
  );
  expect(text).toContain('bursting: its newest run did not complete every part of every repetition; not in the sum');
});
