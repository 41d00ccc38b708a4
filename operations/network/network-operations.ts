/**
 * A fleet's network: shape, cut and restore links, and measure RTT, bandwidth, traffic and
 * overlay routes. Each loads the fleet's inventory from its FleetRef; shaping goes through the
 * fleet's back end (the emulator locally, tc on VMs). Bad input throws InputError before any
 * command runs.
 */
import type { RttMatrix, TrafficMatrix } from '../../core/network';
import type { FleetRef } from '../../core/fleet-ref';
import { InputError } from '../../core/errors';
import { dataNodes, findNode, type Inventory } from '../../core/inventory';
import type { NodeExec } from '../../core/exec';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { execFor, rootArgv } from '../../services/exec/transports';
import { ping } from '../../services/probes/ping';
import { iperfPort, measureThroughput } from '../../services/probes/iperf';
import { linkBytes } from '../../services/probes/traffic';
import { nextHops, tincRoute, type TincFiles } from '../../services/probes/route';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import { applyConditionEvent, flap, partition, rampConditions, replayTrace } from '../../infra/shaping/condition-events';
import type { Lateness, ReplayInput, ReplayReport } from '../../core/trace';
import { quantile } from '../../services/probes/quantile';
import { moveSite as moveAlong } from '../../infra/shaping/site-motion';
import type { MoveInput, MoveResult } from '../../core/site-motion';
import type { ConditionChangeSpec, ConditionFactors, ConditionValues } from '../../core/link-conditions';
import type { ConditionEventInput } from '../../core/link-selection';
import { fleetPaths } from '../../infra/local/state';
import { tincPidFile } from '../../infra/local/tinc';
import { VM_TINC_FILES } from '../../infra/pulumi/render/tinc';

/** Pings running at once while measuring a matrix (each is one short-lived process). */
const PING_CONCURRENCY = 16;

async function network(fleet: FleetRef): Promise<FleetNetwork> {
  return new FleetNetwork(await loadInventory(fleet));
}

function execOf(inventory: Inventory) {
  return (node: string): NodeExec => execFor(findNode(inventory, node).exec);
}

function checkNode(inventory: Inventory, name: string, field: string): void {
  if (!inventory.nodes.some((n) => n.name === name)) {
    throw new InputError(field, `unknown node "${name}"; nodes: ${inventory.nodes.map((n) => n.name).join(', ')}`);
  }
}

function checkPositive(value: number, field: string, example: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InputError(field, `must be a number above 0 (e.g. ${example}), got ${value}`);
  }
}

export async function applyLatencyEpoch(input: { fleet: FleetRef; scale: number }): Promise<{ appliedAt: number }> {
  checkPositive(input.scale, 'scale', '0.2 for a fifth of the reference latency');
  await (await network(input.fleet)).setLatencyScale(input.scale);
  return { appliedAt: Date.now() };
}

export async function applyBandwidthEpoch(input: { fleet: FleetRef; scale: number }): Promise<{ appliedAt: number }> {
  checkPositive(input.scale, 'scale', '0.5 for half the reference bandwidth');
  await (await network(input.fleet)).setBandwidthScale(input.scale);
  return { appliedAt: Date.now() };
}

export async function cutLink(input: { fleet: FleetRef; link: string }): Promise<{ appliedAt: number }> {
  const net = await network(input.fleet);
  net.link(input.link);
  await net.cut(input.link);
  return { appliedAt: Date.now() };
}

export async function restoreLink(input: { fleet: FleetRef; link: string }): Promise<{ appliedAt: number }> {
  const net = await network(input.fleet);
  net.link(input.link);
  await net.restore(input.link);
  return { appliedAt: Date.now() };
}

/** A network event applied at once: set, scale, cut (one way or both), restore or reset the selected links. */
export async function changeLinkConditions(input: {
  fleet: FleetRef;
  target: ConditionEventInput;
  change: ConditionChangeSpec;
}): Promise<{ appliedAt: number; links: number }> {
  const links = await applyConditionEvent(await network(input.fleet), input.target, input.change);
  return { appliedAt: Date.now(), links };
}

/** Runs for `overS` seconds: call it from an activity that heartbeats. */
export async function rampLinkConditions(input: {
  fleet: FleetRef;
  target: ConditionEventInput;
  change: { set: ConditionValues } | { scale: ConditionFactors };
  overS: number;
  steps: 'linear' | 'seconds';
}): Promise<{ appliedAt: number; startedAt: number; completedAt: number; links: number; latenessMs: Lateness }> {
  checkPositive(input.overS, 'over', '60 seconds');
  const net = await network(input.fleet);
  const appliedAt = Date.now();
  const { links, startedAt, latenessMs } = await rampConditions(net, input.target, input.change, { overS: input.overS, steps: input.steps });
  return { appliedAt, startedAt, completedAt: Date.now(), links, latenessMs: latenessOf(latenessMs) };
}

/** How late the steps of a timed change (ramp, replay) landed, ms. */
function latenessOf(latenessMs: number[]): Lateness {
  return {
    p50: quantile(latenessMs, 0.5),
    p90: quantile(latenessMs, 0.9),
    p95: quantile(latenessMs, 0.95),
    p99: quantile(latenessMs, 0.99),
    max: latenessMs.reduce((m, x) => Math.max(m, x), 0),
  };
}

/** Runs for the trace's length (or until `untilS` when looped): call it from an activity that heartbeats. */
export async function replayLinkTrace(input: { fleet: FleetRef } & ReplayInput): Promise<ReplayReport> {
  checkPositive(input.speed, 'speed', '1 for the trace as recorded');
  if (input.rows.length === 0)
    throw new InputError('rows', 'the replay has no rows: plan it through the scenario loader, which reads its trace file');
  const net = await network(input.fleet);
  const appliedAt = Date.now();
  const { steps, latenessMs } = await replayTrace(net, input.rows, { speed: input.speed, loop: input.loop, untilS: input.untilS });
  const completedAt = Date.now();
  return {
    appliedAt,
    completedAt,
    steps,
    latenessMs: latenessOf(latenessMs),
  };
}

/** Runs for `overS` seconds: call it from an activity that heartbeats. */
export async function moveSite(input: { fleet: FleetRef } & MoveInput): Promise<{ appliedAt: number; completedAt: number } & MoveResult> {
  const { fleet, ...move } = input;
  const net = await network(fleet);
  const appliedAt = Date.now();
  const result = await moveAlong(net, move);
  return { appliedAt, completedAt: Date.now(), ...result };
}

export async function partitionLinks(input: { fleet: FleetRef; groups: string[][] }): Promise<{ appliedAt: number; cut: string[] }> {
  const cut = await partition(await network(input.fleet), input.groups);
  return { appliedAt: Date.now(), cut };
}

export async function healPartition(input: { fleet: FleetRef }): Promise<{ appliedAt: number; restored: string[] }> {
  const restored = await (await network(input.fleet)).heal();
  return { appliedAt: Date.now(), restored };
}

/** Runs for `forS` seconds: call it from an activity that heartbeats. */
export async function flapLink(input: {
  fleet: FleetRef;
  link: string;
  periodS: number;
  forS: number;
}): Promise<{ appliedAt: number; completedAt: number; flips: number }> {
  checkPositive(input.periodS, 'period', '10 seconds');
  checkPositive(input.forS, 'for', '60 seconds');
  const net = await network(input.fleet);
  const appliedAt = Date.now();
  const flips = await flap(net, input.link, input.periodS, input.forS);
  return { appliedAt, completedAt: Date.now(), flips };
}

/** With a lossSeed (a cell's start), every link's loss and jitter draws start again from it. */
export async function resetNetwork(input: { fleet: FleetRef; lossSeed?: number }): Promise<{ appliedAt: number }> {
  await (await network(input.fleet)).reset(input.lossSeed);
  return { appliedAt: Date.now() };
}

export async function measureRtt(input: { fleet: FleetRef; nodes?: string[]; count: number }): Promise<RttMatrix> {
  checkPositive(input.count, 'count', '10 pings per pair');
  if (!Number.isInteger(input.count)) throw new InputError('count', `must be a whole number of pings, got ${input.count}`);
  const inventory = await loadInventory(input.fleet);
  const nodes = input.nodes ?? dataNodes(inventory).map((n) => n.name);
  nodes.forEach((n, i) => checkNode(inventory, n, `nodes[${i}]`));
  const pairs = nodes.flatMap((from) => nodes.filter((to) => to !== from).map((to) => ({ from, to })));
  const exec = execOf(inventory);
  const startedAt = Date.now();
  const results = await inBatches(pairs, PING_CONCURRENCY, async ({ from, to }) => {
    const result = await ping(exec(from), findNode(inventory, to).overlayAddress, input.count);
    return { from, to, avgMs: result.avgMs, lossPercent: result.lossPercent };
  });
  const answered = results.filter((r) => r.avgMs !== null).map((r) => r.avgMs as number);
  return {
    time: Date.now(),
    startedAt,
    pairs: results,
    meanMs: answered.length > 0 ? answered.reduce((s, x) => s + x, 0) / answered.length : null,
  };
}

export async function measureBandwidth(input: {
  fleet: FleetRef;
  from: string;
  to: string;
  seconds: number;
  bitrateMbps?: number;
}): Promise<{ mbps: number }> {
  checkPositive(input.seconds, 'seconds', '10');
  if (input.bitrateMbps !== undefined) checkPositive(input.bitrateMbps, 'bitrateMbps', '10');
  const inventory = await loadInventory(input.fleet);
  checkNode(inventory, input.from, 'from');
  checkNode(inventory, input.to, 'to');
  if (input.from === input.to) throw new InputError('to', 'must differ from "from"');
  const exec = execOf(inventory);
  const mbps = await measureThroughput({
    sender: exec(input.from),
    receiver: exec(input.to),
    receiverAddress: findNode(inventory, input.to).overlayAddress,
    port: iperfPort(inventory.nodes.findIndex((n) => n.name === input.from)),
    seconds: input.seconds,
    bitrateMbps: input.bitrateMbps,
  });
  return { mbps };
}

export async function readTraffic(input: { fleet: FleetRef }): Promise<TrafficMatrix> {
  const inventory = await loadInventory(input.fleet);
  const perLink = await linkBytes(inventory, execOf(inventory));
  const perPair = new Map<string, { a: string; b: string; bytes: number }>();
  for (const link of inventory.links) {
    const [a, b] = [link.a, link.b].sort();
    const key = `${a}~${b}`;
    const entry = perPair.get(key) ?? { a, b, bytes: 0 };
    entry.bytes += perLink.get(link.id) ?? 0;
    perPair.set(key, entry);
  }
  return { time: Date.now(), pairs: [...perPair.values()] };
}

export async function overlayRoute(input: { fleet: FleetRef; from: string; to: string }): Promise<{ hops: string[] }> {
  const inventory = await loadInventory(input.fleet);
  checkNode(inventory, input.from, 'from');
  checkNode(inventory, input.to, 'to');
  const exec = execOf(inventory);
  const files = (node: string): TincFiles =>
    inventory.source === 'local' ? { pidFile: tincPidFile(node), logFile: fleetPaths.log(`tinc-${node}`) } : VM_TINC_FILES;
  const asRoot = (node: string) => (argv: string[]) => rootArgv(findNode(inventory, node).exec, argv);
  const hops = await tincRoute(input.from, input.to, (node) => nextHops(exec(node), files(node), asRoot(node)), inventory.nodes.length);
  return { hops };
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of the results. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
