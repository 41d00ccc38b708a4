/**
 * `npm run bench:validity`: is what a run reports the database's doing, or the tool's? Runs two
 * scenarios on the local fleet fhc-4 through the real engine, a light one (the quickstart's shape:
 * Redis on 4 sites, 8 threads at 400 ops/s, a resize, a cut, latency epochs; `ok` on a quiet host) and a deliberately overloaded one
 * (3 Cassandra nodes and 64 YCSB threads; Redis with 64 threads in `--short`), and prints for each:
 *   - samples per second of each client (must be 1.000) and YCSB JVM starts per client per phase
 *     (must be 1), counted from the processes telemetry saw, not from what the engine says;
 *   - the largest throughput dip at a multiple of 60 s that no event explains (must be none);
 *   - the emulator's RTT excess (p50, p99 of measured - configured) idle and under load, and the
 *     stack's RTT floor (the median excess);
 *   - the tool's own CPU per database operation by layer, and the monitor's (telemetry's) own CPU;
 *   - each run's verdict and the figures behind it (the overloaded one must not be `ok`);
 *   - resize acceptance and completion times.
 *
 *   npx tsx bench/validity.ts [--short]
 *
 * Needs root and no other local fleet up.
 */
import { namespaceOf } from '../infra/local/plan';
import { NetnsExec } from '../services/exec/transports';
import { loadInventory } from '../services/inventory/inventory-loader';
import { ping } from '../services/probes/ping';
import { median, quantile } from '../services/probes/quantile';
import { describeResize } from '../cli/run-follow';
import { findNode } from '../core/inventory';
import type { CellRecord, PhaseRecord } from '../core/run-record';
import type { TelemetrySample } from '../core/telemetry';
import { isDisturbance } from '../core/cell-timeline';
import { SHORT } from './args';
import { withEngine, type FinishedRun } from './engine';
import { runBenchmark, Targets } from './targets';

const say = (line = '') => console.log(line);
const targets = new Targets(say);
/** A dip the tool's own periodic work would leave (a JVM started every minute took a third of a second's operations). */
const UNEXPLAINED_DIP_PERCENT = 20;
const DATA_PATH_LAYERS = ['ycsb client', 'tinc', 'wireguard', 'emulator'];
const fmt = (x: number | undefined, digits = 2) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));

const YCSB = { workload: 'a', recordCount: 2000, fieldCount: 10, fieldLength: 8, timeoutMs: 2000, retries: 1 };

function lightScenario(): Record<string, unknown> {
  const duration = SHORT ? 30 : 150;
  return {
    name: 'validity-light',
    experiment: 'validity: light load',
    fleet: { local: 'fhc-4' },
    database: { name: 'redis', nodes: ['sydney', 'pune', 'singapore', 'seoul'] },
    ycsb: { ...YCSB, threads: 8, target: 400 },
    matrix: { latencyScale: [0.02] },
    phases: [
      { phase: 'flush' },
      { phase: 'load' },
      {
        phase: 'run',
        duration,
        events: SHORT
          ? [
              { at: 8, cut: 'sydney-pune/0' },
              { at: 16, restore: 'sydney-pune/0' },
              { at: 22, latency: 0.1 },
            ]
          : [
              { at: 5, remove: 'seoul' },
              { at: 30, cut: 'sydney-pune/0' },
              { at: 60, restore: 'sydney-pune/0' },
              { at: 105, latency: 0.1 },
              { at: 125, latency: 0.2 },
            ],
      },
    ],
  };
}

function overloadedScenario(): Record<string, unknown> {
  const database = SHORT ? 'redis' : 'cassandra';
  return {
    name: 'validity-overloaded',
    experiment: `validity: ${database} with 64 client threads`,
    fleet: { local: 'fhc-4' },
    database: { name: database, nodes: ['sydney', 'pune', 'singapore'] },
    ycsb: { ...YCSB, threads: 64, recordCount: SHORT ? 2000 : 5000 },
    matrix: { latencyScale: [0.02] },
    phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', duration: SHORT ? 20 : 120 }],
  };
}

/** Seconds with a sample / seconds the client's phase spanned. */
function samplesPerSecond(phase: PhaseRecord): number {
  if (phase.samples.length === 0) return 0;
  const span = phase.samples.at(-1)!.elapsedS - phase.samples[0].elapsedS + 1;
  return phase.samples.length / span;
}

/** YCSB JVMs telemetry saw during the phase: distinct PIDs of `ycsb…` roles. */
function jvmStarts(phase: PhaseRecord): number {
  const pids = new Set<number>();
  for (const t of phase.telemetry ?? [])
    for (const [role, list] of Object.entries(t.pids ?? {})) if (role.startsWith('ycsb')) list.forEach((p) => pids.add(p));
  return pids.size;
}

/**
 * The largest dip at a multiple of 60 s (a JVM started every minute would show there): the
 * second's throughput against the median of the 20 s around it, skipping seconds within 5 s after
 * any event (those are the scenario's doing).
 */
function largestUnexplainedDip(phase: PhaseRecord, originMs: number): { t: number; dipPercent: number } | undefined {
  const byT = new Map(phase.samples.map((s) => [s.elapsedS, s.okPerS]));
  const eventTs = phase.events.filter((e) => isDisturbance(e.kind)).map((e) => (e.requestedAt - originMs) / 1000);
  let worst: { t: number; dipPercent: number } | undefined;
  for (let t = 60; byT.has(t + 10); t += 60) {
    if (eventTs.some((e) => t >= e - 1 && t <= e + 5)) continue;
    const around = [...Array(21).keys()].map((i) => byT.get(t - 10 + i)).filter((v): v is number => v !== undefined);
    const level = median(around);
    const low = Math.min(...[t - 1, t, t + 1, t + 2].map((k) => byT.get(k) ?? level));
    const dipPercent = level > 0 ? (100 * (level - low)) / level : 0;
    if (!worst || dipPercent > worst.dipPercent) worst = { t, dipPercent };
  }
  return worst;
}

/** CPU-seconds per role over the phase, from per-second % of one core. */
function cpuSecondsByRole(telemetry: TelemetrySample[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const t of telemetry) for (const [role, pct] of Object.entries(t.roles)) total.set(role, (total.get(role) ?? 0) + pct / 100);
  return total;
}

/** Roles folded into the layers the issue names: each client, each node, the stack, the engine. */
function layerOf(role: string): string {
  if (role.startsWith('ycsb')) return 'ycsb client';
  if (role.startsWith('db:')) return 'database';
  return role;
}

function reportRun(label: string, finished: FinishedRun, idleExcess: number[], expectOk: boolean): void {
  const cell: CellRecord = finished.cells[0];
  say(`\n== ${label}: run ${finished.summary.runId}, ${finished.summary.status}`);
  const measured = cell.phases.filter((p) => p.name.startsWith('run'));
  for (const phase of measured) {
    targets.holds(`${label}, ${phase.name}: samples per second`, fmt(samplesPerSecond(phase), 3), '1.000', samplesPerSecond(phase) === 1);
    targets.holds(`${label}, ${phase.name}: YCSB JVMs seen`, String(jvmStarts(phase)), '1', jvmStarts(phase) === 1);
  }
  const main = measured[0];
  const origin = main.samples.length > 0 ? main.samples[0].time - main.samples[0].elapsedS * 1000 : 0;
  const dip = largestUnexplainedDip(main, origin);
  if (dip)
    targets.atMost(`${label}: largest dip at a multiple of 60 s no event explains (t=${dip.t} s)`, dip.dipPercent, UNEXPLAINED_DIP_PERCENT, ' %', {
      digits: 1,
    });
  else say('largest dip at a multiple of 60 s: none to judge (phase shorter than 70 s or every minute had an event)');

  const probes = (main.probes ?? []).filter((p) => p.measuredMs !== null);
  const loaded = probes.map((p) => p.measuredMs! - p.configuredMs).sort((a, b) => a - b);
  say(
    `RTT excess (measured - configured) idle: p50 ${fmt(median(idleExcess))} ms, p99 ${fmt(quantile(idleExcess, 0.99))} ms (${idleExcess.length} pings)`,
  );
  say(`RTT excess under load: p50 ${fmt(median(loaded))} ms, p99 ${fmt(quantile(loaded, 0.99))} ms (${loaded.length} probes); stack floor = the p50`);

  const telemetry = main.telemetry ?? [];
  const okOps = main.samples.reduce((n, s) => n + s.okPerS, 0);
  const byLayer = new Map<string, number>();
  for (const [role, seconds] of cpuSecondsByRole(telemetry)) byLayer.set(layerOf(role), (byLayer.get(layerOf(role)) ?? 0) + seconds);
  const perOp = [...byLayer].map(([layer, s]) => `${layer} ${fmt((s * 1e6) / Math.max(okOps, 1), 0)}`).join(', ');
  const usPerOp = (layers: string[]) =>
    ([...byLayer].filter(([layer]) => layers.includes(layer)).reduce((n, [, s]) => n + s, 0) * 1e6) / Math.max(okOps, 1);
  say(`CPU µs per database operation by layer (${okOps} ok ops): ${perOp}`);
  // The target is the data path's (the client and the network stack every operation crosses); the
  // worker and the Temporal server cost about the same per second whatever the rate.
  say(
    `the tool's own CPU per operation with the worker and Temporal ${fmt(usPerOp([...DATA_PATH_LAYERS, 'worker', 'temporal']), 0)} µs; ` +
      `host busy median ${fmt(median(telemetry.map((t) => t.hostBusyPercent)), 1)} %`,
  );
  // The data path's cost is judged on the light run, the one whose rate is set (the overloaded one measures the verdict).
  if (expectOk)
    targets.atMost(`${label}: data path CPU per operation (ycsb client, tinc, wireguard, emulator)`, usPerOp(DATA_PATH_LAYERS), 300, ' µs', {
      kind: 'speed',
      digits: 0,
    });
  const monitorCost = telemetry.map((t) => t.selfCpuPercent).filter((v): v is number => v !== undefined);
  targets.below(`${label}: telemetry's own CPU (median, % of one core)`, median(monitorCost), 2, ' %');

  const verdict = cell.summary.verdict;
  say(`verdict: ${verdict?.verdict ?? '-'}${verdict?.reasons.length ? ` (${verdict.reasons.map((r) => r.text).join('; ')})` : ''}`);
  const seen = verdict?.verdict ?? 'none';
  if (expectOk) targets.holds(`${label}: verdict`, seen, 'ok', seen === 'ok');
  else targets.holds(`${label}: verdict`, seen, 'not ok (flagged)', seen !== 'none' && seen !== 'ok');
  for (const r of cell.summary.resizes ?? []) say(`resize ${describeResize(r)}`);
}

/** RTT excess on an idle fleet: 100 pings (20 in --short) between every probed pair's first two nodes. */
async function idleExcess(): Promise<number[]> {
  const inventory = await loadInventory({ kind: 'local' });
  const link = inventory.links.find((l) => l.a === 'sydney' && l.b === 'pune') ?? inventory.links[0];
  const result = await ping(new NetnsExec(namespaceOf(link.a)), findNode(inventory, link.b).overlayAddress, SHORT ? 20 : 100, 0.05);
  // The fleet is at latency scale 1 between runs.
  return result.samplesMs.map((ms) => ms - link.latencyMs).sort((a, b) => a - b);
}

async function main(): Promise<void> {
  await withEngine('fhc-4', async (runScenario) => {
    const idle = await idleExcess();
    const light = await runScenario({ scenario: lightScenario() });
    reportRun('light load', light, idle, true);
    const overloaded = await runScenario({ scenario: overloadedScenario() });
    reportRun('overloaded', overloaded, idle, false);
  });
}

runBenchmark('validity', main, targets);
