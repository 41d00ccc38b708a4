/**
 * `fragbench compare` as a user runs it, on runs made from the stored fixture fx-single-resize
 * (test/report/fixtures/compare-runs.ts): the page written beside the runs and its path printed,
 * the same comparison as JSON, runs named by directory, and runs whose cells cannot be matched
 * refused with the reason and exit 2, writing nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fragbench, scratchEnv } from '../support/cli';
import { copySource, writeCompareRuns } from '../report/fixtures/compare-runs';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-compare-'));
const env = scratchEnv(scratch);
const ids = writeCompareRuns(env.FRAGBENCH_RESULTS_DIR);
const comparisons = path.join(env.FRAGBENCH_RESULTS_DIR, 'comparisons');

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('writes one self-contained page beside the runs and prints its path', async () => {
  const result = await fragbench(['compare', ...ids], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const page = result.stdout.trim();
  expect(page).toBe(path.join(comparisons, `compare-${ids.join('--')}.html`));
  const html = readFileSync(page, 'utf8');
  expect(html).toMatch(/^<!doctype html>/i);
  expect(html).toContain(`content="default-src 'none';`);
  expect(html).toContain('<h1>redis vs cassandra, by database</h1>');
});

test('--json: the same comparison as data, by the side asked for', async () => {
  const result = await fragbench(['compare', ids[0], ids[3], '--json', '--by', 'database'], env);
  expect(result.code).toBe(0);
  const comparison = JSON.parse(result.stdout) as {
    by: string;
    sides: { side: string; runIds: string[] }[];
    lines: { label: string; sides: { side: string; values: Record<string, unknown> }[]; differences: unknown[] }[];
  };
  expect(comparison.by).toBe('database');
  expect(comparison.sides).toEqual([
    { side: 'redis', runIds: [ids[0]] },
    { side: 'cassandra', runIds: [ids[3]] },
  ]);
  expect(comparison.lines.map((l) => l.label)).toEqual(['5X', 'X']);
  expect(Object.keys(comparison.lines[0].sides[0].values)).toContain('p99 latency (ms, median second)');
  expect(comparison.lines[0].differences).toHaveLength(1);
});

test('runs whose cells cannot be matched: exit 2 with the reason, no page', async () => {
  const before = existsSync(comparisons) ? readdirSync(comparisons) : [];
  // The whole fixture run holds Redis, Cassandra, MongoDB and MySQL cells; the Redis run only Redis's.
  const whole = copySource(scratch);
  const result = await fragbench(['compare', ids[0], whole, '--by', 'run'], env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^fragbench: invalid input\nruns: their cells cannot be matched \(compared by run/);
  expect(result.stderr).toContain(
    'run sr-redis-r1 has no cell at database=cassandra, latencyScale=1 (run fx-single-resize has c03-cassandra-lsf1 there)',
  );
  expect(existsSync(comparisons) ? readdirSync(comparisons) : []).toEqual(before);

  const choices = await fragbench(['compare', ids[0], ids[3], '--by', 'colour'], env);
  expect(choices.code).toBe(2);
  expect(choices.stderr).toMatch(/--by <side>' argument 'colour' is invalid\. Allowed choices are database, topology, scenario, run/);
});
