/**
 * The Redis adapter's consistency settings on a real cluster (a bridged LAN of namespaces, six
 * nodes): one replica per master, cluster-node-timeout and WAIT-based writes set as options,
 * applied to every member, reported with the cluster; then a checked YCSB run through the fleet's
 * client namespace with WAIT on the cluster's own connections, checked and read back by the same
 * service the checkConsistency activity calls: every write confirmed by its replica, nothing found.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisClusterAdapter } from '../../services/databases/redis/redis-cluster';
import { execFor } from '../../services/exec/transports';
import { checkPhaseConsistency } from '../../services/consistency/check-phase';
import { newHistoryTarget } from '../../services/consistency/client-history';
import { ResultsStore } from '../../services/results/results-store';
import { runYcsb } from '../../services/ycsb/runner';
import { findNode } from '../../core/inventory';
import type { YcsbSettings } from '../../core/ycsb';
import { adapterOnLan } from '../support/lan-fleet';

jest.setTimeout(180_000);

const lan = adapterOnLan('c', 6, (inventory) => new RedisClusterAdapter(inventory));
const NODES = ['tlc1', 'tlc2', 'tlc3', 'tlc4', 'tlc5', 'tlc6'];

const settings: YcsbSettings = {
  workload: 'a',
  recordCount: 500,
  operationCount: 6000,
  threads: 8,
  fieldCount: 2,
  fieldLength: 60,
  timeoutMs: 2000,
  retries: 0,
  target: 1000,
  check: true,
};

test('one replica per master, the node timeout on every member, WAIT in the binding, all reported with the cluster', async () => {
  for (const name of NODES) await lan.adapter.install(lan.node(name));
  const info = await lan.adapter.formCluster(NODES.map(lan.node), {
    replication: 2,
    // WAIT's timeout generous: the claim is that every write is confirmed, not how fast on a busy host
    // (at 500 ms, 24 of 6,000 writes timed out while other lanes loaded the host in CI).
    options: { clusterNodeTimeoutMs: 2500, waitReplicas: 1, waitTimeoutMs: 5000 },
  });
  expect(info.consistency).toEqual({
    'replicas per master': '1',
    'cluster-node-timeout': '2500 ms',
    writes: 'WAIT 1 replica(s), 5000 ms',
  });
  expect(info.nonDefaultSettings['cluster-node-timeout']).toBe('2500 (default 15000)');
  for (const name of NODES) {
    const n = lan.node(name);
    const { stdout } = await execFor(n.exec).run(['redis-cli', '-h', n.overlayAddress, 'CONFIG', 'GET', 'cluster-node-timeout']);
    expect(stdout.trim().split('\n')).toEqual(['cluster-node-timeout', '2500']);
  }
  const binding = lan.adapter.ycsbBinding({ timeoutMs: 2000, retries: 0 });
  expect(binding.properties).toMatchObject({ 'redis.waitReplicas': '1', 'redis.waitTimeoutMs': '5000' });
});

test('a checked run with WAIT on the cluster: every write confirmed by its replica, read back whole, no anomaly', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-redis-consistency-'));
  try {
    const store = new ResultsStore(dir);
    const inventory = lan.fleet.inventory;
    const target = findNode(inventory, inventory.clientNode).exec;
    const binding = lan.adapter.ycsbBinding({ timeoutMs: settings.timeoutMs, retries: settings.retries });
    await runYcsb({ target, phase: 'load', settings, binding });
    const sink = { runId: 'r', cellId: 'c', phaseIndex: 0 };
    const originMs = Date.now();
    const series = await runYcsb({ target, phase: 'run', settings, binding, history: await newHistoryTarget(store, sink) });
    expect(series.clientCpuMs).toBeGreaterThan(0);
    const check = await checkPhaseConsistency({ runId: 'r', cellId: 'c', phaseIndexes: [0], originMs, settings }, { store, target, binding });
    expect(check.totals.writes).toBeGreaterThan(1000);
    expect(check.totals.reads + check.totals.writes).toBe(settings.operationCount);
    expect(check.totals).toMatchObject({ stale: 0, corrupt: 0, lost: 0, failed: {} });
    expect(check.readBack).toMatchObject({ failed: 0, unverified: 0 });
    expect(check.history).toMatchObject({ clients: 1, missing: [], unparsable: 0 });
    expect(check.verdict).toBe('no anomaly seen');
    // The history is kept, gzipped, and the per-second counts are in the phase's stream.
    expect((await store.historyFiles('r', 'c', [0])).map((f) => path.basename(f.path))).toEqual([expect.stringMatching(/^0\.[a-z0-9]+\.jsonl\.gz$/)]);
    const seconds = await store.readStream<{ writes: number }>('r', 'c', 0, 'consistency');
    expect(seconds.reduce((n, s) => n + s.writes, 0)).toBe(check.totals.writes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
