import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../../services/results/results-store';
import { EVENT_COLUMNS, SAMPLE_COLUMNS, eventsCsv, runJson, samplesCsv } from '../../report/export';
import { cell, phase, recorded, runRecord, second } from './builders';

/** A minimal CSV reader for checking: quoted fields may hold commas, quotes and newlines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  return rows;
}

const records = () => {
  const cells = [
    cell('c1', { database: 'redis', workload: 'a' }, [
      phase(
        'run',
        [second(1, { READ: { ok: 10, avgUs: 500 }, UPDATE: { ok: 4, failed: 1, avgUs: 900 } }), second(2, { READ: { ok: 0, failed: 3 } })],
        {
          events: [recorded('link-cut', 'cut a-b/0, then "more"', 1, undefined, { acceptedAt: undefined, detail: { link: 'a-b/0' } })],
        },
      ),
    ]),
    cell('c2', { database: 'cassandra', latencyScale: 0.2 }, [
      phase('run', [second(1, { SCAN: { ok: 2, avgUs: 8000 } })], {
        events: [
          recorded('resize-add', 'add n4', 1, undefined, {
            acceptedAt: Date.UTC(2025, 0, 1, 12, 0, 2),
            completedAt: Date.UTC(2025, 0, 1, 12, 0, 31),
          }),
        ],
      }),
    ]),
  ];
  return { run: runRecord('exp', cells), cells };
};

describe('samples CSV', () => {
  it('has the documented columns with every coordinate as its own column after the cell', () => {
    const { run, cells } = records();
    const [header] = parseCsv(samplesCsv(run, cells));
    expect(header).toEqual(['run', 'cell', 'database', 'workload', 'latencyScale', ...SAMPLE_COLUMNS.slice(2)]);
  });

  it('writes one row per second per op type seen in the phase, zeros where a second had none', () => {
    const { run, cells } = records();
    const [header, ...rows] = parseCsv(samplesCsv(run, cells));
    const col = (name: string) => header.indexOf(name);
    // c1: 2 seconds x {READ, UPDATE}; c2: 1 second x {SCAN}.
    expect(rows).toHaveLength(5);
    const update2 = rows.find((r) => r[col('cell')] === 'c1' && r[col('elapsed_s')] === '2' && r[col('op')] === 'UPDATE')!;
    expect([update2[col('ok')], update2[col('failed')], update2[col('avg_latency_us')]]).toEqual(['0', '0', '']);
    const read1 = rows.find((r) => r[col('cell')] === 'c1' && r[col('elapsed_s')] === '1' && r[col('op')] === 'READ')!;
    expect([read1[col('ok')], read1[col('avg_latency_us')], read1[col('p95_latency_us')], read1[col('p99_latency_us')]]).toEqual([
      '10',
      '500',
      '1000',
      '1500',
    ]);
    expect(read1[col('time')]).toBe('2025-01-01T12:00:01.000Z');
    const scan = rows.find((r) => r[col('op')] === 'SCAN')!;
    expect([scan[col('latencyScale')], scan[col('workload')]]).toEqual(['0.2', '']);
  });
});

describe('events CSV', () => {
  it('has the documented columns, quotes awkward labels, and gives accept and complete delays in seconds', () => {
    const { run, cells } = records();
    const [header, ...rows] = parseCsv(eventsCsv(run, cells));
    expect(header).toEqual(['run', 'cell', 'database', 'workload', 'latencyScale', ...EVENT_COLUMNS.slice(2)]);
    const col = (name: string) => header.indexOf(name);
    expect(rows.map((r) => r[col('label')])).toEqual(['cut a-b/0, then "more"', 'add n4']);
    expect(JSON.parse(rows[0][col('detail')])).toEqual({ link: 'a-b/0' });
    expect([rows[1][col('accepted_after_s')], rows[1][col('completed_after_s')]]).toEqual(['1', '30']);
    expect(rows[0][col('accepted_at')]).toBe('');
  });
});

describe('JSON export', () => {
  it('holds the run and its cells exactly as recorded', () => {
    const { run, cells } = records();
    expect(JSON.parse(runJson(run, cells))).toEqual(JSON.parse(JSON.stringify({ run, cells })));
  });
});

describe('CLI: runs, export, report', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'fb-report-cli-'));
    const { run, cells } = records();
    const store = new ResultsStore(dir);
    await store.writeRun({ ...run, status: 'completed' });
    for (const c of cells) await store.writeCell(run.runId, c);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fragbench = (...args: string[]) =>
    execFileSync(process.execPath, [path.join(__dirname, '../../bin/fragbench.js'), ...args], {
      env: { ...process.env, FRAGBENCH_RESULTS_DIR: dir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('lists runs with id, scenario, status, start, cells and loss seed', () => {
    const [header, row] = fragbench('runs').trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['RUN', 'SCENARIO', 'STATUS', 'STARTED (UTC)', 'CELLS', 'LOSS SEED']);
    expect(row.split(/\s{2,}/)).toEqual(['exp', 'unit', 'completed', '2025-01-01 11:59:50', '2', '-']);
  }, 30_000);

  it('exports CSV beside the run by default and to --out with the events file beside it', () => {
    expect(fragbench('export', 'exp', '--format', 'csv').trim().split('\n')).toEqual([
      path.join(dir, 'exp', 'exp-samples.csv'),
      path.join(dir, 'exp', 'exp-events.csv'),
    ]);
    const out = path.join(dir, 'mine.csv');
    expect(fragbench('export', 'exp', '--format', 'csv', '--out', out).trim().split('\n')).toEqual([out, path.join(dir, 'mine-events.csv')]);
    expect(readFileSync(out, 'utf8').split('\n')[0]).toBe(
      'run,cell,database,workload,latencyScale,phase,elapsed_s,time,op,ok,failed,avg_latency_us,p95_latency_us,p99_latency_us',
    );
  }, 30_000);

  it('exports JSON, also given the run directory’s path', () => {
    const out = path.join(dir, 'all.json');
    fragbench('export', path.join(dir, 'exp'), '--format', 'json', '--out', out);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { cells: { cellId: string }[] }).cells.map((c) => c.cellId)).toEqual(['c1', 'c2']);
  }, 30_000);

  it('refuses an unknown format and a bad run id with exit code 2, naming the field', () => {
    const fails = (...args: string[]) => {
      try {
        fragbench(...args);
      } catch (err) {
        const e = err as { status: number; stderr: string };
        return { status: e.status, stderr: e.stderr };
      }
      throw new Error(`${args.join(' ')} succeeded`);
    };
    expect(fails('export', 'exp', '--format', 'xml')).toEqual({
      status: 2,
      stderr: expect.stringContaining("option '--format <format>' argument 'xml' is invalid. Allowed choices are csv, json.") as unknown,
    });
    expect(fails('report', '../../etc')).toEqual({ status: 2, stderr: expect.stringContaining('runId:') as unknown });
  }, 30_000);

  it('writes the report and prints its path', () => {
    const printed = fragbench('report', 'exp', '--no-png').trim();
    expect(printed).toBe(path.join(dir, 'exp', 'report', 'index.html'));
    expect(readFileSync(printed, 'utf8')).toMatch(/^<!doctype html>/);
  }, 30_000);
});
