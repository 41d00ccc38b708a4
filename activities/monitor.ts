/**
 * The measurer measured: while a phase's workload runs, one activity stores beside its samples,
 * on the same clock, the host's telemetry every second (CPU per role, host idle, memory, bytes
 * per link) and in-run RTT probes of a few node pairs a second. Runs until the workflow cancels
 * it (when the phase's clients are done); everything it measured is already stored by then.
 */
import { Context } from '@temporalio/activity';
import { findNode, type Inventory } from '../core/inventory';
import { FleetNetwork } from '../infra/shaping/fleet-network';
import { execFor } from './exec/transports';
import { loadInventory } from './inventory-loader';
import { ping } from './probes/ping';
import { configuredRttMs, nextPairs, probePairs, type RttProbe } from './probes/rtt-probe';
import { ResultsStore } from './results-store';
import type { MonitorInput } from '../core/telemetry';

export type { MonitorInput } from '../core/telemetry';
import { startHostTelemetry } from './telemetry';


const DEFAULT_PROBES_PER_SECOND = 2;
/** One echo, given up after this long: a lost probe is a result (null), not an error. */
const PROBE_TIMEOUT_S = 1;

/** Pings the next pairs in rotation and stores what came back beside the configured RTT. */
function prober(inventory: Inventory, network: FleetNetwork, nodes: string[], perSecond: number, store: (probes: RttProbe[]) => Promise<void>) {
  const pairs = probePairs(inventory, [...new Set([...nodes, inventory.clientNode])]);
  let cursor = 0;
  let count = 0;
  return {
    get count() {
      return count;
    },
    async tick(): Promise<void> {
      const next = nextPairs(pairs, cursor, perSecond);
      cursor = next.cursor;
      const settings = network.settings();
      const probes = await Promise.all(
        next.batch.map(async (pair): Promise<RttProbe | undefined> => {
          const configuredMs = configuredRttMs(pair, settings);
          if (configuredMs === undefined) return undefined;
          const result = await ping(execFor(findNode(inventory, pair.from).exec), pair.address, 1, PROBE_TIMEOUT_S);
          return { time: Date.now(), from: pair.from, to: pair.to, measuredMs: result.samplesMs[0] ?? null, configuredMs };
        }),
      );
      const done = probes.filter((p): p is RttProbe => p !== undefined);
      count += done.length;
      await store(done);
    },
  };
}

/** Never returns by itself: it ends when cancelled (the workflow's way of saying the phase is over) or when a write fails. */
export async function monitorPhase(input: MonitorInput): Promise<void> {
  const ctx = Context.current();
  const inventory = await loadInventory(input.fleet);
  const store = new ResultsStore();
  const { runId, cellId, phaseIndex } = input.sink;
  let telemetrySeconds = 0;
  let failure: unknown;
  const keep = (work: Promise<void>) => work.catch((err) => (failure ??= err));

  const telemetry = await startHostTelemetry(inventory, (sample) => {
    telemetrySeconds++;
    void keep(store.appendStream(runId, cellId, phaseIndex, 'telemetry', [sample]));
  });
  const probes = prober(inventory, new FleetNetwork(inventory), input.nodes, input.probesPerSecond ?? DEFAULT_PROBES_PER_SECOND, (done) =>
    store.appendStream(runId, cellId, phaseIndex, 'probes', done),
  );
  let probing = false;
  const timer = setInterval(() => {
    ctx.heartbeat({ telemetrySeconds, probes: probes.count });
    // A probe still waiting for its reply (a cut link) is not doubled up by the next second's.
    if (probing) return;
    probing = true;
    void keep(probes.tick()).finally(() => (probing = false));
  }, 1000);
  try {
    // Until the workflow cancels it, or a write fails: a run never goes on with a hole in its evidence.
    await Promise.race([
      ctx.cancelled,
      new Promise<never>((_, reject) => {
        const check = setInterval(() => {
          if (failure !== undefined) {
            clearInterval(check);
            reject(failure);
          }
        }, 500);
        ctx.cancelled.catch(() => clearInterval(check));
      }),
    ]);
  } finally {
    clearInterval(timer);
    telemetry.stop();
  }
}
