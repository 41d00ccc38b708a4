/**
 * Re-planning a cell that was not `ok`: each verdict kind's step, each experiment's ladder and
 * floor on the real catalogue (every re-planned scenario still plans), the cap on re-plans, and
 * the ledger's resume of a re-planned cell (finished attempts never redone).
 */
import { planReproduction, type PlannedReproduction } from '../../cli/reproduce-plan';
import { aggregate } from '../../core/reproduce/aggregate';
import { partsSharingRuns, REPRODUCTIONS } from '../../core/reproduce/catalogue';
import { figureTable, markdownTable } from '../../core/reproduce/comparison-text';
import type { Figure } from '../../core/reproduce/figures';
import { emptyLedger, withRun, type CellSize, type Coordinates, type Ledger, type LedgerRun } from '../../core/reproduce/ledger';
import {
  cellProgress,
  planNote,
  REPLAN_POLICY,
  replanCells,
  replanDecision,
  replanLadder,
  scenarioAtSize,
  finishedUnderAnother,
  type ReplanContext,
} from '../../core/reproduce/replan';
import { loadScenario } from '../../operations/scenario/scenario-loader';

jest.setTimeout(60_000);

let planned: PlannedReproduction[];
beforeAll(async () => {
  planned = [];
  for (const r of REPRODUCTIONS) planned.push(await planReproduction(r));
});

const partOf = (experiment: string, part: string) => {
  const p = planned.find((x) => x.reproduction.id === experiment)!;
  return { reproductionPart: p.reproduction.parts.find((x) => x.id === part)!, plannedPart: p.parts.find((x) => x.id === part)! };
};
const cellsOf = (experiment: string, part: string) => {
  const { reproductionPart, plannedPart } = partOf(experiment, part);
  return replanCells(reproductionPart, plannedPart.plan);
};

const HOST = 'host CPU ≥ 90 % in 30 % of seconds (threshold 10 %)';

describe('each verdict kind on the link-removal reproduction’s Cassandra cell (3 nodes, 1 thread at 60 ops/s)', () => {
  let ctx: ReplanContext;
  let base: CellSize;
  beforeAll(() => {
    [{ context: ctx, base }] = cellsOf('link-removal', 'cassandra-tinc-defaults');
  });

  test('ok is kept', () => {
    expect(base.nodes).toEqual(['singapore', 'pune', 'seoul']);
    expect(replanDecision(ctx, base, 'ok', undefined, 0)).toEqual({ kind: 'keep' });
  });

  test('host-bound and network-off: one Cassandra node fewer first, the farthest not named by an event', () => {
    for (const verdict of ['host-bound', 'network-off'] as const) {
      expect(replanDecision(ctx, base, verdict, HOST, 0)).toEqual({
        kind: 'replan',
        size: { nodes: ['singapore', 'pune'], loadHalvings: 0 },
        step: '3 → 2 Cassandra nodes (seoul left out)',
        because: `${verdict} at 3 Cassandra nodes, 1 thread at 60 ops/s (${HOST})`,
      });
    }
  });

  test('client-bound: the client is the cause, so only the load could shrink, and one thread is the least', () => {
    expect(replanDecision(ctx, base, 'client-bound', 'ycsb ≥ 95 % of one core in 40 % of seconds (threshold 10 %)', 0)).toMatchObject({
      kind: 'not-reproducible',
      reason: expect.stringMatching(/one client thread is the least load/) as unknown,
    });
    // With threads to spare (overlay-paths: 4 at 200 ops/s) the load is halved and the nodes stay.
    const [{ context, base: four }] = cellsOf('overlay-paths', 'tinc-defaults');
    expect(replanDecision(context, four, 'client-bound', 'ycsb ≥ 95 % of one core', 0)).toMatchObject({
      kind: 'replan',
      size: { nodes: four.nodes, loadHalvings: 1 },
      step: 'client load halved: 4 threads at 200 ops/s → 2 threads at 100 ops/s',
    });
  });

  test('unjudged: a smaller plan would not judge it either, so it is reported, not re-planned', () => {
    expect(replanDecision(ctx, base, 'unjudged', undefined, 0)).toEqual({
      kind: 'report',
      reason: expect.stringMatching(/^unjudged: no telemetry/) as unknown,
    });
  });

  test('at the floor with one thread no step is left; once the re-plans are spent it is not reproducible here either', () => {
    const atFloor = { nodes: ['singapore', 'pune'], loadHalvings: 0 };
    const smallest = replanDecision(ctx, atFloor, 'host-bound', undefined, 1);
    expect(smallest.kind).toBe('not-reproducible');
    expect((smallest as { reason: string }).reason).toMatch(
      /the smallest plan ran \(2 Cassandra nodes, 1 thread at 60 ops\/s: 2 Cassandra nodes is the floor \(with one node beside the client/,
    );
    const spent = replanDecision(ctx, base, 'host-bound', HOST, REPLAN_POLICY.maxReplans);
    expect(spent).toEqual({
      kind: 'not-reproducible',
      reason: `still host-bound at 3 Cassandra nodes, 1 thread at 60 ops/s (${HOST}) after 2 re-plans (at most 2)`,
    });
  });
});

test('each experiment’s host-bound ladder: JVM nodes down to the stated floor, event nodes and layouts untouched, then half the load', () => {
  const ladders = Object.fromEntries(
    planned.flatMap((p) =>
      p.reproduction.parts.map((part) => [
        `${p.reproduction.id}/${part.id}`,
        [...new Set(cellsOf(p.reproduction.id, part.id).map((c) => replanLadder(c.context, c.base).join(' | ')))],
      ]),
    ),
  );
  const halved = (from: string, to: string) => `client load halved: ${from} → ${to}`;
  const fromFive = `${halved('5 threads at 600 ops/s', '3 threads at 300 ops/s')} | ${halved('3 threads at 300 ops/s', '2 threads at 150 ops/s')}`;
  // One client thread from the start (YCSB's default), and the node count is the figure: no smaller plan.
  for (const part of [
    'latency/redis',
    'latency/cassandra',
    'traffic/cassandra',
    'resize-on-the-fly/cassandra',
    'single-resize/cassandra',
    'offline-sizing/redis-sizes',
    'link-removal/redis-tinc-defaults',
    'timed-events/cassandra',
    'bursting/cassandra-virginia',
  ])
    expect({ part, ladder: ladders[part] }).toEqual({ part, ladder: [''] });
  // Cassandra on the link-removal mesh: one node fewer (seoul, not named by an event), then no load left to halve.
  expect(ladders['link-removal/cassandra-tinc-defaults']).toEqual(['3 → 2 Cassandra nodes (seoul left out)']);
  // A background load of several threads is halved.
  expect(ladders['single-resize/redis-lsf0p02']).toEqual([
    `${halved('4 threads at 200 ops/s', '2 threads at 100 ops/s')} | ${halved('2 threads at 100 ops/s', '1 thread at 50 ops/s')}`,
  ]);
  expect(ladders['overlay-paths/tinc-defaults']).toEqual([
    `${halved('4 threads at 200 ops/s', '2 threads at 100 ops/s')} | ${halved('2 threads at 100 ops/s', '1 thread at 50 ops/s')}`,
  ]);
  // A layout's node count is the figure: only the load shrinks, from 5 Redis threads.
  expect(ladders['bursting/redis-virginia']).toEqual([fromFive]);
  // Distance and horizontal run one Redis thread: no load is left to halve, so every compared cell runs the same threads.
  for (const part of ['distance/redis-sydney', 'horizontal/redis-virginia']) expect({ part, ladder: ladders[part] }).toEqual({ part, ladder: [''] });
});

test('every Cassandra part listing its own nodes states a floor, and every re-planned scenario of the catalogue still plans, at its size', async () => {
  for (const p of planned) {
    for (const part of p.reproduction.parts) {
      const { plannedPart } = partOf(p.reproduction.id, part.id);
      if (part.scenario.database?.name === 'cassandra' && Array.isArray(part.scenario.database.nodes))
        expect({ part: `${p.reproduction.id}/${part.id}`, floor: part.replan?.minDataNodes }).toEqual({
          part: `${p.reproduction.id}/${part.id}`,
          floor: expect.any(Number) as unknown,
        });
      const [cell] = replanCells(part, plannedPart.plan);
      let size = cell.base;
      for (let i = 0; i < REPLAN_POLICY.maxReplans; i++) {
        const d = replanDecision(cell.context, size, 'host-bound', undefined, i);
        if (d.kind === 'replan') size = d.size;
      }
      expect(size.nodes.length).toBeGreaterThanOrEqual(part.replan?.minDataNodes ?? cell.base.nodes.length);
      const { plan } = await loadScenario(scenarioAtSize(part.scenario, cell.base, size), 'offline');
      const replanned = plan.cells.find((c) => JSON.stringify(c.coordinates) === JSON.stringify(cell.coordinates))!;
      expect(replanned.nodes).toEqual(size.nodes);
      // Measured phases run the scenario's threads, halved; a warm-up may run its own (timed-events warms at the ramp's 15).
      const threads = replanned.phases.flatMap((ph) => (ph.kind === 'run' && !ph.warmup ? [ph.ycsb.threads] : []));
      expect(Math.max(...threads)).toBe(Math.max(1, Math.ceil(cell.context.base.threads / 2 ** size.loadHalvings)));
    }
  }
});

test('a re-plan halves ramped clients too and leaves the reproduction as it was', () => {
  const { reproductionPart } = partOf('timed-events', 'cassandra');
  const before = JSON.stringify(reproductionPart.scenario);
  const base = { nodes: ['lab1'], loadHalvings: 0 };
  const smaller = scenarioAtSize(reproductionPart.scenario, base, { ...base, loadHalvings: 1 });
  expect(smaller.ycsb).toMatchObject({ threads: 1 });
  const ramp = smaller.phases.find((p) => p.phase === 'run' && p.label === 'ramp');
  expect(ramp?.phase === 'run' && ramp.events?.filter((e) => e.clientStart).map((e) => e.clientStart)).toEqual([
    { name: 'c2', threads: 1 },
    { name: 'c3', threads: 2 },
    { name: 'c4', threads: 4 },
  ]);
  expect(JSON.stringify(reproductionPart.scenario)).toBe(before);
  // A run phase's own client settings are halved too; a phase without them keeps the scenario's.
  const withPhaseLoad = {
    ...reproductionPart.scenario,
    phases: [...reproductionPart.scenario.phases, { phase: 'run' as const, duration: 10, ycsb: { threads: 6, target: 100 } }],
  };
  expect(scenarioAtSize(withPhaseLoad, base, { ...base, loadHalvings: 1 }).phases.at(-1)).toMatchObject({ ycsb: { threads: 3, target: 50 } });
  const halved = scenarioAtSize(withPhaseLoad, base, { ...base, loadHalvings: 1 }).phases;
  expect(halved.find((p) => p.phase === 'run' && p.label === 'warm-up')).toMatchObject({ ycsb: { threads: 8 } });
  expect(halved.find((p) => p.phase === 'run' && p.label === 'ramp')).not.toHaveProperty('ycsb');
  // Fewer nodes where they live in the matrix (a layout) would change the figure: refused.
  const { reproductionPart: layouts } = partOf('bursting', 'cassandra-virginia');
  expect(() =>
    scenarioAtSize(layouts.scenario, { nodes: ['prv1', 'prv2', 'prv3'], loadHalvings: 0 }, { nodes: ['prv1', 'prv2'], loadHalvings: 0 }),
  ).toThrow(/needs the nodes listed in database.nodes/);
});

describe('the ledger across attempts: a resume runs only what is due', () => {
  const at = { experiment: 'link-removal', part: 'cassandra-tinc-defaults', repetition: 1 };
  const cell: Coordinates = {};
  const run = (over: Partial<LedgerRun>): LedgerRun => ({ ...at, runId: 'r1', status: 'completed', finishedCells: [cell], startedAt: 1, ...over });
  const hostBound = { cell, verdict: 'host-bound' as const, why: HOST };
  let cells: ReturnType<typeof replanCells>;
  beforeAll(() => {
    cells = cellsOf('link-removal', 'cassandra-tinc-defaults');
  });
  const progress = (ledger: Ledger) => cellProgress(ledger, at, cells)[0];

  test('nothing run: the first plan is due; another repetition or part is its own', () => {
    const ledger = withRun(emptyLedger(0), run({ verdicts: [{ cell, verdict: 'ok' }] }));
    expect(progress(emptyLedger(0)).next).toEqual({ attempt: 1, size: cells[0].base });
    expect(progress(ledger).next).toBeUndefined();
    expect(progress(ledger).decision).toEqual({ kind: 'keep' });
    expect(cellProgress(ledger, { ...at, repetition: 2 }, cells)[0].next?.attempt).toBe(1);
    expect(planNote(progress(ledger))).toBe('as planned');
  });

  test('host-bound at 3 nodes: the re-plan is due; an interrupted re-plan is due again, the first plan never', () => {
    let ledger = withRun(emptyLedger(0), run({ verdicts: [hostBound] }));
    const due = {
      attempt: 2,
      size: { nodes: ['singapore', 'pune'], loadHalvings: 0 },
      replan: { step: '3 → 2 Cassandra nodes (seoul left out)', because: expect.stringMatching(/^host-bound at 3 Cassandra nodes/) as unknown },
    };
    expect(progress(ledger).next).toEqual(due);
    ledger = withRun(ledger, run({ runId: 'r2', status: 'cancelled', finishedCells: [], attempt: 2, size: due.size }));
    expect(progress(ledger).next).toEqual(due);
    ledger = withRun(
      ledger,
      run({
        runId: 'r2',
        attempt: 2,
        size: due.size,
        replan: { step: due.replan.step, because: `host-bound at 3 Cassandra nodes, 1 thread at 60 ops/s (${HOST})` },
        verdicts: [{ cell, verdict: 'ok' }],
      }),
    );
    const done = progress(ledger);
    expect(done.next).toBeUndefined();
    expect(done.attempts.map((a) => [a.attempt, a.runId])).toEqual([
      [1, 'r1'],
      [2, 'r2'],
    ]);
    expect(planNote(done)).toBe(
      `re-planned: 3 → 2 Cassandra nodes (seoul left out), host-bound at 3 Cassandra nodes, 1 thread at 60 ops/s (${HOST})`,
    );
  });

  test('still host-bound at the smallest plan: no further attempt, and the note says not reproducible here', () => {
    let ledger = withRun(emptyLedger(0), run({ verdicts: [hostBound] }));
    ledger = withRun(
      ledger,
      run({
        runId: 'r2',
        attempt: 2,
        size: { nodes: ['singapore', 'pune'], loadHalvings: 0 },
        replan: { step: '3 → 2', because: 'host-bound at 3' },
        verdicts: [hostBound],
      }),
    );
    const p = progress(ledger);
    expect(p.next).toBeUndefined();
    expect(p.decision?.kind).toBe('not-reproducible');
    expect(planNote(p)).toMatch(
      /^re-planned: 3 → 2, host-bound at 3; not reproducible here: still host-bound at 2 Cassandra nodes, 1 thread at 60 ops\/s .*the smallest plan ran/,
    );
  });

  test('a later repetition starts where the earlier one ended, so every repetition runs one plan', () => {
    const smaller = { nodes: ['singapore', 'pune'], loadHalvings: 0 };
    let ledger = withRun(emptyLedger(0), run({ verdicts: [hostBound] }));
    ledger = withRun(
      ledger,
      run({ runId: 'r2', attempt: 2, size: smaller, replan: { step: '3 → 2', because: 'host-bound at 3' }, verdicts: [{ cell, verdict: 'ok' }] }),
    );
    const second = { ...at, repetition: 2 };
    expect(cellProgress(ledger, second, cells)[0].next).toEqual({
      attempt: 1,
      size: smaller,
      replan: {
        step: 'started at 2 Cassandra nodes, 1 thread at 60 ops/s, where repetition 1 ended',
        because: 'every repetition runs the same plan',
      },
    });
    // Host-bound there too: nothing smaller is left, so nothing more is due.
    ledger = withRun(ledger, run({ ...second, runId: 'r3', size: smaller, verdicts: [hostBound] }));
    expect(cellProgress(ledger, second, cells)[0].next).toBeUndefined();
    // A third repetition after one that ran as planned starts as planned.
    const asPlanned = withRun(emptyLedger(0), run({ verdicts: [{ cell, verdict: 'ok' }] }));
    expect(cellProgress(asPlanned, { ...at, repetition: 3 }, cells)[0].next).toEqual({ attempt: 1, size: cells[0].base });
  });

  test('a ledger from before re-planning (no verdicts) keeps its finished cells as final; unfinished cells stay due', () => {
    const layouts = cellsOf('bursting', 'redis-virginia');
    const ledger = withRun(emptyLedger(0), {
      experiment: 'bursting',
      part: 'redis-virginia',
      repetition: 1,
      runId: 'old',
      status: 'cancelled',
      finishedCells: [{ layout: '8_0' }],
      startedAt: 1,
    });
    const p = cellProgress(ledger, { experiment: 'bursting', part: 'redis-virginia', repetition: 1 }, layouts);
    expect(p.map((x) => [x.cell.layout, x.next?.attempt])).toEqual([
      ['8_0', undefined],
      ['4_4', 1],
      ['1_7', 1],
    ]);
  });
});

test('a resume naming only the experiment that shares runs uses the owner’s finished runs and runs only what they lack', () => {
  // offline-sizing's 8-node part is latency's Redis part (the same scenario).
  const { reproductionPart } = partOf('offline-sizing', 'redis');
  const shared = reproductionPart.sameRunsAs!;
  expect(shared).toEqual({ experiment: 'latency', part: 'redis' });
  const cells = cellsOf('offline-sizing', 'redis');
  const all = cells.map((c) => c.coordinates);
  const ownerRun = (over: Partial<LedgerRun>): LedgerRun => ({
    ...shared,
    repetition: 1,
    runId: 'latency-r1',
    status: 'completed',
    finishedCells: all,
    startedAt: 1,
    verdicts: all.map((cell) => ({ cell, verdict: 'ok' as const })),
    ...over,
  });
  const finished = withRun(emptyLedger(0), ownerRun({}));
  const sharing = partsSharingRuns({ experiment: 'offline-sizing', part: 'redis' });
  expect(sharing).toEqual([shared]);
  expect(finishedUnderAnother(finished, sharing, 1, cells)).toEqual(shared);
  // Another repetition, or a run cut short before a cell finished: run here.
  expect(finishedUnderAnother(finished, sharing, 2, cells)).toBeUndefined();
  expect(finishedUnderAnother(emptyLedger(0), sharing, 1, cells)).toBeUndefined();
  expect(
    finishedUnderAnother(withRun(emptyLedger(0), ownerRun({ status: 'cancelled', finishedCells: all.slice(1) })), sharing, 1, cells),
  ).toBeUndefined();
  // This part has no smaller plan: a host-bound cell is the owner's last word, not run again here.
  expect(cells.map((c) => replanLadder(c.context, c.base))).toEqual(cells.map(() => []));
  const hostBound = ownerRun({ verdicts: all.map((cell) => ({ cell, verdict: 'host-bound' as const, why: HOST })) });
  expect(finishedUnderAnother(withRun(emptyLedger(0), hostBound), sharing, 1, cells)).toEqual(shared);
});

test('a resume naming only the experiment whose runs are shared uses the sharer’s finished runs', () => {
  // latency's Redis part ran earlier as offline-sizing's (a directory where only offline-sizing was named).
  const sharing = partsSharingRuns({ experiment: 'latency', part: 'redis' });
  expect(sharing).toEqual([
    { experiment: 'traffic', part: 'redis' },
    { experiment: 'offline-sizing', part: 'redis' },
  ]);
  expect(partsSharingRuns({ experiment: 'resize-on-the-fly', part: 'cassandra' }).map((p) => p.experiment)).toEqual(['single-resize']);
  // A part nothing shares has nothing to reuse.
  expect(partsSharingRuns({ experiment: 'bursting', part: 'redis-virginia' })).toEqual([]);
  const cells = cellsOf('latency', 'redis');
  const all = cells.map((c) => c.coordinates);
  const sharerRun: LedgerRun = {
    experiment: 'offline-sizing',
    part: 'redis',
    repetition: 1,
    runId: 'offline-sizing-r1',
    status: 'completed',
    finishedCells: all,
    startedAt: 1,
    verdicts: all.map((cell) => ({ cell, verdict: 'ok' as const })),
  };
  expect(finishedUnderAnother(withRun(emptyLedger(0), sharerRun), sharing, 1, cells)).toEqual({ experiment: 'offline-sizing', part: 'redis' });
  expect(finishedUnderAnother(withRun(emptyLedger(0), { ...sharerRun, finishedCells: all.slice(1) }), sharing, 1, cells)).toBeUndefined();
});

test('the figures table says which plan produced each figure', () => {
  const figure = (value: number, plan: string, verdict: Figure['verdict'] = 'ok'): Figure => ({
    database: 'cassandra',
    cell: 'latencyScale=0.2',
    phase: 'a-lsf0p2',
    measure: 'throughput',
    unit: 'ops/s',
    value,
    verdict,
    plan,
  });
  const note = 're-planned: 3 → 2 Cassandra nodes (seoul left out), host-bound at 3 Cassandra nodes';
  const table = (figures: Figure[][]) => markdownTable(figureTable(aggregate(figures)));
  expect(table([[figure(100, note)], [figure(104, note)]])).toContain(`| 2 of 2 ok | – | ${note} |`);
  expect(table([[figure(100, 'as planned')], [figure(104, note)]])).toContain(`| r2 ${note} |`);
  expect(table([[figure(100, 'as planned')]])).toContain('| as planned |');
});
