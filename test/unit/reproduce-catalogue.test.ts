/**
 * The reproduction catalogue: one reproduction per experiment of published-results.json, each
 * naming every one of its published figures and claims as compared or not compared (with why),
 * each stating its deviations from the published set-up, parts that share another's runs running
 * the same scenario, all planned within the budgets on this host's planner (each experiment under
 * 30 minutes with its repetitions, the suite under 3 hours); `reproduce --plan` (and `--json`)
 * print it without touching the host; `--durations` reads the ledgers.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planReproduction, planSuite, type PlannedReproduction, type SuitePlanJson } from '../../cli/reproduce-plan';
import { REPRODUCTIONS, selectReproductions } from '../../core/reproduce/catalogue';
import { coverageProblems } from '../../core/reproduce/comparison';
import { BUDGET } from '../../core/reproduce/experiment';
import { publishedEntry, publishedExperimentIds, publishedIds } from '../../core/reproduce/published';

jest.setTimeout(60_000);

let planned: PlannedReproduction[];
beforeAll(async () => {
  planned = await planSuite(REPRODUCTIONS);
});

test('one reproduction per experiment of published-results.json, in its order, every SPEC.md §4 section among their sources', () => {
  expect(REPRODUCTIONS.map((r) => r.id)).toEqual(publishedExperimentIds());
  const sources = REPRODUCTIONS.map((r) => r.source).join(' ');
  for (const section of ['§4.1', '§4.2', '§4.3', '§4.4', '§4.5', '§4.6', '§4.7', '§4.8', '§4.9', '§4.10', 'timed events'])
    expect(sources).toContain(section);
});

test('every published figure and claim of every experiment is compared or listed as not compared, once, with a reason', () => {
  expect(REPRODUCTIONS.flatMap(coverageProblems)).toEqual([]);
  for (const r of REPRODUCTIONS) {
    for (const n of r.notCompared) expect(n.reason.length).toBeGreaterThan(20);
    for (const c of r.compares) expect(c.ours.length).toBeGreaterThan(20);
  }
  // A reproduction naming an id of another experiment, or one twice, or leaving one out, is caught.
  const [latency] = selectReproductions('latency');
  expect(coverageProblems({ ...latency, notCompared: latency.notCompared.slice(1) })).toEqual([
    `latency: ${latency.notCompared[0].id} is neither compared nor listed as not compared`,
  ]);
  expect(
    coverageProblems({ ...latency, notCompared: [...latency.notCompared, { id: 'trf-d-order', group: 'not a measured result', reason: 'x' }] }),
  ).toEqual(['latency: trf-d-order is not in its entry of published-results.json']);
});

test('an id listed as not runnable here is about a database this host cannot run', () => {
  for (const r of REPRODUCTIONS) {
    for (const n of r.notCompared.filter((x) => x.group === 'database not runnable here')) {
      const entry = publishedEntry(r.id, n.id);
      const about = 'figure' in entry ? `${entry.figure.database} ${entry.figure.id}` : `${entry.claim.claim} ${entry.claim.id}`;
      expect({ id: n.id, about: /mongodb|mysql|riak|couchdb/i.test(about) }).toEqual({ id: n.id, about: true });
    }
  }
});

test('every experiment states its deviations from the published set-up, and those the issue names are there', () => {
  for (const r of REPRODUCTIONS) {
    expect(r.deviations.length).toBeGreaterThan(0);
    for (const d of r.deviations)
      for (const field of ['what', 'published', 'ours', 'why'] as const) expect(d[field].trim().length).toBeGreaterThan(0);
  }
  const deviation = (id: string, what: string) => selectReproductions(id)[0].deviations.find((d) => d.what === what);
  expect(deviation('link-removal', 'failover')?.ours).toMatch(/^tinc-defaults .*and fast beside it as a second curve/);
  expect(deviation('overlay-paths', 'failover timers')?.ours).toMatch(/^tinc-defaults .*fast/);
  expect(deviation('latency', 'Cassandra data nodes')?.ours).toMatch(/^8, one per site/);
  expect(deviation('resize-on-the-fly', 'load')?.ours).toMatch(/closed-loop/);
  expect(deviation('timed-events', 'where the overload is')).toBeDefined();
  expect(deviation('traffic', 'what is counted')?.ours).toMatch(/per pair/);
});

test('a part that reads another reproduction’s runs runs the same scenario, and its reproduction the same repetitions', () => {
  for (const r of REPRODUCTIONS) {
    for (const part of r.parts.filter((p) => p.sameRunsAs)) {
      const owner = selectReproductions(part.sameRunsAs!.experiment)[0].parts.find((p) => p.id === part.sameRunsAs!.part)!;
      expect(part.scenario).toEqual(owner.scenario);
      expect(r.defaultRepeat).toBe(selectReproductions(part.sameRunsAs!.experiment)[0].defaultRepeat);
    }
  }
  const traffic = planned.find((p) => p.reproduction.id === 'traffic')!;
  expect(traffic.parts.map((p) => p.runsUnder)).toEqual([
    { experiment: 'latency', part: 'redis' },
    { experiment: 'latency', part: 'cassandra' },
  ]);
  expect(traffic.estimate.totalS).toBe(0);
});

test('each experiment plans under 30 minutes with its repetitions, the suite under 3 hours', () => {
  for (const p of planned) {
    expect({ id: p.reproduction.id, over: p.estimate.totalS > BUDGET.perExperimentS }).toEqual({ id: p.reproduction.id, over: false });
    expect(p.estimate.repeat).toBeGreaterThanOrEqual(1);
  }
  expect(planned.reduce((s, p) => s + p.estimate.totalS, 0)).toBeLessThan(BUDGET.suiteS);
});

test('the latency reproduction: both databases on the 8 sites with one thread, A at three scales and B, E, F at two, then Cassandra shrunk for the trend', () => {
  const latency = planned.find((p) => p.reproduction.id === 'latency')!;
  const epochs = ['a-lsf0p2', 'a-lsf0p4', 'a-lsf1', 'b-lsf0p2', 'b-lsf1', 'e-lsf0p2', 'e-lsf1', 'f-lsf0p2', 'f-lsf1'];
  for (const part of latency.parts) {
    const cell = part.plan.cells[0];
    expect(cell.nodes).toHaveLength(8);
    const runs = cell.phases.filter((p) => p.kind === 'run' && !p.warmup);
    expect(runs.map((p) => p.name)).toEqual(
      part.id === 'redis' ? epochs : [...epochs, 'a-lsf0p2-nodes4', 'a-lsf0p4-nodes4', 'a-lsf0p2-nodes2', 'a-lsf0p4-nodes2'],
    );
    for (const phase of runs)
      if (phase.kind === 'run') expect(phase.ycsb).toMatchObject({ threads: 1, recordCount: 10_000, target: expect.any(Number) as unknown });
  }
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

test('`fragbench reproduce all --plan` lists every experiment with its deviations, what it compares and not, its estimate, and the suite total', () => {
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  const result = spawnSync(process.execPath, [cli, 'reproduce', 'all', '--plan'], {
    cwd: path.join(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  for (const r of REPRODUCTIONS) expect(result.stdout).toMatch(new RegExp(`^${r.id}: .*\\n  deviations from the published set-up:\\n {4}- `, 'm'));
  expect(result.stdout).toMatch(/estimate: [\d.]+ min per repetition x \d+ = [\d.]+ min/);
  expect(result.stdout).toMatch(/^all 13 reproductions: ~[\d.]+ min \(budget 180.0 min\)$/m);
  // The re-plan policy, and each part's steps if a cell is host-bound.
  expect(result.stdout).toMatch(/^re-plan policy: A cell whose verdict is host-bound or network-off runs again with one Cassandra data node fewer/m);
  expect(result.stdout).toContain('re-plan if host-bound: 3 → 2 Cassandra nodes (seoul left out) (floor 2 data nodes');
  expect(result.stdout).toContain("  part redis: the runs of latency's part redis (the same scenario), run once");
  expect(result.stdout).toMatch(/^ {4}- failover: published tinc with unstated settings; re-routes took 30-40 s; ours tinc-defaults/m);
  expect(result.stdout).toMatch(/^ {4}- lat-mysql-e: database not runnable here: /m);
});

describe('`fragbench reproduce all --plan --json`', () => {
  const cli = path.join(__dirname, '../../bin/fragbench.js');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [cli, 'reproduce', ...args], { cwd: path.join(__dirname, '../..'), encoding: 'utf8', timeout: 60_000 });

  test('13 experiments, every figure and claim id of published-results.json compared or not compared, deviations each, at most 180 minutes', () => {
    const result = run('all', '--plan', '--json');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const plan = JSON.parse(result.stdout) as SuitePlanJson;
    expect(plan.experiments.map((e) => e.id)).toEqual(publishedExperimentIds());
    for (const e of plan.experiments) {
      const named = [...e.compares, ...e.notCompared.map((n) => n.id)];
      expect({ id: e.id, named: [...named].sort() }).toEqual({ id: e.id, named: [...publishedIds(e.id)].sort() });
      expect(new Set(named).size).toBe(named.length);
      expect(e.notCompared.every((n) => n.reason.length > 0)).toBe(true);
      expect(e.deviations.length).toBeGreaterThan(0);
      for (const d of e.deviations) expect(Object.keys(d).sort()).toEqual(['ours', 'published', 'what', 'why']);
      expect(e.estimatedMinutes).toBeGreaterThanOrEqual(0);
    }
    expect(plan.totalMinutes).toBeLessThanOrEqual(180);
    expect(plan.totalMinutes).toBeCloseTo(
      plan.experiments.reduce((s, e) => s + e.estimatedMinutes, 0),
      0,
    );
    // Traffic reads the latency runs: it adds nothing to the suite, but costs its own minutes when run alone.
    expect(plan.experiments.find((e) => e.id === 'traffic')).toMatchObject({
      estimatedMinutes: 0,
      sharesRunsWith: [
        { part: 'redis', experiment: 'latency' },
        { part: 'cassandra', experiment: 'latency' },
      ],
    });
    const alone = JSON.parse(run('traffic', '--plan', '--json').stdout) as SuitePlanJson;
    expect(alone.experiments[0].estimatedMinutes).toBeGreaterThan(10);
  });

  test('--json without --plan is refused, naming the option', () => {
    const result = run('latency', '--json');
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--json: prints the plan only: give it with --plan/);
  });

  test('--readme naming a file without the marker lines is refused before anything runs, naming the lines', () => {
    const bare = path.join(mkdtempSync(path.join(tmpdir(), 'fb-readme-')), 'README.md');
    writeFileSync(bare, '# no place for the table\n');
    const result = run('latency', '--readme', bare);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`--readme: ${bare} has no place for the table: put the line <!-- fragbench reproduce: begin --> and, below it`);
    expect(result.stdout).toBe('');
    rmSync(path.dirname(bare), { recursive: true });
  });
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
