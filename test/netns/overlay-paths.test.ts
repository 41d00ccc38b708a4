/**
 * The path a pair joined by two direct links takes, for real (three nodes as root): the faster
 * link with nothing cut, the other one a few seconds after the faster is cut (tinc's detection
 * under the `fast` profile plus a reconnect), the faster again a few seconds after its restore,
 * and the other one again when an event makes it the faster. Every hop shows `tcp`: a fleet with
 * two connection types carries data inside tinc's meta connections (infra/local/tinc.ts). The triangle at a fifth of
 * its latencies: two direct links of 42 and 28 ms, and a way round of 8 + 10 ms that tinc's
 * fewest-hops rule leaves unused while a direct link is up.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { changeLinkConditions, cutLink, resetNetwork, restoreLink } from '../../operations/network/network-operations';
import { startPhaseMonitor } from '../../operations/monitor/phase-monitor';
import { recordCell, recordRunStart } from '../../services/results/recording';
import { ResultsStore } from '../../services/results/results-store';
import { prepareRun } from '../../operations/scenario/scenario-loader';
import { buildReport } from '../../report/build-report';
import { renderHtml } from '../../report/html';
import { NetnsExec } from '../../services/exec/transports';
import { ping } from '../../services/probes/ping';
import { median } from '../../services/probes/quantile';
import { findNode } from '../../core/inventory';
import { fleetStatus } from '../../infra/local/status';
import { formatPath } from '../../infra/local/overlay-paths';
import { fleetPaths } from '../../infra/local/state';
import { sleep, waitFor } from '../../platform/wait';
import { useLocalFleet } from '../support/local-fleet';
import { linkedSites } from '../support/small-topology';

jest.setTimeout(120_000);

const fleet = { kind: 'local' } as const;

const TRIANGLE = linkedSites('paths', [
  ['op1', 'op3', 42],
  ['op1', 'op3', 28, 1],
  ['op1', 'op2', 8],
  ['op2', 'op3', 10],
]);

/** `fast` detects a dead meta connection in 1 + 1 s (tinc's whole seconds); a reconnect is a few round trips. */
const SETTLE_AFTER_CUT_MS = 7_000;
const SETTLE_AFTER_CHANGE_MS = 3_000;

const inventory = useLocalFleet(TRIANGLE);

async function rtt(count = 3): Promise<number | null> {
  const address = findNode(inventory(), 'op3').overlayAddress;
  const { samplesMs } = await ping(new NetnsExec('fb-op1'), address, count, 0.1);
  return samplesMs.length > 0 ? median(samplesMs) : null;
}

/** Milliseconds from now until op1's pings to op3 take `targetMs` (within 3 ms), at most `withinMs`. */
async function msUntilRtt(targetMs: number, withinMs: number): Promise<number> {
  const start = Date.now();
  const seen: string[] = [];
  await waitFor(
    async () => {
      const ms = await rtt();
      seen.push(`${Date.now() - start} ms: ${ms?.toFixed(1) ?? 'no reply'}`);
      return ms !== null && Math.abs(ms - targetMs) <= 3 ? ms : undefined;
    },
    { what: `op1-op3 at ${targetMs} ms`, timeoutMs: withinMs, intervalMs: 100 },
  ).catch(async (e: Error) => {
    // Both ends, all but the graph dumps steering asks for: a redial on a restored link was seen
    // closed without a reason in op1's lines (CI, 2026-11-26).
    const dump = /tinc\[\d+\]:( {2}| (Statistics for|Nodes:|Edges:|Subnet list:|End of|Got USR2))/;
    const tincLog = (node: string) =>
      readFileSync(fleetPaths.log(`tinc-${node}`), 'utf8')
        .trim()
        .split('\n')
        .filter((l) => !dump.test(l))
        .slice(-20)
        .join(' | ');
    throw new Error(
      `${e.message}; RTTs seen: ${seen.join(', ')}; path now ${await pathNow()}; op1's tinc: ${tincLog('op1')}; op3's tinc: ${tincLog('op3')}`,
    );
  });
  return Date.now() - start;
}

async function pathNow(): Promise<string> {
  return formatPath((await fleetStatus()).paths!.find((p) => p.from === 'op1' && p.to === 'op3')!);
}

test('a pair joined by two links uses the faster that is up, and settles within seconds of every change', async () => {
  expect(Math.abs((await rtt(10))! - 28)).toBeLessThanOrEqual(2);
  expect(await pathNow()).toBe('op1 =op1-op3/1 tcp=> op3');

  await cutLink({ fleet, link: 'op1-op3/1' });
  const afterCut = await msUntilRtt(42, SETTLE_AFTER_CUT_MS);
  expect(await pathNow()).toBe('op1 =op1-op3/0 tcp=> op3');

  await restoreLink({ fleet, link: 'op1-op3/1' });
  const afterRestore = await msUntilRtt(28, SETTLE_AFTER_CHANGE_MS);
  expect(await pathNow()).toBe('op1 =op1-op3/1 tcp=> op3');

  // Type 0 made the faster (10 ms): the pair moves to it without anything cut.
  await changeLinkConditions({ fleet, target: { link: 'op1-op3/0' }, change: { set: { latencyMs: 10 } } });
  const afterChange = await msUntilRtt(10, SETTLE_AFTER_CHANGE_MS);
  expect(await pathNow()).toBe('op1 =op1-op3/0 tcp=> op3');

  // Both direct links cut: the way round (8 + 10 ms), tinc's rule once no direct link is left.
  await cutLink({ fleet, link: 'op1-op3/1' });
  await cutLink({ fleet, link: 'op1-op3/0' });
  await msUntilRtt(18, SETTLE_AFTER_CUT_MS);
  expect(await pathNow()).toBe('op1 =op1-op2/0 tcp=> op2 =op2-op3/0 tcp=> op3');
  console.log(`settled after the cut in ${afterCut} ms, the restore in ${afterRestore} ms, the latency change in ${afterChange} ms`);
});

test('a phase records each pair’s path at its start and each change after a cut; the run’s inventory and report show them', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-paths-run-'));
  try {
    await resetNetwork({ fleet });
    await msUntilRtt(28, SETTLE_AFTER_CUT_MS + SETTLE_AFTER_CHANGE_MS);
    const topologyFile = path.join(dir, 'paths.yaml');
    writeFileSync(topologyFile, stringify(TRIANGLE));
    const scenario = {
      name: 'fb-paths',
      experiment: 'A cut the overlay routes around',
      fleet: { local: topologyFile },
      database: { name: 'cassandra', nodes: ['op3'] },
      phases: [{ phase: 'run', duration: 20 }],
    };
    const { record } = await prepareRun({ runId: 'fb-paths-run', scenario });
    expect(record.inventory.overlay?.paths?.map((p) => `${p.from}-${p.to}: ${formatPath(p)}`)).toContain('op1-op3: op1 =op1-op3/1 tcp=> op3');
    const store = new ResultsStore(path.join(dir, 'results'));
    process.env.FRAGBENCH_RESULTS_DIR = store.root;
    await recordRunStart(store, record);

    const monitor = await startPhaseMonitor(
      { fleet, sink: { runId: record.runId, cellId: 'c1', phaseIndex: 0 }, nodes: ['op2', 'op3'], probesPerSecond: 1 },
      () => undefined,
    );
    await sleep(1500);
    await cutLink({ fleet, link: 'op1-op3/1' });
    await msUntilRtt(42, SETTLE_AFTER_CUT_MS);
    // The watch reads the paths once a second: the change is in the stream by the next one.
    await sleep(2000);
    monitor.stop();

    await recordCell(store, record.runId, {
      cellId: 'c1',
      coordinates: {},
      phases: [{ name: 'run', samples: [], events: [], rtt: [], traffic: [], resizes: [] }],
    });
    const cell = await store.readCell(record.runId, 'c1');
    const op13 = (cell.phases[0].paths ?? []).filter((p) => p.from === 'op1' && p.to === 'op3').map(formatPath);
    expect(op13[0]).toBe('op1 =op1-op3/1 tcp=> op3');
    expect(op13.at(-1)).toBe('op1 =op1-op3/0 tcp=> op3');

    const html = renderHtml(buildReport(await store.readRun(record.runId), [cell]), new Map());
    const table = html.slice(html.indexOf('<section id="table-path-changes">'));
    // Straight to the other link, or through a moment without a meta connection (`?`) or the way round.
    expect(table).toMatch(/<td>op1-op3<\/td><td>op1 =op1-op3\/1 tcp=&gt; op3<\/td><td>[^<]+<\/td><\/tr>/);
    expect(table).toContain('<td>op1 =op1-op3/0 tcp=&gt; op3</td></tr>');
    expect(html).toContain('<dt>op1-op3</dt><dd>op1 =op1-op3/1 tcp=&gt; op3</dd>');
    console.log(`op1-op3's paths as the phase recorded them: ${op13.join(' | ')}`);
  } finally {
    delete process.env.FRAGBENCH_RESULTS_DIR;
    await restoreLink({ fleet, link: 'op1-op3/1' }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});
