/**
 * Supervision of the local fleet's own daemons, for real (fhc-4 as root): each kind killed with
 * SIGKILL while a phase's monitor runs is found dead within 2 s, restarted with its configuration,
 * and recorded as a `tool-fault` event; afterwards the overlay carries traffic again, the latency
 * the run had set is back (within the benchmark's tolerance) and the cut link is still cut.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { applyLatencyEpoch, cutLink } from '../../operations/network/network-operations';
import { NetnsExec } from '../../services/exec/transports';
import { monitorPhase } from '../../activities/monitor';
import { ping } from '../../services/probes/ping';
import { median } from '../../services/probes/quantile';
import { ResultsStore } from '../../services/results/results-store';
import type { RecordedEvent } from '../../core/events';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { findNode } from '../../core/inventory';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { EmulatorClient } from '../../infra/local/emulator-client';
import { sleep, waitFor } from '../../platform/wait';
import { daemonRuns } from '../../infra/local/processes';
import { fleetPaths, readState, type FleetProcess } from '../../infra/local/state';

jest.setTimeout(180_000);

const fleet = { kind: 'local' } as const;
const resultsDir = mkdtempSync(path.join(tmpdir(), 'fb-heal-'));
const sink = { runId: 'heal-test', cellId: 'c1', phaseIndex: 0 };

beforeAll(async () => {
  process.env.FRAGBENCH_RESULTS_DIR = resultsDir;
  await fleetUp('fhc-4');
});

afterAll(async () => {
  await fleetDown();
  rmSync(resultsDir, { recursive: true, force: true });
});

const daemon = (kind: FleetProcess['kind'], owner?: string) =>
  readState()!.processes.find((p) => p.kind === kind && (owner === undefined || p.owner === owner))!;

async function medianRtt(from: string, to: string): Promise<number> {
  const inventory = await loadInventory(fleet);
  const result = await ping(new NetnsExec(`fb-${from}`), findNode(inventory, to).overlayAddress, 20, 0.05);
  return median(result.samplesMs);
}

test("a killed emulator, WireGuard daemon and tincd are each detected within 2 s, restarted with the run's network, and recorded", async () => {
  await applyLatencyEpoch({ fleet, scale: 0.2 });
  await cutLink({ fleet, link: 'sydney-pune/0' });
  const before = await medianRtt('client', 'sydney');

  const env = new MockActivityEnvironment();
  const originMs = Date.now();
  const monitoring = env
    .run(monitorPhase, { fleet, sink, nodes: ['sydney', 'pune', 'singapore'], originMs, probesPerSecond: 1 })
    .catch((err: unknown) => err);
  const store = new ResultsStore(resultsDir);
  const faults = () => store.readStream<RecordedEvent>(sink.runId, sink.cellId, sink.phaseIndex, 'faults');

  const victims = [daemon('emulator'), daemon('wireguard', 'fbsydney-0'), daemon('tinc', 'tinc-pune')];
  for (const [i, victim] of victims.entries()) {
    await sleep(1500);
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    const fault = await waitFor(async () => (await faults())[i], { what: `${victim.program} ${victim.owner} restarted`, timeoutMs: 30_000 });
    expect(fault.kind).toBe('tool-fault');
    expect(fault.detail).toMatchObject({ program: victim.program, owner: victim.owner, pid: victim.pid });
    expect(fault.requestedAt - killedAt).toBeLessThanOrEqual(2000);
    expect(fault.completedAt).toBeGreaterThanOrEqual(fault.requestedAt);
    const replacement = daemon(victim.kind, victim.owner);
    expect(replacement.pid).not.toBe(victim.pid);
    expect(daemonRuns(replacement)).toBe(true);
  }
  env.cancel();
  // It ended because it was cancelled, not because a death broke it.
  expect(String(await monitoring)).toMatch(/Cancel/i);

  // The new emulator got the run's latency back, and the cut is still a cut.
  const links = await new EmulatorClient(fleetPaths.emulatorSocket).stats();
  expect(links.find((l) => l.id === 'sydney-pune/0')!.cut).toBe(true);
  expect(links.find((l) => l.id === 'client-sydney/0')!.ab.delayMs).toBeGreaterThan(3);
  // Through the restarted WireGuard interface and tincd, at the latency set before the kills.
  await waitFor(
    async () =>
      (await ping(new NetnsExec('fb-client'), (await loadInventory(fleet)).nodes.find((n) => n.name === 'sydney')!.overlayAddress, 1, 0.2)).samplesMs
        .length > 0,
    { what: 'the overlay to carry sydney again', timeoutMs: 30_000 },
  );
  const after = await medianRtt('client', 'sydney');
  expect(Math.abs(after - before)).toBeLessThanOrEqual(Math.max(0.5, 0.02 * before));
  await waitFor(
    async () =>
      (await ping(new NetnsExec('fb-client'), (await loadInventory(fleet)).nodes.find((n) => n.name === 'pune')!.overlayAddress, 1, 0.2)).samplesMs
        .length > 0,
    { what: 'pune to answer through its new tincd', timeoutMs: 30_000 },
  );
});
