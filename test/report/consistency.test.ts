/**
 * A checked run with anomalies (fixtures/runs/fx-consistency: Redis loses writes a cut-off master
 * acknowledged, Cassandra at QUORUM loses none) in the report and the export: the consistency
 * figure per cell with the scenario's events on it, the tables of counts, settings and examples,
 * the notes on what the check cannot see, and a CSV whose seconds add up to the cell's totals.
 */
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { buildReport } from '../../report/build-report';
import { CONSISTENCY_COLUMNS, consistencyCsv, hasConsistency, runJson, samplesCsv } from '../../report/export';
import { CANNOT_SEE, consistencyTotals, failedTotal } from '../../core/consistency/consistency';
import type { CellRecord, RunRecord } from '../../core/run-record';

const store = new ResultsStore(path.join(__dirname, 'fixtures', 'runs'));
let run: RunRecord;
let cells: CellRecord[];

beforeAll(async () => {
  run = await store.readRun('fx-consistency');
  cells = await store.readCells(run);
});

const byDatabase = (db: string) => cells.find((c) => c.coordinates.database === db)!;

interface Unit {
  vconcat?: Unit[];
  layer?: Unit[];
  data?: { values?: Record<string, unknown>[] };
  mark?: { type?: string };
  encoding?: { color?: { title?: string }; stroke?: { title?: string } };
}

test('the cells record their verdicts: Redis lost acknowledged writes, Cassandra at QUORUM lost nothing', () => {
  expect(consistencyTotals(byDatabase('redis'))).toMatchObject({ verdict: 'lost acknowledged writes', corrupt: 0, unverified: 0 });
  expect(consistencyTotals(byDatabase('redis'))!.lost).toBeGreaterThan(0);
  expect(consistencyTotals(byDatabase('redis'))!.stale).toBeGreaterThan(0);
  expect(consistencyTotals(byDatabase('cassandra'))).toMatchObject({ verdict: 'no anomaly seen', stale: 0, lost: 0, corrupt: 0 });
  // The database settings that decide it are recorded with the cell.
  expect(byDatabase('redis').cluster?.consistency).toMatchObject({ 'replicas per master': '1', 'cluster-node-timeout': '3000 ms' });
  expect(byDatabase('cassandra').cluster?.consistency).toMatchObject({ 'read consistency': 'QUORUM', 'write consistency': 'QUORUM' });
});

test('the report asks the question, draws anomalies over time with the events on them, and tabulates counts, settings and examples', () => {
  const model = buildReport(run, cells);
  expect(model.question).toMatch(/And did the database keep what it acknowledged\?$/);

  const figure = model.figures.find((f) => f.id === 'consistency-c01-redis')!;
  expect(figure.heading).toMatch(
    /^Did the database keep what it acknowledged\? redis: lost acknowledged writes: \d+ stale reads, 0 corrupt reads and \d+ lost acknowledged writes/,
  );
  const [anomalies, failures] = (figure.spec as Unit).vconcat!;
  const lines = (panel: Unit) => panel.layer!.find((l) => l.mark?.type === 'line')!;
  const rules = (panel: Unit) => panel.layer!.find((l) => l.mark?.type === 'rule')!;
  // Lost writes drawn in the seconds they were acknowledged: while the master was cut off (10 s to 13 s after the partition at 10 s).
  const lostAt = lines(anomalies)
    .data!.values!.filter((r) => r.what === 'lost acknowledged writes' && (r.count as number) > 0)
    .map((r) => r.t as number);
  expect(lostAt.length).toBeGreaterThan(0);
  expect(Math.min(...lostAt)).toBeGreaterThanOrEqual(10);
  expect(Math.max(...lostAt)).toBeLessThanOrEqual(14);
  for (const panel of [anomalies, failures]) expect(rules(panel).data!.values!.map((r) => r.kind)).toEqual(['partition', 'heal']);
  expect(lines(failures).encoding!.color!.title).toBe('Failed operations, by cause');
  expect(new Set(lines(failures).data!.values!.map((r) => r.cause))).toEqual(new Set(['timeout', 'CLUSTERDOWN']));
  expect(model.figures.find((f) => f.id === 'consistency-c02-cassandra')?.heading).toMatch(/cassandra: no anomaly seen: 0 stale reads/);

  const table = model.tables.find((t) => t.id === 'consistency')!;
  expect(table.heading).toMatch(/1 of 2 checked cells showed anomalies: redis \(lost acknowledged writes\)/);
  const redisRow = table.rows.find((r) => r[0] === 'redis')!;
  expect(redisRow[1]).toBe('lost acknowledged writes');
  expect(redisRow.at(-1)).toMatch(/replicas per master: 1; cluster-node-timeout: 3000 ms/);
  expect(redisRow[8]).toMatch(/^timeout \d+, CLUSTERDOWN \d+$/);
  const examples = model.tables.find((t) => t.id === 'consistency-examples')!;
  expect(examples.rows.some((r) => r[0] === 'redis' && r[1] === 'lost write' && /\(read-back\)$/.test(r[5]))).toBe(true);
  expect(examples.rows.some((r) => r[1] === 'stale read')).toBe(true);
  expect(examples.rows.every((r) => r[0] === 'redis')).toBe(true);
  // What kind of check it was, and what it cannot see.
  const note = model.notes.find((n) => n.startsWith('Consistency was checked'))!;
  expect(note).toMatch(/not linearizability/);
  for (const blind of CANNOT_SEE) expect(note).toContain(blind);
});

test('a run without a checked cell has no consistency figure, table or note', () => {
  const plain = cells.map((c) => ({
    ...c,
    summary: { ...c.summary, consistency: undefined },
    phases: c.phases.map((p) => ({ ...p, consistency: undefined })),
  }));
  const model = buildReport(run, plain);
  expect(model.figures.filter((f) => f.id.startsWith('consistency'))).toEqual([]);
  expect(model.tables.filter((t) => t.id.startsWith('consistency'))).toEqual([]);
  expect(model.notes.some((n) => n.startsWith('Consistency'))).toBe(false);
  expect(model.question).not.toMatch(/acknowledged/);
  expect(hasConsistency(plain)).toBe(false);
});

function parse(csv: string): Record<string, string>[] {
  const [header, ...rows] = csv
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

test('the export: a row per checked second whose counts add up to each cell’s totals, and everything in the JSON', () => {
  expect(hasConsistency(cells)).toBe(true);
  const csv = consistencyCsv(run, cells);
  expect(csv.split('\n')[0]).toBe(['run', 'cell', 'database', ...CONSISTENCY_COLUMNS.slice(2)].join(','));
  const rows = parse(csv);
  for (const cell of cells) {
    const mine = rows.filter((r) => r.cell === cell.cellId);
    const checkedSeconds = cell.phases.reduce((n, p) => n + (p.consistency?.seconds.length ?? 0), 0);
    expect(mine).toHaveLength(checkedSeconds);
    const sum = (column: string) => mine.reduce((n, r) => n + Number(r[column]), 0);
    const totals = cell.summary.consistency!.totals;
    expect({
      stale: sum('stale_reads'),
      lost: sum('lost_writes'),
      corrupt: sum('corrupt_reads'),
      failed: sum('failed'),
      reads: sum('reads'),
    }).toEqual({
      stale: totals.stale,
      lost: totals.lost,
      corrupt: totals.corrupt,
      failed: failedTotal(totals),
      reads: totals.reads,
    });
    expect(mine.every((r) => r.phase === 'run' && /^\d{4}-\d\d-\d\dT/.test(r.time))).toBe(true);
  }
  expect(rows.find((r) => r.failed_by_cause.includes('CLUSTERDOWN='))?.failed_by_cause).toMatch(/^(timeout=\d+;)?CLUSTERDOWN=\d+(;timeout=\d+)?$/);
  // The samples export is unchanged by the check; the JSON holds the consistency records as stored.
  expect(samplesCsv(run, cells).split('\n')[0]).not.toMatch(/stale/);
  const json = JSON.parse(runJson(run, cells)) as { cells: CellRecord[] };
  expect(json.cells.map((c) => c.summary.consistency?.verdict)).toEqual(['lost acknowledged writes', 'no anomaly seen']);
});

test('the settings that decide consistency are noted for cells that were not checked, once per database and setting', () => {
  const unchecked = cells.map((c) => ({
    ...c,
    summary: { ...c.summary, consistency: undefined },
    phases: c.phases.map((p) => ({ ...p, consistency: undefined })),
  }));
  const twice = [...unchecked, { ...unchecked[0], cellId: 'c03-redis-again' }];
  const notes = buildReport(run, twice).notes.filter((n) => n.startsWith('Database settings'));
  expect(notes).toEqual([
    'Database settings that decide what reads see and what is kept (not checked in this run) for redis: replicas per master: 1; cluster-node-timeout: 3000 ms; writes: acknowledged by the master alone (asynchronous replication).',
    'Database settings that decide what reads see and what is kept (not checked in this run) for cassandra: replication factor: 3; read consistency: QUORUM; write consistency: QUORUM.',
  ]);
  // Checked cells show theirs in the consistency table instead.
  expect(buildReport(run, cells).notes.filter((n) => n.startsWith('Database settings'))).toEqual([]);
});
