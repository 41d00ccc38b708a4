/**
 * The phase monitor apart from its activity: the service (operations/monitor/phase-monitor.ts)
 * stores telemetry each second and tells its progress, and reports a failed write on `failed`;
 * the activity (activities/monitor.ts) fails with the monitor's error instead of running on with
 * a hole in the evidence. A VM inventory without links: no
 * probes, no daemon supervision, so only this host's /proc is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { FleetRef } from '../../core/fleet-ref';
import type { MonitorInput } from '../../core/telemetry';
import { vmNode } from '../support/recording-exec';

const dir = mkdtempSync(path.join(tmpdir(), 'fb-monitor-'));
// The local fleet's paths are read when their modules load: none here, so this is a VM fleet.
process.env.FRAGBENCH_STATE_DIR = path.join(dir, 'state');
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the state directory is set, which an import would precede */
const { startPhaseMonitor } = require('../../operations/monitor/phase-monitor') as typeof import('../../operations/monitor/phase-monitor');
const { monitorPhase } = require('../../activities/monitor') as typeof import('../../activities/monitor');
const { ResultsStore } = require('../../services/results/results-store') as typeof import('../../services/results/results-store');
/* eslint-enable @typescript-eslint/no-require-imports */

let input: MonitorInput;

beforeAll(() => {
  const inventory = {
    schemaVersion: 1,
    name: 'fb-mon',
    source: 'file',
    nodes: [vmNode('d1', '198.18.203.1'), { ...vmNode('client', '198.18.203.9'), role: 'client' }],
    links: [],
    clientNode: 'client',
    shaping: 'tc',
  };
  writeFileSync(path.join(dir, 'inventory.json'), JSON.stringify(inventory));
  const fleet: FleetRef = { kind: 'file', path: path.join(dir, 'inventory.json') };
  input = { fleet, sink: { runId: 'fb-run', cellId: 'cell-1', phaseIndex: 0 }, nodes: ['d1'] };
});
afterEach(() => delete process.env.FRAGBENCH_RESULTS_DIR);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the service stores a telemetry sample a second and says so each second, until stopped', async () => {
  process.env.FRAGBENCH_RESULTS_DIR = path.join(dir, 'results');
  const seen: number[] = [];
  const monitor = await startPhaseMonitor(input, (progress) => seen.push(progress.telemetrySeconds));
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  monitor.stop();
  const stored = await new ResultsStore().readStream(input.sink.runId, input.sink.cellId, 0, 'telemetry');
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(seen[seen.length - 1]).toBeGreaterThan(0);
  expect(stored.length).toBeGreaterThanOrEqual(seen[seen.length - 1]);
  // Stopped means stopped: no more seconds are told.
  const told = seen.length;
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  expect(seen.length).toBe(told);
}, 15_000);

test('a write that fails ends the activity with that error at once, without waiting for a cancel', async () => {
  // The results root is a file, so the first telemetry write cannot make its directory.
  const blocked = path.join(dir, 'not-a-directory');
  writeFileSync(blocked, '');
  process.env.FRAGBENCH_RESULTS_DIR = blocked;
  const started = Date.now();
  await expect(new MockActivityEnvironment().run(monitorPhase, input)).rejects.toThrow(/ENOTDIR|EEXIST|not a directory/);
  expect(Date.now() - started).toBeLessThan(5_000);
}, 15_000);
