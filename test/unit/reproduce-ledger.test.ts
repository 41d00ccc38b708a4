/** Resume bookkeeping: runs recorded, cells finished, single-cell scenarios (which cells are due: reproduce-replan.test.ts). */
import { cellFinished, emptyLedger, restrictToCell, withRun, type LedgerRun } from '../../core/reproduce/ledger';
import type { ScenarioFile } from '../../core/scenario';

const run = (over: Partial<LedgerRun>): LedgerRun => ({
  experiment: 'bursting',
  part: 'redis',
  repetition: 1,
  runId: 'r1',
  status: 'completed',
  finishedCells: [],
  startedAt: 1,
  ...over,
});
const planned = [{ layout: '8_0' }, { layout: '4_4' }, { layout: '1_7' }];

test('a run recorded again (started, then finished) replaces its entry', () => {
  const ledger = withRun(withRun(emptyLedger(0), run({ status: 'started' })), run({ status: 'completed', finishedCells: planned }));
  expect(ledger.runs).toHaveLength(1);
  expect(ledger.runs[0].status).toBe('completed');
});

test('a cell is finished when its record holds every planned phase; ramped clients do not count', () => {
  expect(cellFinished(['flush', 'load', 'a', 'c'], 4)).toBe(true);
  expect(cellFinished(['flush', 'load', 'a', 'a:c2'], 4)).toBe(false);
});

test('a scenario cut down to one cell keeps that value of each dimension and drops its reference', () => {
  const scenario: ScenarioFile = {
    name: 'x',
    experiment: 'x',
    fleet: { local: 'fhc-4' },
    matrix: { database: ['redis', 'cassandra'], layout: [{ name: '8_0', database: { nodes: ['a'] } }, { name: '4_4' }], latencyScale: [0.2, 1] },
    reference: { latencyScale: 1 },
    phases: [{ phase: 'flush' }],
  };
  const one = restrictToCell(scenario, { database: 'cassandra', layout: '8_0', latencyScale: 0.2 });
  expect(one.matrix).toEqual({ database: ['cassandra'], layout: [{ name: '8_0', database: { nodes: ['a'] } }], latencyScale: [0.2] });
  expect(one.reference).toBeUndefined();
  expect(scenario.reference).toEqual({ latencyScale: 1 });
});
