/**
 * `npm run bench:consistency`: does the consistency check (ycsb.check, core/consistency/) find
 * what the databases are known to do? On a local fleet of six data nodes and a client (2 ms
 * apart), real clusters, the real client with its checked history, the real read-back:
 *  - Redis Cluster, one replica per master, cluster-node-timeout 3 s: a master and the client
 *    cut off from the rest for longer than the node timeout, then healed. The master acknowledges
 *    writes until its node timeout, its replica takes over, and at the heal it rejoins as a
 *    replica and drops them (the Redis Cluster specification says so): lost acknowledged writes,
 *    more than zero, and how many;
 *  - Cassandra, three nodes, replication 3, QUORUM writes and reads, under the same partition
 *    (one node and the client cut off): no lost write, no stale read;
 *  - Cassandra at ONE/ONE under a partition that splits the replicas (two nodes and the client
 *    from the third), then healed: the third serves reads before the hints reach it: stale reads;
 *  - both without faults: nothing found.
 * And the client's CPU per operation with checking on against off, at the same offered rate
 * (target: within 10 %; a speed target, shown but not judged in --short).
 *
 * After each run the bench waits for the cluster to report itself healthy before the read-back,
 * as a scenario's quiet tail would. Everything it starts it stops. Run as root, with no other
 * local fleet up. `--short` (CI): shorter runs (about 7 minutes in all).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { DatabaseAdapter, DatabaseName, YcsbBinding } from '../core/database';
import type { PhaseConsistency } from '../core/consistency/consistency';
import { failedTotal } from '../core/consistency/consistency';
import { dataNodes, findNode, type Inventory } from '../core/inventory';
import type { FleetRef } from '../core/fleet-ref';
import { ycsbOperations, type RunSeries } from '../core/samples';
import type { Topology } from '../core/topology';
import type { YcsbSettings } from '../core/ycsb';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { healPartition, partitionLinks } from '../operations/network/network-operations';
import { waitFor } from '../platform/wait';
import { checkPhaseConsistency } from '../services/consistency/check-phase';
import { newHistoryTarget } from '../services/consistency/client-history';
import { flushDatabase } from '../services/databases/cluster-operations';
import { isMaster, parseClusterNodes } from '../services/databases/redis/cluster-nodes';
import { adapterFor } from '../services/databases/registry';
import { execFor } from '../services/exec/transports';
import { loadInventory } from '../services/inventory/inventory-loader';
import { ResultsStore } from '../services/results/results-store';
import { runYcsbOnce, ycsbClientFor } from '../services/ycsb/fleet-client';
import { runYcsb } from '../services/ycsb/runner';
import { SHORT } from './args';
import { runBenchmark, Targets } from './targets';

const NODES = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
const CLIENT = 'client';
const fleet: FleetRef = { kind: 'local' };

/** Seconds after the client's first second that the partition starts, how long it holds, and how long the run goes on after the heal. */
const PARTITION_AT_S = SHORT ? 5 : 10;
const HOLD_S = SHORT ? 12 : 20;
/** Redis: ended soon after the heal, so that few of the lost writes' keys are written again (a later write supersedes a lost one). */
const REDIS_AFTER_HEAL_S = 3;
/** Cassandra ONE: long enough after the heal for reads to reach the node that missed the writes. */
const CASSANDRA_AFTER_HEAL_S = SHORT ? 15 : 30;
const QUIET_S = SHORT ? 10 : 30;
/** The CPU comparison: runs of this length at one offered rate, checking off then on, this many times. */
const CPU_RUN_S = SHORT ? 4 : 60;
const CPU_PAIRS = SHORT ? 1 : 3;
const CPU_RATE = 1500;
const NODE_TIMEOUT_MS = 3000;
/** Settle after a heal: a failover's old master resyncing, Cassandra's ring agreeing again. */
const SETTLE_TIMEOUT_MS = 120_000;

const settings = (overrides: Partial<YcsbSettings>): YcsbSettings => ({
  workload: 'a',
  recordCount: 1000,
  operationCount: 0,
  maxSeconds: QUIET_S,
  threads: 16,
  fieldCount: 1,
  fieldLength: 100,
  timeoutMs: 2000,
  retries: 0,
  check: true,
  ...overrides,
});

/** Every data node and the client, each pair 2 ms apart: the partitions below cut whole groups (tinc routes around anything less). */
function topology(): Topology {
  const names = [...NODES, CLIENT];
  const links = names.flatMap((a, i) => names.slice(i + 1).map((b) => ({ a, b, latencyMs: 2, bandwidthMbps: 1000 })));
  return { name: 'consistency', client: CLIENT, nodes: names.map((name) => ({ name, site: name })), links };
}

interface Case {
  name: string;
  database: DatabaseName;
  settings: YcsbSettings;
  /** Binding properties this case sets (Cassandra's consistency levels). */
  properties?: Record<string, string>;
  /** The groups to cut apart after PARTITION_AT_S, healed after HOLD_S. */
  partition?: string[][];
}

interface Outcome {
  check: PhaseConsistency;
  series: RunSeries;
}

const store = new ResultsStore(mkdtempSync(path.join(tmpdir(), 'fb-bench-consistency-')));
let caseCount = 0;

/** One checked run: the client with its history, the partition on its timers, the cluster settled, then the check and read-back. */
async function checkedRun(c: Case, adapter: DatabaseAdapter): Promise<Outcome> {
  const { target, binding: plain } = await ycsbClientFor({ fleet, database: c.database, settings: c.settings });
  const binding: YcsbBinding = { ...plain, properties: { ...plain.properties, ...c.properties } };
  const sink = { runId: 'bench', cellId: `case-${++caseCount}`, phaseIndex: 0 };
  const originMs = Date.now();
  // The partition runs on its own timers from the client's first second; a failure of it is
  // kept and thrown once the client is done (never left as a rejection nobody awaits).
  let timeline: Promise<void> | undefined;
  let partitionFailure: Error | undefined;
  const onSample = () => {
    if (timeline || !c.partition) return;
    const groups = c.partition;
    timeline = (async () => {
      await sleepS(PARTITION_AT_S);
      const cut = await partitionLinks({ fleet, groups });
      log(`${c.name}: partition ${groups.map((g) => g.join('+')).join(' | ')} (${cut.cut.length} links cut)`);
      await sleepS(HOLD_S);
      await healPartition({ fleet });
      log(`${c.name}: healed`);
    })().catch((err: unknown) => void (partitionFailure = err instanceof Error ? err : new Error(String(err))));
  };
  const series = await runYcsb({ target, phase: 'run', settings: c.settings, binding, onSample, history: await newHistoryTarget(store, sink) });
  await timeline;
  if (partitionFailure !== undefined) throw partitionFailure;
  if (c.partition && !timeline) throw new Error(`${c.name}: the client reported no second, so the partition never started`);
  // A member still rejoining may not answer: that is "not yet", not a failure.
  await waitFor(async () => (await adapter.status().catch(() => undefined))?.healthy, {
    what: `${c.database} to be healthy again`,
    timeoutMs: SETTLE_TIMEOUT_MS,
    intervalMs: 1000,
  });
  const check = await checkPhaseConsistency(
    { runId: sink.runId, cellId: sink.cellId, phaseIndexes: [0], originMs, settings: c.settings },
    { store, target, binding },
  );
  const t = check.totals;
  log(
    `${c.name}: ${t.reads} reads, ${t.writes} acknowledged writes; stale ${t.stale}, corrupt ${t.corrupt}, lost ${t.lost}, unjudged ${t.unjudged}; ` +
      `failed ${failedTotal(t)} ${JSON.stringify(t.failed)}; read back ${check.readBack.keys} keys (${check.readBack.failed} failed, ${check.readBack.unverified} of ${check.readBack.registers} registers unverified); verdict: ${check.verdict}`,
  );
  return { check, series };
}

const sleepS = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
/** A target that nothing of a kind is found. */
const mustBeNone = (targets: Targets, name: string, count: number) => targets.atMost(name, count, 0, '', { digits: 0 });
/** A target that an anomaly is found: `count` of `what` must be more than zero. */
const mustFind = (targets: Targets, name: string, count: number, what: string, detail: string) =>
  targets.holds(name, `${count} ${what} ${detail}`, `> 0 ${what}`, count > 0);
const anomalies = (o: Outcome) => o.check.totals.stale + o.check.totals.corrupt + o.check.totals.lost;

async function load(database: DatabaseName, s: YcsbSettings): Promise<void> {
  await flushDatabase({ fleet, database, fieldCount: s.fieldCount });
  await runYcsbOnce('load', { fleet, database, settings: s });
}

/**
 * µs of client CPU per operation, checking off and on, over CPU_PAIRS alternating runs at one
 * offered rate: the JVM's CPU from when it was ready to its exit (its start is the same either way
 * and, in a short run, most of its CPU) over the operations it made.
 */
async function cpuPerOperation(): Promise<{ off: number; on: number }> {
  const sum = { off: { cpuMs: 0, ops: 0 }, on: { cpuMs: 0, ops: 0 } };
  for (let i = 0; i < CPU_PAIRS; i++) {
    for (const mode of ['off', 'on'] as const) {
      const s = settings({ maxSeconds: CPU_RUN_S, target: CPU_RATE, threads: 8, check: mode === 'on' });
      const { target, binding } = await ycsbClientFor({ fleet, database: 'redis', settings: s });
      const history = mode === 'on' ? await newHistoryTarget(store, { runId: 'bench', cellId: `cpu-${i}`, phaseIndex: 0 }) : undefined;
      const series = await runYcsb({ target, phase: 'run', settings: s, binding, history });
      if (series.clientCpuMs === undefined || series.clientCpuAtReadyMs === undefined) {
        throw new Error('the client reported no CPU time (FRAGBENCH-CPU): is ycsb/target built from this checkout?');
      }
      sum[mode].cpuMs += series.clientCpuMs - series.clientCpuAtReadyMs;
      sum[mode].ops += ycsbOperations(series.totals.ops);
    }
  }
  const perOp = (m: { cpuMs: number; ops: number }) => (m.cpuMs * 1000) / Math.max(1, m.ops);
  return { off: perOp(sum.off), on: perOp(sum.on) };
}

/** A master of the formed cluster and its replica, by node name. */
async function masterAndReplica(inventory: Inventory): Promise<{ master: string; replica: string }> {
  const via = findNode(inventory, NODES[0]);
  const { stdout } = await execFor(via.exec).run(['redis-cli', '-h', via.overlayAddress, '-p', '6379', 'CLUSTER', 'NODES']);
  const lines = parseClusterNodes(stdout);
  const byAddress = new Map(dataNodes(inventory).map((n) => [`${n.overlayAddress}:6379`, n.name]));
  const master = lines.find((l) => isMaster(l) && l.slots > 0)!;
  const replica = lines.find((l) => l.masterId === master.id);
  if (!replica) throw new Error(`redis: master ${master.address} has no replica: ${stdout}`);
  return { master: byAddress.get(master.address)!, replica: byAddress.get(replica.address)! };
}

async function redisCases(inventory: Inventory, targets: Targets): Promise<void> {
  const adapter = adapterFor('redis', inventory);
  await adapter.stop();
  try {
    const info = await adapter.formCluster(dataNodes(inventory), { replication: 2, options: { clusterNodeTimeoutMs: NODE_TIMEOUT_MS } });
    log(`redis ${info.version}: ${JSON.stringify(info.consistency)}`);

    const quiet = settings({});
    await load('redis', quiet);
    const calm = await checkedRun({ name: 'redis, no fault', database: 'redis', settings: quiet }, adapter);
    mustBeNone(targets, 'redis without faults: stale + corrupt reads + lost writes', anomalies(calm));
    mustBeNone(targets, 'redis without faults: registers the read-back could not verify', calm.check.readBack.unverified);

    const cpu = await cpuPerOperation();
    log(
      `client CPU per operation at ${CPU_RATE} ops/s: checking off ${cpu.off.toFixed(1)} µs, on ${cpu.on.toFixed(1)} µs (${CPU_PAIRS} run(s) of ${CPU_RUN_S} s each)`,
    );
    targets.atMost('client CPU per operation, checking on / off', cpu.on / cpu.off, 1.1, '', {
      kind: 'speed',
      note: `${cpu.on.toFixed(1)} µs against ${cpu.off.toFixed(1)} µs`,
    });

    const { master, replica } = await masterAndReplica(inventory);
    log(`redis: master ${master} (replica ${replica}) is cut off with the client`);
    // Many keys and short timeouts: the client keeps writing to the master it can reach while
    // operations on the others time out, and few of those keys are written again after the heal.
    const failover = settings({ recordCount: 20_000, threads: 32, timeoutMs: 100, maxSeconds: PARTITION_AT_S + HOLD_S + REDIS_AFTER_HEAL_S + 2 });
    await load('redis', failover);
    const lost = await checkedRun(
      { name: 'redis, failover', database: 'redis', settings: failover, partition: [[master, CLIENT], NODES.filter((n) => n !== master)] },
      adapter,
    );
    mustFind(
      targets,
      'redis failover loses acknowledged writes (Redis Cluster specification)',
      lost.check.totals.lost,
      'lost',
      `of ${lost.check.totals.writes} acknowledged (${lost.check.totals.stale} stale reads)`,
    );
    mustBeNone(targets, 'redis failover: corrupt reads', lost.check.totals.corrupt);
  } finally {
    await adapter.stop();
  }
}

async function cassandraCases(inventory: Inventory, targets: Targets): Promise<void> {
  const adapter = adapterFor('cassandra', inventory);
  await adapter.stop();
  const members = NODES.slice(0, 3);
  const others = (inGroup: string[]) => NODES.filter((n) => !inGroup.includes(n));
  const levels = (level: string) => ({ 'cassandra.readConsistency': level, 'cassandra.writeConsistency': level });
  try {
    const info = await adapter.formCluster(
      members.map((n) => findNode(inventory, n)),
      { replication: 3, options: { fieldCount: 1 } },
    );
    log(`cassandra ${info.version}: ${JSON.stringify(info.consistency)}`);
    const s = settings({ recordCount: 500, threads: 8 });
    await load('cassandra', s);

    const calm = await checkedRun({ name: 'cassandra QUORUM, no fault', database: 'cassandra', settings: s, properties: levels('QUORUM') }, adapter);
    mustBeNone(targets, 'cassandra without faults: stale + corrupt reads + lost writes', anomalies(calm));

    const quorum = await checkedRun(
      {
        name: 'cassandra QUORUM/QUORUM, one node and the client cut off',
        database: 'cassandra',
        settings: { ...s, maxSeconds: PARTITION_AT_S + HOLD_S + CASSANDRA_AFTER_HEAL_S },
        properties: levels('QUORUM'),
        partition: [[members[0], CLIENT], others([members[0]])],
      },
      adapter,
    );
    mustBeNone(targets, 'cassandra QUORUM/QUORUM under the partition: lost writes', quorum.check.totals.lost);
    mustBeNone(targets, 'cassandra QUORUM/QUORUM under the partition: stale reads', quorum.check.totals.stale);
    mustBeNone(targets, 'cassandra QUORUM/QUORUM under the partition: corrupt reads', quorum.check.totals.corrupt);

    const one = await checkedRun(
      {
        name: 'cassandra ONE/ONE, a replica split from the other two and the client',
        database: 'cassandra',
        settings: { ...s, maxSeconds: PARTITION_AT_S + HOLD_S + CASSANDRA_AFTER_HEAL_S },
        properties: levels('ONE'),
        partition: [[members[0], members[1], CLIENT], others([members[0], members[1]])],
      },
      adapter,
    );
    mustFind(
      targets,
      'cassandra ONE/ONE under a replica split: stale reads found',
      one.check.totals.stale,
      'stale',
      `of ${one.check.totals.reads} reads (${one.check.totals.lost} lost writes)`,
    );
  } finally {
    await adapter.stop();
  }
}

async function main(): Promise<void> {
  const targets = new Targets();
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-bench-consistency-fleet-'));
  const file = path.join(dir, 'consistency.yaml');
  writeFileSync(file, stringify(topology()));
  try {
    await fleetUp(file, (line) => log(`fleet: ${line}`));
    const inventory = await loadInventory(fleet);
    await redisCases(inventory, targets);
    await cassandraCases(inventory, targets);
  } finally {
    await fleetDown();
    rmSync(dir, { recursive: true, force: true });
    rmSync(store.root, { recursive: true, force: true });
  }
  targets.finish();
}

runBenchmark('consistency', main);
