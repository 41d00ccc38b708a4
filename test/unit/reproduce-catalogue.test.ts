/**
 * The reproduction catalogue plans within its budgets on this host's planner (each experiment
 * under 30 minutes with its repetitions, the suite under 3 hours), and `reproduce --plan` prints
 * every experiment's scale and estimate without touching the host; `--durations` reads the ledgers.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planReproduction, type PlannedReproduction } from '../../cli/reproduce-plan';
import { REPRODUCTIONS, selectReproductions } from '../../core/reproduce/catalogue';
import { BUDGET } from '../../core/reproduce/experiment';

jest.setTimeout(60_000);

let planned: PlannedReproduction[];
beforeAll(async () => {
  planned = [];
  for (const r of REPRODUCTIONS) planned.push(await planReproduction(r));
});

test('every experiment of SPEC.md §4 has a reproduction, each with its scaling stated', () => {
  const sources = REPRODUCTIONS.map((r) => r.source).join(' ');
  for (const section of ['§4.1', '§4.2', '§4.3', '§4.4', '§4.5', '§4.6', '§4.7', '§4.8', '§4.9', '§4.10', 'timed events'])
    expect(sources).toContain(section);
  for (const r of REPRODUCTIONS) {
    for (const field of ['sites', 'records', 'durations', 'threads', 'why'] as const) expect(r.scaling[field].length).toBeGreaterThan(10);
    expect(r.publishedSetup.length).toBeGreaterThan(20);
  }
});

test('each experiment plans under 30 minutes with its repetitions, the suite under 3 hours', () => {
  for (const p of planned) {
    expect({ id: p.reproduction.id, over: p.estimate.totalS > BUDGET.perExperimentS }).toEqual({ id: p.reproduction.id, over: false });
    expect(p.estimate.repeat).toBeGreaterThanOrEqual(1);
  }
  expect(planned.reduce((s, p) => s + p.estimate.totalS, 0)).toBeLessThan(BUDGET.suiteS);
});

test('the latency reproduction runs each workload at each scale for both databases, under a ceiling the host carries', () => {
  const latency = planned.find((p) => p.reproduction.id === 'latency')!;
  for (const part of latency.parts) {
    const phases = part.plan.cells[0].phases.filter((p) => p.kind === 'run' && !p.warmup).map((p) => p.name);
    expect(phases).toEqual(['a', 'c', 'f', 'e'].flatMap((w) => [`${w}-lsf0p2`, `${w}-lsf0p4`, `${w}-lsf1`]));
    for (const phase of part.plan.cells[0].phases) if (phase.kind === 'run') expect(phase.ycsb.target).toBeGreaterThan(0);
  }
  expect(latency.parts.find((p) => p.id === 'cassandra')!.plan.cells[0].nodes.length).toBeLessThanOrEqual(3);
});

test('an unknown experiment is refused with the ids listed', () => {
  expect(() => selectReproductions('latncy')).toThrow(/no reproduction "latncy"; use all or one or more of: latency, traffic/);
  expect(() => selectReproductions(['traffic', 'latncy'])).toThrow(/no reproduction "latncy"/);
  expect(() => selectReproductions(['all', 'traffic'])).toThrow(/"all" runs every reproduction: give it alone/);
});

test("several experiments run once each, in the catalogue's order; none named is all", () => {
  expect(selectReproductions(['vm-packing', 'traffic', 'vm-packing']).map((r) => r.id)).toEqual(['traffic', 'vm-packing']);
  expect(selectReproductions([])).toHaveLength(REPRODUCTIONS.length);
});

test('asking more repetitions than the budget allows is planned, and flagged', async () => {
  const over = await planReproduction(selectReproductions('latency')[0], 9);
  expect(over.estimate.repeat).toBe(9);
  expect(over.estimate.overBudget).toMatch(/over the 30.0 min budget per experiment/);
});

test('`fragbench reproduce all --plan` lists every experiment with its scale and estimate, and the suite total', () => {
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  const result = spawnSync(process.execPath, [cli, 'reproduce', 'all', '--plan'], {
    cwd: path.join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  for (const r of REPRODUCTIONS) expect(result.stdout).toMatch(new RegExp(`^${r.id}: .*\\n  scale: sites `, 'm'));
  expect(result.stdout).toMatch(/estimate: [\d.]+ min per repetition x \d+ = [\d.]+ min/);
  expect(result.stdout).toMatch(/^all 11 reproductions: ~[\d.]+ min \(budget 180.0 min\)$/m);
  // The re-plan policy, and each part's steps if a cell is host-bound.
  expect(result.stdout).toMatch(/^re-plan policy: A cell whose verdict is host-bound or network-off runs again with one Cassandra data node fewer/m);
  expect(result.stdout).toContain('re-plan if host-bound: 3 → 2 Cassandra nodes (seoul left out), then client load halved');
});

describe('`fragbench reproduce --durations`', () => {
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  let results: string;
  beforeEach(() => (results = mkdtempSync(path.join(tmpdir(), 'fb-durations-'))));
  afterEach(() => rmSync(results, { recursive: true, force: true }));
  const durations = (...experiments: string[]) =>
    spawnSync(process.execPath, [cli, 'reproduce', ...experiments, '--durations'], {
      cwd: path.join(__dirname, '../..'),
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, FRAGBENCH_RESULTS_DIR: results },
    });

  test('with no reproduce directory: refused, naming the option and what to do', () => {
    const result = durations();
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--durations: no reproduce directory in .*fb-durations-.*run an experiment first/);
  });

  test("prints an experiment's real minutes from its ledger beside the plan, and the others as not run", () => {
    const start = Date.UTC(2026, 10, 26, 11, 56);
    const runs = ['redis', 'cassandra'].map((part, i) => ({
      experiment: 'traffic',
      part,
      repetition: 1,
      runId: `reproduce-traffic-${part}-r1`,
      status: 'completed',
      finishedCells: [],
      startedAt: start + i * 300_000,
      finishedAt: start + (i + 1) * 300_000,
    }));
    mkdirSync(path.join(results, 'reproduce-20261126-115638'));
    writeFileSync(path.join(results, 'reproduce-20261126-115638', 'ledger.json'), JSON.stringify({ createdAt: start, repeat: { traffic: 1 }, runs }));
    const result = durations('traffic', 'latency');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^traffic\s+[\d.]+ min\s+10\.0 min\s+1\s+0\s+2026-11-26 11:56 to 12:06\s+reproduce-20261126-115638$/m);
    expect(result.stdout).toMatch(/^latency\s+[\d.]+ min\s+not run$/m);
    expect(result.stdout).toMatch(/^suite, 1 of 2 experiments .*: 10\.0 min real against [\d.]+ min planned \(budget 180\.0 min\)$/m);
  });
});
