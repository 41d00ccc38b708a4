/**
 * The commands that read recorded runs, run as a user runs them (`fragbench runs | report |
 * export | results verify`), on a copy of a stored run: what they print, what they write, and
 * their exit codes, also for a run that is not there and an option that is wrong.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { fragbench, scratchEnv } from '../support/cli';

jest.setTimeout(60_000);

const FIXTURE = path.join(__dirname, '../report/fixtures/runs/fx-quickstart');
const RUN = path.basename(FIXTURE);
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-results-'));
const env = scratchEnv(scratch);
const runDir = path.join(env.FRAGBENCH_RESULTS_DIR, RUN);
const fixtureRun = JSON.parse(readFileSync(path.join(FIXTURE, 'run.json'), 'utf8')) as RunRecord;
const cellFile = (dir: string, cellId: string) => path.join(dir, 'cells', `${cellId}.json`);
const fixtureCells = fixtureRun.cellIds.map((id) => JSON.parse(readFileSync(cellFile(FIXTURE, id), 'utf8')) as CellRecord);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('runs: an empty results directory says where it looked', async () => {
  const result = await fragbench(['runs'], env);
  expect(result.code).toBe(0);
  expect(result.stdout.trim()).toBe(`no runs under ${env.FRAGBENCH_RESULTS_DIR}`);
});

describe('on a copy of a stored run', () => {
  beforeAll(() => cpSync(FIXTURE, runDir, { recursive: true }));

  test('runs: one row with its id, scenario, status, cell count and loss seed (none recorded by this older run)', async () => {
    const result = await fragbench(['runs'], env);
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['RUN', 'SCENARIO', 'STATUS', 'STARTED (UTC)', 'CELLS', 'LOSS SEED']);
    expect(rows).toHaveLength(1);
    const [id, scenario, status, , cells, seed] = rows[0].split(/\s{2,}/);
    expect([id, scenario, status, Number(cells), seed]).toEqual([RUN, fixtureRun.scenario, fixtureRun.status, fixtureRun.cellIds.length, '-']);
  });

  test('report: writes the HTML report in the run directory and prints its path (by id, and by path)', async () => {
    const byId = await fragbench(['report', RUN, '--no-png'], env);
    expect(byId.code).toBe(0);
    const reportPath = byId.stdout.trim();
    expect(reportPath).toBe(path.join(runDir, 'report', 'index.html'));
    expect(readFileSync(reportPath, 'utf8')).toMatch(/^<!doctype html>/i);
    const byPath = await fragbench(['report', runDir, '--no-png'], {});
    expect(byPath.code).toBe(0);
    expect(byPath.stdout.trim()).toBe(reportPath);
  });

  test('export csv: a samples file (a row per second per operation) and an events file beside it', async () => {
    const result = await fragbench(['export', RUN, '--format', 'csv'], env);
    expect(result.code).toBe(0);
    const [samplesFile, eventsFile] = result.stdout.trim().split('\n');
    expect([samplesFile, eventsFile]).toEqual([path.join(runDir, `${RUN}-samples.csv`), path.join(runDir, `${RUN}-events.csv`)]);
    const rows = readFileSync(samplesFile, 'utf8').trim().split('\n');
    expect(rows[0]).toMatch(/^run,cell,database,workload,phase,elapsed_s,time,op,ok,failed,/);
    const opSeconds = fixtureCells
      .flatMap((c) => c.phases)
      .flatMap((p) => p.samples)
      .reduce((n, s) => n + Object.keys(s.ops).length, 0);
    expect(rows).toHaveLength(1 + opSeconds);
    const events = readFileSync(eventsFile, 'utf8').trim().split('\n');
    const recordedEvents = fixtureCells.flatMap((c) => c.phases).reduce((n, p) => n + p.events.length, 0);
    expect(events).toHaveLength(1 + recordedEvents);
  });

  test('export json --out: the whole record, as stored', async () => {
    const out = path.join(scratch, 'exported.json');
    const result = await fragbench(['export', RUN, '--format', 'json', '--out', out], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(out);
    const exported = JSON.parse(readFileSync(out, 'utf8')) as { run: RunRecord; cells: CellRecord[] };
    expect(exported.run).toEqual(fixtureRun);
    expect(exported.cells).toEqual(fixtureCells);
  });

  test('export with a format it does not write: refused, naming --format and the choices; nothing written', async () => {
    const result = await fragbench(['export', RUN, '--format', 'xml'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--format <format>' argument 'xml' is invalid\. Allowed choices are csv, json/);
    expect(existsSync(path.join(runDir, `${RUN}.xml`))).toBe(false);
  });

  test('a run that is not there: each command names it and points to `fragbench runs`', async () => {
    const commands = [
      ['report', 'no-such-run', '--no-png'],
      ['export', 'no-such-run', '--format', 'csv'],
      ['results', 'verify', 'no-such-run'],
    ];
    for (const result of await Promise.all(commands.map((command) => fragbench(command, env)))) {
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('no run "no-such-run"');
      expect(result.stderr).toContain('`fragbench runs`');
    }
  });

  test('results verify: the intact copy verifies clean (exit 0); with five seconds taken out of a phase, the gap is named (exit 1)', async () => {
    const clean = await fragbench(['results', 'verify', RUN], env);
    expect(clean.stdout).toMatch(/verified: no gap/);
    expect(clean.code).toBe(0);

    const [cell] = fixtureCells;
    const phase = cell.phases.find((p) => p.samples.length > 20);
    if (!phase) throw new Error(`the fixture ${RUN} has no phase of 20 s to cut a gap into`);
    const cut = {
      ...cell,
      phases: cell.phases.map((p) => (p === phase ? { ...p, samples: p.samples.filter((s) => s.elapsedS < 10 || s.elapsedS > 14) } : p)),
    };
    writeFileSync(cellFile(runDir, cell.cellId), JSON.stringify(cut));
    const gap = await fragbench(['results', 'verify', RUN], env);
    expect(gap.stdout).toContain(`${cell.cellId} ${phase.name}: no sample from 10 s to 14 s`);
    expect(gap.code).toBe(1);
  });
});

describe('a checked run (ycsb.check)', () => {
  const CHECKED = path.join(__dirname, '../report/fixtures/runs/fx-consistency');
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-cli-checked-'));
  const checkedEnv = scratchEnv(dir);
  const checkedRunDir = path.join(checkedEnv.FRAGBENCH_RESULTS_DIR, 'fx-consistency');
  beforeAll(() => cpSync(CHECKED, checkedRunDir, { recursive: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('export csv: a consistency file beside the samples and events, in the run directory or beside --out', async () => {
    const result = await fragbench(['export', 'fx-consistency', '--format', 'csv'], checkedEnv);
    expect(result.code).toBe(0);
    const files = result.stdout.trim().split('\n');
    expect(files).toEqual(['samples', 'events', 'consistency'].map((what) => path.join(checkedRunDir, `fx-consistency-${what}.csv`)));
    const rows = readFileSync(files[2], 'utf8').trim().split('\n');
    expect(rows[0]).toBe(
      'run,cell,database,phase,elapsed_s,time,reads,acknowledged_writes,stale_reads,corrupt_reads,lost_writes,unjudged_reads,failed,failed_by_cause',
    );
    expect(rows.length).toBeGreaterThan(40);

    const out = path.join(dir, 'mine.csv');
    const beside = await fragbench(['export', 'fx-consistency', '--format', 'csv', '--out', out], checkedEnv);
    expect(beside.stdout.trim().split('\n')).toEqual([out, path.join(dir, 'mine-events.csv'), path.join(dir, 'mine-consistency.csv')]);
    expect(readFileSync(path.join(dir, 'mine-consistency.csv'), 'utf8')).toBe(readFileSync(files[2], 'utf8'));
  });
});
