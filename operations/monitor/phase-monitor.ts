/**
 * The measurer measured: while a phase's workload runs, the monitor stores beside its samples, on
 * the same clock, the host's telemetry every second (CPU per role, host idle, memory, bytes per
 * link) and in-run RTT probes of a few node pairs a second, the local overlay's path per pair
 * after each network change (path-watch.ts), and supervises the fleet's daemons and the
 * database's members. It runs until stopped; everything it measured is stored by then.
 * The monitorPhase activity (activities/monitor.ts) runs it until the workflow cancels it.
 */
import { findNode, type Inventory } from '../../core/inventory';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import { execFor } from '../../services/exec/transports';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { ping } from '../../services/probes/ping';
import { expectedRttMs, nextPairs, probePairs, type RttProbe } from '../../services/probes/rtt-probe';
import { ResultsStore } from '../../services/results/results-store';
import type { MonitorInput } from '../../core/telemetry';
import type { RecordedEvent } from '../../core/events';
import { deadDaemons, restart } from '../../infra/local/heal';
import { oomCause, oomKills } from '../../platform/oom';
import type { FleetProcess } from '../../infra/local/state';
import type { DatabaseAdapter } from '../../core/database';
import { adapterFor } from '../../services/databases/registry';
import { startHostTelemetry } from '../telemetry/host-telemetry';
import { pathWatch, type PathWatch } from './path-watch';

const DEFAULT_PROBES_PER_SECOND = 2;
/** One echo, given up after this long: a lost probe is a result (null), not an error. */
const PROBE_TIMEOUT_S = 1;

/** Pings the next pairs in rotation and stores what came back beside the configured RTT. */
function prober(
  inventory: Inventory,
  network: FleetNetwork,
  nodes: string[],
  perSecond: number,
  store: (probes: RttProbe[]) => Promise<void>,
  pathOf?: PathWatch['pathOf'],
) {
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
          const configuredMs = expectedRttMs(pair, settings, pathOf?.(pair.from, pair.to));
          if (configuredMs === undefined) return undefined;
          // No route (a node whose overlay daemon just died) is a lost probe too, not a broken monitor.
          const result = await ping(execFor(findNode(inventory, pair.from).exec), pair.address, 1, PROBE_TIMEOUT_S).catch(() => undefined);
          return { time: Date.now(), from: pair.from, to: pair.to, measuredMs: result?.samplesMs[0] ?? null, configuredMs };
        }),
      );
      const done = probes.filter((p): p is RttProbe => p !== undefined);
      count += done.length;
      await store(done);
    },
  };
}

/**
 * Supervision of the local fleet's daemons, once a second: a dead one is restarted with its
 * configuration and recorded as a `tool-fault` event in the phase (detected, restarted, cause).
 */
function supervisor(originMs: number, store: (fault: RecordedEvent) => Promise<void>) {
  let oomBefore = oomKills();
  return async function supervise(): Promise<void> {
    const dead = deadDaemons();
    if (dead.length === 0) return;
    const oomNow = oomKills();
    // The daemons are not children of the worker: their exit status cannot be read.
    const cause = oomCause(oomBefore, oomNow) ?? 'exited; not a child of the worker, so its exit status is unknown';
    oomBefore = oomNow;
    for (const died of dead) {
      const detectedAt = Date.now();
      const label = `${died.program} ${died.owner} died`;
      try {
        const done = await restart(died, detectedAt, cause);
        await store(
          faultEvent(
            'tool-fault',
            label,
            originMs,
            detectedAt,
            { ...describe(died), cause, restartedPid: done.replacement.pid, restartSeconds: (done.restartedAt - detectedAt) / 1000 },
            done.restartedAt,
          ),
        );
      } catch (err) {
        await store(faultEvent('tool-fault', label, originMs, detectedAt, { ...describe(died), cause, restartFailed: (err as Error).message }));
        throw err;
      }
    }
  };
}

/**
 * Supervision of the database's members, once a second: a member whose server died without the
 * scenario asking (a `kill` event's is left down) is recorded as a `node-fault` event and started
 * again in place, so that it rejoins as itself. Restarts run one at a time, never overlapping.
 */
function databaseSupervisor(adapter: DatabaseAdapter, originMs: number, store: (fault: RecordedEvent) => Promise<void>) {
  return async function supervise(): Promise<void> {
    for (const node of await adapter.deadMembers()) {
      const detectedAt = Date.now();
      const label = `${adapter.name} on ${node} died`;
      try {
        await adapter.restartMember(node);
        const restartedAt = Date.now();
        await store(
          faultEvent(
            'node-fault',
            label,
            originMs,
            detectedAt,
            { node, database: adapter.name, restartSeconds: (restartedAt - detectedAt) / 1000 },
            restartedAt,
          ),
        );
      } catch (err) {
        await store(faultEvent('node-fault', label, originMs, detectedAt, { node, database: adapter.name, restartFailed: (err as Error).message }));
        throw err;
      }
    }
  };
}

const describe = (p: FleetProcess) => ({ program: p.program, owner: p.owner, kind: p.kind, pid: p.pid });

function faultEvent(
  kind: 'tool-fault' | 'node-fault',
  label: string,
  originMs: number,
  detectedAt: number,
  detail: Record<string, unknown>,
  completedAt?: number,
): RecordedEvent {
  return { kind, label, scheduledOffsetS: Math.max(0, (detectedAt - originMs) / 1000), requestedAt: detectedAt, completedAt, detail };
}

/** What the monitor has stored so far: a heartbeat's worth. */
export interface MonitorProgress {
  telemetrySeconds: number;
  probes: number;
}

export interface PhaseMonitor {
  /** Rejects with the first failed write or supervision: a run never goes on with a hole in its evidence. */
  failed: Promise<never>;
  stop(): void;
}

/** Starts the phase's monitor; `onSecond` is told the progress each second. */
export async function startPhaseMonitor(input: MonitorInput, onSecond: (progress: MonitorProgress) => void): Promise<PhaseMonitor> {
  const inventory = await loadInventory(input.fleet);
  const store = new ResultsStore();
  const { runId, cellId, phaseIndex } = input.sink;
  let telemetrySeconds = 0;
  let fail: (err: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  // Whoever races it may not be listening yet (or any more): the rejection is theirs to see, not unhandled.
  failed.catch(() => undefined);
  const keep = (work: Promise<void>) => work.catch(fail);

  const telemetry = await startHostTelemetry(inventory, (sample) => {
    telemetrySeconds++;
    void keep(store.appendStream(runId, cellId, phaseIndex, 'telemetry', [sample]));
  });
  const paths = pathWatch(inventory, (changes) => store.appendStream(runId, cellId, phaseIndex, 'paths', changes));
  const probes = prober(
    inventory,
    new FleetNetwork(inventory),
    input.nodes,
    input.probesPerSecond ?? DEFAULT_PROBES_PER_SECOND,
    (done) => store.appendStream(runId, cellId, phaseIndex, 'probes', done),
    paths?.pathOf,
  );
  const storeFault = (fault: RecordedEvent) => store.appendStream(runId, cellId, phaseIndex, 'faults', [fault]);
  const origin = input.originMs ?? Date.now();
  const daemons = inventory.source === 'local' ? supervisor(origin, storeFault) : undefined;
  const members = input.database ? databaseSupervisor(adapterFor(input.database, inventory), origin, storeFault) : undefined;
  const supervise =
    daemons || members
      ? async () => {
          // The fleet first: a member cannot serve while its node's network daemons are down.
          await daemons?.();
          await members?.();
        }
      : undefined;
  let probing = false;
  let supervising = false;
  let watchingPaths = false;
  const timer = setInterval(() => {
    onSecond({ telemetrySeconds, probes: probes.count });
    if (supervise && !supervising) {
      supervising = true;
      void keep(supervise()).finally(() => (supervising = false));
    }
    if (paths && !watchingPaths) {
      watchingPaths = true;
      void keep(paths.tick()).finally(() => (watchingPaths = false));
    }
    // A probe still waiting for its reply (a cut link) is not doubled up by the next second's.
    if (probing) return;
    probing = true;
    void keep(probes.tick()).finally(() => (probing = false));
  }, 1000);
  return {
    failed,
    stop() {
      clearInterval(timer);
      telemetry.stop();
    },
  };
}
