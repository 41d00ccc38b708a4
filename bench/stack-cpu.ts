/**
 * `npm run bench:stack`: what the local fleet's own stack costs, on each network stack it can run
 * (core/stack.ts: the published tinc over WireGuard, and the light ones without tinc, without
 * WireGuard, or without both), side by side. First it measures what one userspace hop costs on
 * this machine (bench/hop-cost.ts), so that the stack's cost also reads in hops, a figure that
 * travels between machines. Then, on fhc-4 brought up on each stack with a 3-master Redis Cluster:
 *  - the idle RTT floor: ping client -> each data node with every link at latency scale 0.02
 *    (min/avg/p99), i.e. what the stack and the relay add on their own;
 *  - YCSB workload A at a fixed target rate: CPU per database operation of each layer (YCSB JVM,
 *    tincd, WireGuard (boringtun), fb-wan, redis-server), from /proc/<pid>/stat deltas over the
 *    steady part of the run (the JVM's start-up and first seconds are left out), ops counted from
 *    YCSB's per-second status lines over the same seconds (only processes in the fleet's
 *    namespaces count); the tool's total (all but redis), in us and in hops, and the host's busy %;
 *  - in full mode, the highest Redis load the host carries on that stack with the verdict `ok`,
 *    then the same for a 3-node Cassandra ring formed on the same nodes.
 * CPU time per operation is the robust figure on a shared host; wall-clock figures move with
 * whatever else runs. Kernel work a daemon's system calls do (a VXLAN frame's decapsulation, the
 * receiver's TCP) counts as that daemon's: without WireGuard the emulator's share grows.
 * Everything it starts it stops. Needs root and no fleet up.
 *
 *   npx tsx bench/stack-cpu.ts [--short] [--rate 500] [--seconds 30] [--scale 0.2] [--threads 16]
 * `--short` (CI): the published and the lightest stack, 8 s measured, no capacity sweep.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { NetnsExec } from '../services/exec/transports';
import { applyLatencyEpoch } from '../operations/network/network-operations';
import { flushDatabase } from '../services/databases/cluster-operations';
import { runYcsbOnce } from '../services/ycsb/fleet-client';
import { adapterFor } from '../services/databases/registry';
import { loadInventory } from '../services/inventory/inventory-loader';
import { ping } from '../services/probes/ping';
import { median, quantile } from '../services/probes/quantile';
import { runYcsb } from '../services/ycsb/runner';
import type { YcsbSettings } from '../core/ycsb';
import { dataNodes, findNode, type Inventory, type InventoryNode } from '../core/inventory';
import type { Sample } from '../core/samples';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { fleetPaths, readState } from '../infra/local/state';
import { EmulatorClient } from '../infra/local/emulator-client';
import { sleep } from '../platform/wait';
import { WIREGUARD_PROGRAM } from '../infra/local/wireguard';
import { runBenchmark, Targets } from './targets';
import { hopCostUs } from './hop-cost';
import { describeStack, type StackChoice } from '../core/stack';
import type { TelemetrySample } from '../core/telemetry';
import { phaseVerdict } from '../core/verdict';
import { startHostTelemetry } from '../operations/telemetry/host-telemetry';

const fleet = { kind: 'local' } as const;
const TOPOLOGY = 'fhc-4';
const FLOOR_SCALE = 0.02;
const FLOOR_PINGS = 200;
/**
 * Datagrams a second from A in the hop measurement: 1,200 relayed a second with the echoes, about
 * what fb-wan relays under the stack's load (2.4 datagrams per operation at 500 ops/s).
 */
const HOP_RATE = 600;
/**
 * The published stack's data path per operation at 76677f9, in hops of the machine it ran on:
 * 386 us/op against 35 us per hop on the fleet's 2-core VM (2026-11-27, this benchmark's figures).
 * Hops do not carry it between machines: 76677f9 ran at 7.3-7.6 hops on another machine of the
 * same kind (2026-12-07, docs/network.md), where half of it would be about 3.7.
 */
const BASELINE_HOPS_PER_OP = 11.0;
const PING_INTERVAL_S = 0.02;
/** Seconds of the run left out before CPU is counted: JVM start-up, JIT, connection set-up. */
const WARM_UP_S = 5;
const RECORDS = 2000;

interface Options {
  rate: number;
  seconds: number;
  scale: number;
  threads: number;
  short: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rate: 500, seconds: 30, scale: 0.2, threads: 16, short: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new Error(`${flag} needs a number above 0`);
      return v;
    };
    if (flag === '--short') o.short = true;
    else if (flag === '--rate') o.rate = value();
    else if (flag === '--seconds') o.seconds = value();
    else if (flag === '--scale') o.scale = value();
    else if (flag === '--threads') o.threads = value();
    else throw new Error(`unknown argument ${flag} (use --short, --rate, --seconds, --scale, --threads)`);
  }
  if (o.short) o.seconds = Math.min(o.seconds, 8 + WARM_UP_S);
  return o;
}

const say = (line = '') => console.log(line);
const fmt = (x: number, digits = 2) => x.toFixed(digits);
const targets = new Targets(say);

// ---- CPU per process ---------------------------------------------------------------------

type Layer = 'ycsb' | 'tincd' | 'wireguard' | 'fb-wan' | 'redis';
const LAYERS: Layer[] = ['ycsb', 'tincd', 'wireguard', 'fb-wan', 'redis'];
const TOOL_LAYERS: Layer[] = ['ycsb', 'tincd', 'wireguard', 'fb-wan'];
const TICK_US = 1e6 / 100; // USER_HZ

function layerOf(comm: string, pid: string): Layer | undefined {
  if (comm === 'tincd' || comm === 'fb-wan') return comm;
  if (comm === WIREGUARD_PROGRAM) return 'wireguard';
  if (comm.startsWith('redis-server')) return 'redis';
  if (comm === 'java') {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('fragbench.ycsb.Main')) return 'ycsb';
  }
  return undefined;
}

interface CpuSnapshot {
  /** utime+stime in clock ticks per pid, and the pid's layer. */
  procs: Map<string, { layer: Layer; ticks: number }>;
  /** Host CPU ticks: all and busy (not idle, not iowait), summed over CPUs. */
  hostTotal: number;
  hostBusy: number;
}

/** `net:[inode]` of each of the fleet's namespaces: other fleets' processes on the host do not count. */
function fleetNetworkNamespaces(): Set<string> {
  return new Set((readState()?.namespaces ?? []).map((ns) => `net:[${statSync(`/run/netns/${ns}`).ino}]`));
}

function snapshot(namespaces: Set<string>): CpuSnapshot {
  const procs = new Map<string, { layer: Layer; ticks: number }>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!namespaces.has(readlinkSync(`/proc/${pid}/ns/net`))) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const layer = layerOf(comm, pid);
      if (!layer) continue;
      // Fields after the command: state is field 3; utime and stime are fields 14 and 15.
      const fields = stat.slice(close + 2).split(' ');
      procs.set(pid, { layer, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // Gone between readdir and read.
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((s, x) => s + x, 0);
  return { procs, hostTotal: total, hostBusy: total - cpu[3] - cpu[4] };
}

interface CpuUse {
  usPerOp: Record<Layer, number>;
  toolUsPerOp: number;
  hostBusyPercent: number;
  /** Each layer's share of one core over the window, %. */
  corePercent: Record<Layer, number>;
  ops: number;
  seconds: number;
  /** Datagrams the emulator relayed per database operation (each crossed two WireGuard daemons). */
  packetsPerOp?: number;
  /** YCSB's mean operation latency over the counted seconds, ms (weighted by operations). */
  opLatencyMs?: number;
}

/** Operation-weighted mean of YCSB's per-second average latencies, ms. */
function meanOpLatencyMs(samples: Sample[]): number {
  let weighted = 0;
  let ops = 0;
  for (const s of samples) {
    for (const op of Object.values(s.ops)) {
      if (!op?.latencyUs || op.ok === 0) continue;
      weighted += op.latencyUs.avg * op.ok;
      ops += op.ok;
    }
  }
  return ops === 0 ? NaN : weighted / ops / 1000;
}

async function relayedPackets(): Promise<number> {
  const stats = await new EmulatorClient(fleetPaths.emulatorSocket).stats();
  return stats.reduce((n, l) => n + l.ab.packets + l.ba.packets, 0);
}

function cpuUse(from: CpuSnapshot, to: CpuSnapshot, ops: number, seconds: number): CpuUse {
  const ticks = Object.fromEntries(LAYERS.map((l) => [l, 0])) as Record<Layer, number>;
  for (const [pid, p] of to.procs) {
    // A process that started inside the window is counted from 0.
    ticks[p.layer] += p.ticks - (from.procs.get(pid)?.ticks ?? 0);
  }
  const usPerOp = Object.fromEntries(LAYERS.map((l) => [l, (ticks[l] * TICK_US) / ops])) as Record<Layer, number>;
  const corePercent = Object.fromEntries(LAYERS.map((l) => [l, (100 * ticks[l] * TICK_US) / 1e6 / seconds])) as Record<Layer, number>;
  return {
    usPerOp,
    corePercent,
    toolUsPerOp: TOOL_LAYERS.reduce((s, l) => s + usPerOp[l], 0),
    hostBusyPercent: (100 * (to.hostBusy - from.hostBusy)) / (to.hostTotal - from.hostTotal),
    ops,
    seconds,
  };
}

// ---- RTT ---------------------------------------------------------------------------------

interface Rtt {
  to: string;
  configuredMs: number;
  minMs: number;
  avgMs: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
}

/** RTT of the client's direct (type 0) link to `to` at latency scale `scale`. */
function configuredRttMs(inventory: Inventory, to: string, scale: number): number {
  const client = inventory.clientNode;
  const link = inventory.links.find((l) => l.type === 0 && [l.a, l.b].includes(client) && [l.a, l.b].includes(to));
  return (link?.latencyMs ?? NaN) * scale;
}

async function pingFromClient(inventory: Inventory, to: string, scale: number, count: number): Promise<Rtt> {
  const client = findNode(inventory, inventory.clientNode);
  const result = await ping(new NetnsExec(namespaceOf(client)), findNode(inventory, to).overlayAddress, count, PING_INTERVAL_S);
  const s = result.samplesMs;
  if (s.length === 0) throw new Error(`no ping reply from ${to}`);
  return {
    to,
    configuredMs: configuredRttMs(inventory, to, scale),
    minMs: Math.min(...s),
    avgMs: s.reduce((a, x) => a + x, 0) / s.length,
    medianMs: median(s),
    p99Ms: quantile(s, 0.99),
    maxMs: Math.max(...s),
  };
}

function namespaceOf(node: Inventory['nodes'][number]): string {
  if (node.exec.transport !== 'netns') throw new Error('bench:stack runs on the local fleet only');
  return node.exec.namespace;
}

/** One node at a time, so that the figures are of an otherwise idle overlay. */
async function rttFromClient(inventory: Inventory, scale: number, count: number): Promise<Rtt[]> {
  await applyLatencyEpoch({ fleet, scale });
  await sleep(1000);
  const out: Rtt[] = [];
  for (const node of dataNodes(inventory)) out.push(await pingFromClient(inventory, node.name, scale, count));
  return out;
}

// ---- the run -----------------------------------------------------------------------------

const ycsbSettings = (o: Options): YcsbSettings => ({
  workload: 'a',
  recordCount: RECORDS,
  operationCount: 0,
  maxSeconds: o.seconds,
  threads: o.threads,
  target: o.rate,
  fieldCount: 10,
  fieldLength: 100,
  timeoutMs: 2000,
  retries: 1,
});

async function measureLoad(inventory: Inventory, o: Options): Promise<CpuUse> {
  const adapter = adapterFor('redis', inventory);
  const binding = adapter.ycsbBinding({ timeoutMs: 2000, retries: 1 });
  const snaps = new Map<number, CpuSnapshot>();
  const samples: Sample[] = [];
  const client = findNode(inventory, inventory.clientNode);
  const packets = new Map<number, Promise<number>>();
  const namespaces = fleetNetworkNamespaces();
  await runYcsb({
    target: client.exec,
    phase: 'run',
    settings: ycsbSettings(o),
    binding,
    onSample: (sample) => {
      snaps.set(sample.elapsedS, snapshot(namespaces));
      packets.set(sample.elapsedS, relayedPackets());
      samples.push(sample);
    },
  });
  // The JVM prints a status line at the end of each second: the snapshot taken on receiving the
  // line for second N closes second N. The final (partial) second is left out.
  const seconds = [...snaps.keys()].sort((a, b) => a - b);
  const first = seconds.find((s) => s >= WARM_UP_S);
  const last = seconds[seconds.length - 2];
  if (first === undefined || last === undefined || last <= first) throw new Error(`the run printed too few status lines (${seconds.length})`);
  const counted = samples.filter((s) => s.elapsedS > first && s.elapsedS <= last);
  const ops = counted.reduce((n, s) => n + s.okPerS + s.failedPerS, 0);
  if (ops === 0) throw new Error('no operations in the measured window');
  const use = cpuUse(snaps.get(first)!, snaps.get(last)!, ops, last - first);
  use.packetsPerOp = ((await packets.get(last)!) - (await packets.get(first)!)) / ops;
  use.opLatencyMs = meanOpLatencyMs(counted);
  return use;
}

/** The stacks measured side by side (core/stack.ts): every one in full mode, the published and the lightest in --short. */
const STACKS: { label: string; choice: StackChoice }[] = [
  { label: 'published: tinc over WireGuard', choice: {} },
  { label: 'overlay none', choice: { overlay: 'none' } },
  { label: 'encryption off', choice: { encryption: 'off' } },
  { label: 'overlay none + encryption off', choice: { overlay: 'none', encryption: 'off' } },
];
type SweptDatabase = 'redis' | 'cassandra';
/**
 * Target rates each database's capacity sweep tries, in order, until the verdict is not `ok` or
 * the rate is not reached; and the client threads a rate needs, from an operation's expected time
 * at latency scale 0.2 (a Redis operation is one round trip to a master; a Cassandra one waits on
 * its coordinator's replicas too).
 */
const CAPACITY: Record<SweptDatabase, { rates: number[]; opsPerThread: number }> = {
  redis: { rates: [1000, 2000, 4000, 6000, 8000, 11000, 14000, 18000], opsPerThread: 40 },
  cassandra: { rates: [100, 150, 200, 250, 300, 400, 600, 800], opsPerThread: 20 },
};
const CAPACITY_SECONDS = 15;

interface Capacity {
  opsPerS: number;
  stoppedBy: string;
}

interface StackFigures {
  label: string;
  use: CpuUse;
  floor: Rtt;
  opExcessMs: number;
  capacity?: Record<SweptDatabase, Capacity>;
}

/**
 * The highest load of a formed, loaded database the host carries with the verdict `ok`: YCSB
 * workload A at each rate in turn (threads enough for the round trips), judged from host telemetry
 * as a run's phase is. It stops at the first rate that is not reached (the client or the cluster
 * is the limit) or not `ok`.
 */
async function sweepCapacity(database: SweptDatabase, inventory: Inventory, o: Options): Promise<Capacity> {
  say(`${database} capacity: YCSB workload A at rising rates, ${CAPACITY_SECONDS} s each`);
  const binding = adapterFor(database, inventory).ycsbBinding({ timeoutMs: 2000, retries: 1 });
  const client = findNode(inventory, inventory.clientNode);
  const { rates, opsPerThread } = CAPACITY[database];
  let carried = 0;
  for (const rate of rates) {
    const telemetry: TelemetrySample[] = [];
    const samples: Sample[] = [];
    const sampler = await startHostTelemetry(inventory, (t) => telemetry.push(t));
    try {
      await runYcsb({
        target: client.exec,
        phase: 'run',
        settings: { ...ycsbSettings(o), target: rate, maxSeconds: CAPACITY_SECONDS, threads: Math.max(o.threads, Math.ceil(rate / opsPerThread)) },
        binding,
        onSample: (sample) => samples.push(sample),
      });
    } finally {
      sampler.stop();
    }
    const steady = samples.filter((x) => x.elapsedS > WARM_UP_S && x.elapsedS < CAPACITY_SECONDS);
    const reached = steady.reduce((n, x) => n + x.okPerS, 0) / Math.max(1, steady.length);
    const { verdict, reasons } = phaseVerdict({ phase: `${database} capacity ${rate}`, telemetry, probes: [], samples: steady });
    say(
      `  ${rate} ops/s asked: ${fmt(reached, 0)} carried, verdict ${verdict}${reasons.length ? ` (${reasons.map((r) => r.text).join('; ')})` : ''}`,
    );
    if (verdict !== 'ok') return { opsPerS: carried, stoppedBy: `${rate} ops/s: ${verdict}` };
    if (reached < 0.95 * rate) return { opsPerS: carried, stoppedBy: `${rate} ops/s: ${fmt(reached, 0)} carried` };
    carried = rate;
  }
  return { opsPerS: carried, stoppedBy: `the sweep's last rate` };
}

async function measureStack(label: string, choice: StackChoice, o: Options): Promise<StackFigures> {
  say(`\n=== ${label}`);
  await fleetUp(TOPOLOGY, (line) => say(`  ${line}`), { stack: choice });
  const inventory = await loadInventory(fleet);
  const adapter = adapterFor('redis', inventory);
  try {
    const state = readState()!;
    say(`fleet ${TOPOLOGY}: ${describeStack(state.plan.stack)}; its cost measured at up ${fmt(state.baseRttMs ?? 0)} ms RTT`);
    const floorPings = o.short ? 50 : FLOOR_PINGS;
    const floor = await rttFromClient(inventory, FLOOR_SCALE, floorPings);
    say(`idle RTT floor, every link at latency scale ${FLOOR_SCALE} (${floorPings} pings each, ${PING_INTERVAL_S} s apart)`);
    say('client ->      configured    min    avg    p99    max');
    for (const r of floor) {
      say(
        `${r.to.padEnd(14)} ${fmt(r.configuredMs).padStart(10)} ${fmt(r.minMs).padStart(6)} ${fmt(r.avgMs).padStart(6)} ${fmt(r.p99Ms).padStart(6)} ${fmt(r.maxMs).padStart(6)}`,
      );
    }
    await adapter.stop();
    const nodes = dataNodes(inventory).slice(0, 3);
    const info = await adapter.formCluster(nodes, {});
    say(`redis ${info.version}: 3 masters (${nodes.map((n) => n.name).join(', ')}) formed in ${fmt(info.formedInMs / 1000, 1)} s`);
    await flushDatabase({ fleet, database: 'redis' });
    await applyLatencyEpoch({ fleet, scale: o.scale });
    await runYcsbOnce('load', {
      fleet,
      database: 'redis',
      settings: { ...ycsbSettings(o), target: undefined, maxSeconds: undefined, operationCount: RECORDS },
    });
    const use = await measureLoad(inventory, o);
    say(
      `YCSB workload A, target ${o.rate} ops/s, ${o.threads} threads, latency scale ${o.scale}: ` +
        `${use.ops} ops in ${use.seconds} s counted (${fmt(use.ops / use.seconds, 0)} ops/s; first ${WARM_UP_S} s and the last left out)`,
    );
    say('layer          CPU us/op   % of a core');
    for (const l of LAYERS) say(`${l.padEnd(14)} ${fmt(use.usPerOp[l], 1).padStart(9)} ${fmt(use.corePercent[l], 1).padStart(12)}`);
    say(`relayed        ${fmt(use.packetsPerOp ?? NaN, 1).padStart(9)} datagrams per operation through fb-wan`);
    // Keys spread evenly over the masters' slots, so an operation's expected latency is the mean
    // configured RTT from the client to a master (Redis's own service time is tens of µs).
    const expectedMs = nodes.reduce((sum, n) => sum + configuredRttMs(inventory, n.name, o.scale), 0) / nodes.length;
    const opExcessMs = (use.opLatencyMs ?? NaN) - expectedMs;
    say(`op latency     ${fmt(use.opLatencyMs ?? NaN).padStart(9)} ms  (configured RTT to a master, mean ${fmt(expectedMs)} ms)`);
    // The floor is what the stack adds on its own: the pair configured below it shows it (the
    // others are corrected down to their configured RTT by the overlay cost measured at up).
    const nearest = floor.reduce((a, b) => (b.configuredMs < a.configuredMs ? b : a));
    const capacity = o.short
      ? undefined
      : { redis: await sweepCapacity('redis', inventory, o), cassandra: await cassandraCapacity(inventory, nodes, o) };
    return { label, use, floor: nearest, opExcessMs, capacity };
  } finally {
    await adapter.stop().catch((err: Error) => say(`stopping redis failed: ${err.message}`));
    await fleetDown();
  }
}

/** Redis stopped, a Cassandra ring on the same nodes, loaded, then swept as Redis was. */
async function cassandraCapacity(inventory: Inventory, nodes: InventoryNode[], o: Options): Promise<Capacity> {
  await adapterFor('redis', inventory).stop();
  const cassandra = adapterFor('cassandra', inventory);
  try {
    const info = await cassandra.formCluster(nodes, {});
    say(`cassandra ${info.version}: ${nodes.length} nodes formed in ${fmt(info.formedInMs / 1000, 1)} s`);
    await runYcsbOnce('load', {
      fleet,
      database: 'cassandra',
      settings: { ...ycsbSettings(o), target: undefined, maxSeconds: undefined, operationCount: RECORDS },
    });
    return await sweepCapacity('cassandra', inventory, o);
  } finally {
    await cassandra.stop().catch((err: Error) => say(`stopping cassandra failed: ${err.message}`));
  }
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (readState()) throw new Error('a local fleet is up; the benchmark builds its own on each stack: run `fragbench fleet down` first');
  const hop = await hopCostUs(HOP_RATE, o.short ? 3 : 10);
  say(
    `one userspace hop here: ${fmt(hop.usPerHop, 1)} us of CPU per datagram (fb-wan relaying on loopback with a 1 ms delay, ${hop.relayed} datagrams)`,
  );
  const stacks = o.short ? [STACKS[0], STACKS[STACKS.length - 1]] : STACKS;
  const figures: StackFigures[] = [];
  for (const { label, choice } of stacks) figures.push(await measureStack(label, choice, o));

  const hops = (us: number) => us / hop.usPerHop;
  say(`\nside by side (fhc-4, Redis, YCSB workload A at ${o.rate} ops/s, ${o.threads} threads, latency scale ${o.scale}; CPU per operation)`);
  say(
    'stack                            tool us  hops  ycsb  tincd  wg  fb-wan  host busy  floor avg  capacity, verdict ok (redis; cassandra, 3 nodes)',
  );
  for (const f of figures) {
    const u = f.use.usPerOp;
    say(
      `${f.label.padEnd(32)} ${fmt(f.use.toolUsPerOp, 0).padStart(7)} ${fmt(hops(f.use.toolUsPerOp), 1).padStart(5)} ${fmt(u.ycsb, 0).padStart(5)} ${fmt(u.tincd, 0).padStart(6)} ${fmt(u.wireguard, 0).padStart(3)} ${fmt(u['fb-wan'], 0).padStart(7)} ${fmt(f.use.hostBusyPercent, 0).padStart(9)} % ${fmt(f.floor.avgMs).padStart(7)} ms  ` +
        (f.capacity
          ? (['redis', 'cassandra'] as const).map((d) => `${f.capacity![d].opsPerS} ops/s (stopped at ${f.capacity![d].stoppedBy})`).join('; ')
          : 'not swept in --short'),
    );
  }
  const [published, lightest] = [figures[0], figures[figures.length - 1]];
  const network = (f: StackFigures) => f.use.toolUsPerOp - f.use.usPerOp.ycsb;
  for (const f of figures) {
    // What the model promises on every stack: an operation takes the configured round trip, plus Redis's own tens of µs.
    targets.atMost(`${f.label}: op latency excess over the configured RTT to a master`, f.opExcessMs, 1, ' ms');
  }
  targets.atMost(
    "published stack's data path, in hops (half of 76677f9's 11.0 on the machine of 2026-11-27)",
    hops(published.use.toolUsPerOp),
    BASELINE_HOPS_PER_OP / 2,
    ' hops',
    { kind: 'speed', digits: 1 },
  );
  targets.below("published stack's idle floor avg", published.floor.avgMs, 0.3, ' ms', { kind: 'speed' });
  // The light stack's reason to exist: its network daemons cost at most half the published stack's per operation.
  targets.atMost("lightest stack's network daemons per operation / the published stack's", network(lightest) / network(published), 0.5, '', {
    kind: 'speed',
  });
}

runBenchmark('stack', main, targets);
