/**
 * comparison.html, comparison.md and the suite table from a reproduce directory of stored runs
 * made from the latency reproduction's own plan (test/support/reproduction-records.ts): one table
 * per experiment, `experiment | figure | published | ours | agrees | verdict`, with a row for
 * every published figure and claim and the counts it ends with; traffic read from the latency
 * runs; a figure flagged by its verdict never used; the figures drawn inline and nothing loaded
 * from elsewhere. Also through the CLI: `reproduce --resume <dir> --report-only --suite-table`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planSuite, type PlannedReproduction } from '../../cli/reproduce-plan';
import { README_MARKERS, readmeProblem, writeComparison } from '../../cli/reproduce-report';
import { selectReproductions } from '../../core/reproduce/catalogue';
import { emptyLedger, withRun, type Ledger } from '../../core/reproduce/ledger';
import { publishedIds } from '../../core/reproduce/published';
import { writeJsonAtomic } from '../../platform/files';
import { ResultsStore } from '../../services/results/results-store';
import { synthesizeRun, T0, type RecordModel } from '../support/reproduction-records';
import { runRecord } from './builders';

jest.setTimeout(90_000);

const EPOCH = /^[a-f]-lsf(\d+(?:p\d+)?)/;
/** Closed loop over round trips; Cassandra's A at 0.4 in repetition 1 flagged host-bound. */
function model(repetition: number): RecordModel {
  return {
    ok: (c) => {
      const m = EPOCH.exec(c.phase);
      const scale = m ? Number(m[1].replace('p', '.')) : 1;
      return Math.round(((c.cell.database === 'redis' ? 200 : 40) * (1 + repetition / 100) * 0.2) / scale);
    },
    bytesPerOp: (_, phase, [a, b]) => (a === 'client' || b === 'client' ? 1000 : 200) * (Number(EPOCH.exec(phase)?.[1].replace('p', '.')) || 1),
    verdict: (cell, phase) => (repetition === 1 && cell.database === 'cassandra' && phase === 'a-lsf0p4' ? 'host-bound' : 'ok'),
  };
}

let results: string;
let dir: string;
let planned: PlannedReproduction[];
beforeAll(async () => {
  results = mkdtempSync(path.join(tmpdir(), 'fb-comparison-'));
  dir = path.join(results, 'reproduce-20260101-000000');
  const store = new ResultsStore(results);
  planned = await planSuite(selectReproductions(['latency', 'traffic']));
  let ledger: Ledger = { ...emptyLedger(T0), repeat: { latency: 2, traffic: 2 } };
  const latency = planned[0];
  for (const repetition of [1, 2]) {
    for (const part of latency.parts) {
      const runId = `latency-${part.id}-r${repetition}`;
      const cells = synthesizeRun(part.plan, model(repetition));
      await store.writeRun({ ...runRecord(runId, cells), settings: { cells: part.plan.cells }, status: 'completed', finishedAt: T0 + 100_000 });
      for (const c of cells) await store.writeCell(runId, c);
      ledger = withRun(ledger, {
        experiment: 'latency',
        part: part.id,
        repetition,
        runId,
        status: 'completed',
        startedAt: T0,
        finishedCells: cells.map((c) => c.coordinates),
        verdicts: cells.map((c) => ({ cell: c.coordinates, verdict: 'ok' })),
      });
    }
  }
  writeJsonAtomic(path.join(dir, 'ledger.json'), ledger);
  writeFileSync(path.join(dir, 'README.md'), `# A project\n\nBefore.\n\n${README_MARKERS.begin}\nan older table\n${README_MARKERS.end}\n\nAfter.\n`);
  await writeComparison(dir, planned, ledger, store, { suiteTable: path.join(dir, 'suite.md'), readme: path.join(dir, 'README.md') });
});
afterAll(() => rmSync(results, { recursive: true, force: true }));

const page = () => readFileSync(path.join(dir, 'comparison.html'), 'utf8');
/** The rows of the section's table whose header row holds `firstColumn`. */
function rows(html: string, firstColumn: string, section?: string): string[][] {
  const scope = section ? html.slice(html.indexOf(`<section class="experiment" id="exp-${section}">`)) : html;
  const table = scope.split('<table').find((t) => t.includes(`<th>${firstColumn}</th>`))!;
  return [...table.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]));
}

test('one table per experiment: every published figure and claim with ours, whether it agrees and the verdict, then the counts', () => {
  const html = page();
  const table = rows(html, 'agrees', 'latency');
  expect(table.map((r) => r[1])).toEqual(publishedIds('latency'));
  const row = (id: string) => table.find((r) => r[1] === id)!;
  expect(row('lat-redis-a-x-2x')).toEqual([
    'latency',
    'lat-redis-a-x-2x',
    '1.84 ratio (times)',
    'Redis A T(0.2)/T(0.4) on 8 nodes, one sample per repetition: 2.00 [2.00, 2.00] (n = 2) from r1, r2',
    expect.stringMatching(
      /^agree: our interval meets 1.84 ± 20 % \(the interval holds the noise of each ratio as well; fewest operations counted \d+\)$/,
    ),
    'ok',
  ]);
  expect(html).toContain('<td class="agree">agree: our interval meets 1.84 ± 20 % (the interval holds');
  // Cassandra's A at 0.4 was host-bound in repetition 1: one sample, so undecided; never used.
  expect(row('lat-cassandra-a-x-2x')[4]).toBe('undecided: 1 sample: the rule needs an interval (2 or more)');
  expect(row('lat-mysql-e').slice(3)).toEqual([
    '–',
    expect.stringMatching(/^not comparable here: database not runnable here: MongoDB and MySQL Cluster/),
    '–',
  ]);
  expect(html).toMatch(
    /<p class="counts">Counts: agree \d+, disagree \d+, undecided \d+, not comparable here 7 \(database not runnable here: 4; judged under another id: 2; not run here \(time budget\): 1\)\.<\/p>/,
  );
  expect(html).toContain('<p class="beside">Beside lat-cassandra-a-x-2x: Cassandra A T(0.2)/T(0.4) by node count, per repetition: 8 nodes: ');
  expect(html).toMatch(/<p class="rule">Rules: A value agrees when our 95 % interval/);
});

test("the README's section: the rows compared, short, then the counts, each disagreement's cause and the run's time; the rest of the file kept", () => {
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  // The formatter leaves the generated range as written.
  expect(readme.startsWith(`# A project\n\nBefore.\n\n${README_MARKERS.begin}\n<!-- prettier-ignore-start -->\nFrom \``)).toBe(true);
  expect(readme.endsWith(`<!-- prettier-ignore-end -->\n${README_MARKERS.end}\n\nAfter.\n`)).toBe(true);
  expect(readme).toContain('reproduce-20260101-000000` (2 experiments, every experiment complete): **');
  expect(readme).not.toContain('an older table');
  expect(readme).toMatch(
    /\*\*[\d.]+ min real\*\* against [\d.]+ planned \(budget 180\)\. \*\*\d+ agree, \d+ disagree, \d+ undecided\*\*, \d+ not comparable here\./,
  );
  const section = readme.slice(readme.indexOf(README_MARKERS.begin), readme.indexOf(README_MARKERS.end));
  expect(section).toContain('| experiment | figure | published | ours | agrees | verdict |');
  // Only rows compared: none not comparable; ours short, the interval without where it came from.
  expect(section).not.toContain('lat-mysql-e');
  expect(section).toContain('| latency | lat-redis-a-x-2x | 1.84 ratio (times) | 2.00 [2.00, 2.00] (n = 2) | agree | ok |');
  expect(section).toMatch(/\| all \| {2}\| \d+ \| \d+ \| \d+ \| \d+ \(database not runnable here: \d+/);
  expect(section).toContain('Each disagreement and its cause:');
  expect(section).toContain('[suite.md](suite.md)');
});

test('a README without the two marker lines is refused, naming them', () => {
  const bare = path.join(dir, 'BARE.md');
  writeFileSync(bare, '# nothing to fill\n');
  expect(readmeProblem(bare)).toBe(
    `${bare} has no place for the table: put the line ${README_MARKERS.begin} and, below it, ${README_MARKERS.end} where the section goes`,
  );
  expect(readmeProblem(path.join(dir, 'none.md'))).toMatch(/does not exist: give the README to fill, e\.g\. --readme README\.md$/);
  expect(readmeProblem(path.join(dir, 'README.md'))).toBeUndefined();
});

test('the published set-up beside each deviation of ours', () => {
  const html = page();
  expect(html).toContain('<li>dataNodes: 8 VMs in a private cloud, each emulating one Azure datacenter (2 vCPU, 4 GB RAM, 40 GB disk)</li>');
  const deviations = rows(html, 'why', 'latency');
  expect(deviations.find((r) => r[0] === 'client threads')).toEqual([
    'client threads',
    'not stated',
    '1 for both databases (YCSB’s default threadcount)',
    expect.any(String),
  ]);
});

test('traffic is judged on the latency runs, and says so', () => {
  const html = page();
  const table = rows(html, 'agrees', 'traffic');
  expect(table.map((r) => r[1])).toEqual(publishedIds('traffic'));
  // Bytes per operation rise with the latency scale in the model: 1.0 over 0.2.
  expect(table.find((r) => r[1] === 'trf-x-pattern')![4]).toBe('agree: held in every one of 16');
  const md = readFileSync(path.join(dir, 'comparison.md'), 'utf8');
  expect(md).toContain("Parts read from another experiment's runs: redis (latency's runs), cassandra (latency's runs).");
  expect(md).toMatch(/^\| traffic \| trf-pair-redis-a \| 500–600 KB \| – \| not comparable here: ambiguous in the paper: /m);
});

test('the suite table: every row of every experiment, then the counts per experiment and in all', () => {
  const suite = readFileSync(path.join(dir, 'suite.md'), 'utf8');
  expect(suite).toMatch(/^# Reproducing the published results: the suite$/m);
  expect(suite).toContain('Filled from `');
  // Which experiments the run covered, and how to run the others, stay on the page it rewrites.
  expect(suite).toMatch(/This run covered 2 of the catalogue's \d+ experiments \(latency, traffic\); not run: .*overlay-paths/);
  expect(suite).toContain('fragbench reproduce all --suite-table docs/reproduce.md');
  expect(suite).toMatch(/^\| experiment \| figure \| published \| ours \| agrees \| verdict \|$/m);
  for (const id of [...publishedIds('latency'), ...publishedIds('traffic')]) expect(suite).toContain(` | ${id} | `);
  expect(suite).toMatch(/^\| experiment \| repetitions \| agree \| disagree \| undecided \| not comparable here \(why\) \|$/m);
  expect(suite).toMatch(
    /^\| latency \| 2 \| \d+ \| \d+ \| \d+ \| 7 \(database not runnable here: 4; judged under another id: 2; not run here \(time budget\): 1\) \|$/m,
  );
  expect(suite).toMatch(/^\| all \| {2}\| \d+ \| \d+ \| \d+ \| \d+ \(/m);
});

test('the figures are drawn inline and the page loads nothing from elsewhere', () => {
  const html = page();
  expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
  expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(4);
  expect(html).toContain('Normalized throughput T(s)/T(5X) against the latency scale');
  expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
  expect(html).not.toMatch(/url\(\s*["']?(https?:)?\/\//i);
  expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\bsrc=/i);
});

test('`fragbench reproduce --resume <dir> --report-only --suite-table <file>` writes the page and the table again, running nothing', () => {
  rmSync(path.join(dir, 'comparison.html'));
  rmSync(path.join(dir, 'suite.md'));
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  const result = spawnSync(process.execPath, [cli, 'reproduce', '--resume', dir, '--report-only', '--suite-table', path.join(dir, 'suite.md')], {
    cwd: path.join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, FRAGBENCH_RESULTS_DIR: results },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain(
    `comparison: ${path.join(dir, 'comparison.md')} (and comparison.json, comparison.html); suite table: ${path.join(dir, 'suite.md')}`,
  );
  expect(rows(page(), 'agrees', 'latency').find((r) => r[1] === 'lat-redis-a-x-2x')?.[4]).toMatch(/^agree/);
  expect(readFileSync(path.join(dir, 'suite.md'), 'utf8')).toContain(' | lat-redis-a-x-2x | ');
});
