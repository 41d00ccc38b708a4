/**
 * comparison.html from a reproduce directory built of stored runs (the report builders' records,
 * judged by the real verdict): the `published | ours | agrees?` table with its rule, the
 * re-planned cell's plan beside its figures, the figures drawn inline, and nothing the page
 * would load from elsewhere. Also through the CLI: `reproduce --resume <dir> --report-only`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planReproduction } from '../../cli/reproduce-plan';
import { writeComparison } from '../../cli/reproduce-report';
import { selectReproductions } from '../../core/reproduce/catalogue';
import { epochLabel } from '../../core/reproduce/experiment';
import { LATENCY_SCALES, LATENCY_WORKLOADS } from '../../core/reproduce/latency';
import { emptyLedger, withRun, type Ledger, type LedgerRun } from '../../core/reproduce/ledger';
import type { PhaseRecord } from '../../core/run-record';
import type { TelemetrySample } from '../../core/telemetry';
import { phaseVerdict } from '../../core/verdict';
import { writeJsonAtomic } from '../../platform/files';
import { ResultsStore } from '../../services/results/results-store';
import { cell, okSeries, phase, runRecord, T0 } from './builders';

jest.setTimeout(60_000);

const SECONDS = 6;
/** Throughput at scale 0.2; closed loop, so T(s) = T(0.2) x 0.2 / s (T(0.2)/T(1.0) = 5). */
const AT_X = { redis: { a: 380, c: 385, f: 258, e: 8 }, cassandra: { a: 154, c: 158, f: 105, e: 80 } };

function telemetry(startMs: number, busy: number): TelemetrySample[] {
  return Array.from({ length: SECONDS }, (_, i) => ({
    time: startMs + (i + 1) * 1000,
    intervalMs: 1000,
    hostBusyPercent: busy,
    hostIdlePercent: 100 - busy,
    cores: 2,
    memUsedMb: 2000,
    memAvailableMb: 6000,
    roles: { other: 5 },
    roleMaxPercent: 200,
    interfaces: {},
    links: {},
  }));
}

/** One latency cell: every epoch of the reproduction, each judged at `busy` % host CPU. */
function latencyCell(database: 'redis' | 'cassandra', busy: number) {
  const phases: PhaseRecord[] = [phase('flush', []), phase('load', [])];
  let start = T0;
  for (const w of LATENCY_WORKLOADS) {
    for (const s of LATENCY_SCALES) {
      const samples = okSeries(Array<number>(SECONDS).fill(Math.round((AT_X[database][w as 'a'] * 0.2) / s)), start);
      const t = telemetry(start, busy);
      phases.push(
        phase(epochLabel(w, s), samples, { telemetry: t, verdict: phaseVerdict({ phase: epochLabel(w, s), telemetry: t, probes: [], samples }) }),
      );
      start += SECONDS * 1000;
    }
  }
  return { ...cell('c1-lsf0.2', { latencyScale: 0.2 }, phases), cluster: { database, version: 'test', nonDefaultSettings: {} } };
}

const PLAN_STEP = '3 → 2 Cassandra nodes (seoul left out)';
const PLAN_BECAUSE = 'host-bound at 3 Cassandra nodes, 4 threads at 400 ops/s (host CPU ≥ 90 % in 100 % of seconds (threshold 10 %))';

let results: string;
let dir: string;
beforeAll(async () => {
  results = mkdtempSync(path.join(tmpdir(), 'fb-comparison-'));
  dir = path.join(results, 'reproduce-20260101-000000');
  const store = new ResultsStore(results);
  let ledger: Ledger = { ...emptyLedger(T0), repeat: { latency: 2 } };
  const at = { experiment: 'latency', startedAt: T0, status: 'completed' as const, finishedCells: [{ latencyScale: 0.2 }] };
  const runs: [LedgerRun, 'redis' | 'cassandra', number][] = [
    [{ ...at, part: 'redis', repetition: 1, runId: 'redis-r1', verdicts: [{ cell: { latencyScale: 0.2 }, verdict: 'ok' }] }, 'redis', 20],
    [
      {
        ...at,
        part: 'cassandra',
        repetition: 1,
        runId: 'cassandra-r1',
        verdicts: [{ cell: { latencyScale: 0.2 }, verdict: 'host-bound', why: 'host CPU ≥ 90 % in 100 % of seconds (threshold 10 %)' }],
      },
      'cassandra',
      95,
    ],
    [
      {
        ...at,
        part: 'cassandra',
        repetition: 1,
        runId: 'cassandra-r1-a2',
        attempt: 2,
        size: { nodes: ['singapore', 'pune'], loadHalvings: 0 },
        replan: { step: PLAN_STEP, because: PLAN_BECAUSE },
        verdicts: [{ cell: { latencyScale: 0.2 }, verdict: 'ok' }],
      },
      'cassandra',
      40,
    ],
    [{ ...at, part: 'redis', repetition: 2, runId: 'redis-r2', verdicts: [{ cell: { latencyScale: 0.2 }, verdict: 'ok' }] }, 'redis', 20],
    [{ ...at, part: 'cassandra', repetition: 2, runId: 'cassandra-r2', verdicts: [{ cell: { latencyScale: 0.2 }, verdict: 'ok' }] }, 'cassandra', 40],
  ];
  for (const [run, database, busy] of runs) {
    const c = latencyCell(database, busy);
    await store.writeRun({ ...runRecord(run.runId, [c]), status: 'completed', finishedAt: T0 + 100_000 });
    await store.writeCell(run.runId, c);
    ledger = withRun(ledger, run);
  }
  writeJsonAtomic(path.join(dir, 'ledger.json'), ledger);
  const planned = [await planReproduction(selectReproductions('latency')[0], 2)];
  await writeComparison(dir, planned, ledger, store);
});
afterAll(() => rmSync(results, { recursive: true, force: true }));

const page = () => readFileSync(path.join(dir, 'comparison.html'), 'utf8');
/** The text of each row of the table whose header row holds `firstColumn`. */
function rows(html: string, firstColumn: string): string[][] {
  const table = html.split('<table').find((t) => t.includes(`<th>${firstColumn}</th>`))!;
  return [...table.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]));
}

test('the published table: each entry with ours, whether it agrees and whether the published value is in our interval, the rule beside it', () => {
  const html = page();
  const table = rows(html, 'entry');
  expect(table.find((r) => r[0] === 'redis A T(0.2)/T(1.0)')).toEqual(['redis A T(0.2)/T(1.0)', '5–5.8', '5.00 [5.00, 5.00]', 'yes', 'yes']);
  expect(table.find((r) => r[0] === 'redis A T(0.2)/T(0.4)')).toEqual(['redis A T(0.2)/T(0.4)', '1.84', '2.00 [2.00, 2.00]', 'yes', 'no']);
  expect(table.find((r) => r[0] === 'cassandra A T(0.2)/T(0.4)')?.[3]).toBe('no');
  expect(table.find((r) => r[0] === 'redis B T(0.2)/T(1.0)')?.[2]).toMatch(/^not run here: workload B/);
  expect(table.map((r) => r[0])).toEqual(expect.arrayContaining(['MongoDB, every workload', 'MySQL Cluster, every workload']));
  expect(html).toMatch(
    /<div class="beside"><table class="comparison">.*<\/table><p class="rule">Rule: a ratio agrees when our median is inside its published range, or within 20 %/s,
  );
  expect(html).toContain('8 data nodes (one per site), client at Singapore');
  expect(html).toContain('Cassandra on 2 (singapore, pune');
});

test('the re-planned cell: its plan in the re-plan list and beside each of its figures; its host-bound first attempt is not counted', () => {
  const html = page();
  const note = `re-planned: ${PLAN_STEP}, ${PLAN_BECAUSE}`;
  expect(html).toContain(`<li>r1 cassandra latencyScale=0.2: ${note.replace(/'/g, '&#39;')}</li>`);
  const figures = rows(html, 'figure');
  const cassandraA = figures.find((r) => r[0] === 'cassandra · latencyScale=0.2 · a-lsf0p2 · throughput')!;
  expect(cassandraA.slice(2)).toEqual(['2 of 2 ok', '40 %, 40 %', `r1 ${note}`]);
  expect(figures.find((r) => r[0] === 'redis · latencyScale=0.2 · a-lsf0p2 · throughput')![4]).toBe('as planned');
  expect(html).toContain('verdicts: 48 of 48 measured figures ok');
});

test('the figures are drawn inline and the page loads nothing from elsewhere', () => {
  const html = page();
  expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
  const svgs = html.match(/<svg/g) ?? [];
  // Normalized throughput, the intervals, and one run-report figure per run of repetition 1.
  expect(svgs.length).toBeGreaterThanOrEqual(4);
  expect(html).toContain('Normalized throughput T(s)/T(5X) against the latency scale');
  expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
  expect(html).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
  expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\bsrc=/i);
});

test('`fragbench reproduce --resume <dir> --report-only` writes the page again, running nothing', () => {
  rmSync(path.join(dir, 'comparison.html'));
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  const result = spawnSync(process.execPath, [cli, 'reproduce', '--resume', dir, '--report-only'], {
    cwd: path.join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(`comparison: ${path.join(dir, 'comparison.md')} (and comparison.json, comparison.html)`);
  expect(rows(page(), 'entry').find((r) => r[0] === 'redis A T(0.2)/T(1.0)')?.[2]).toBe('5.00 [5.00, 5.00]');
});
