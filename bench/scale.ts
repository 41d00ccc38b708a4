/**
 * `npm run bench:scale`: what one host carries. Builds fhc-32 (32 sites and a client, every pair
 * within reach linked, close pairs by three link types) and prints
 *  - up and down times; sites, links, WireGuard interfaces and processes;
 *  - the network daemons' CPU (fb-wan; tincd and boringtun, the overlay) idle, per link, and
 *    per Mbit/s carried under a workload, and their memory (RSS);
 *  - the RTT error of every directly linked pair (configured vs median of its pings), probes only
 *    and with the workload running, against max(1 ms, 2 %);
 *  - the validity verdict (core/verdict.ts) of both windows, so a host that was CPU-bound while
 *    it measured says so; and what that makes one host's capacity, extrapolated.
 * The workload is paced iperf3 flows between site pairs spread over the fleet, not a database:
 * a YCSB client on one node loads only that node's links, and its JVM would take a core of this
 * 2-core host that the stack needs; iperf3 gives the Mbit/s carried directly.
 * CPU comes from host telemetry (operations/telemetry), so other processes on a shared host do not
 * count, but they do compete for the CPU: read the figures beside the host's busy %.
 * Removes the fleet at the end, also on error. Needs root and no fleet up.
 *
 *   npx tsx bench/scale.ts [--short] [--flows 8] [--mbps 4] [--pings 20]
 * `--short` (CI): a sample of 12 pairs, 4 flows; the pairs' RTT under the workload is judged
 * against the verdict's per-probe bound, max(1 ms, 5 %) (full mode: 2 %).
 */
import { loadInventory } from '../services/inventory/inventory-loader';
import { measureBandwidth } from '../operations/network/network-operations';
import { median } from '../services/probes/quantile';
import { startHostTelemetry } from '../operations/telemetry/host-telemetry';
import { readPidStat } from '../platform/pid';
import type { Inventory, InventoryLink } from '../core/inventory';
import type { TelemetrySample } from '../core/telemetry';
import { MAX_NODES } from '../core/topology';
import { phaseVerdict, VERDICT_THRESHOLDS, type PhaseVerdict, type RttProbe } from '../core/verdict';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { overlayPaths } from '../infra/local/overlay-paths';
import { readState, type ProcessKind } from '../infra/local/state';
import { closedConnections } from '../infra/local/tinc';
import { runHost } from '../platform/command';
import { sleep } from '../platform/wait';
import { option, SHORT } from './args';
import { PAIRS_AT_ONCE, rttPairs, type PairRtt } from './rtt-pairs';
import { runBenchmark, Targets } from './targets';

const fleet = { kind: 'local' } as const;
const TOPOLOGY = 'fhc-32';
const SAMPLE_PAIRS = 12;
// A pair's pings span 2 s, in short mode too: under the `fast` failover profile every tincd sends
// its keepalives when the wall-clock second turns (tinc 1.0 checks its connections by time(NULL)),
// ~1,000 packets through boringtun and fb-wan within ~200 ms on fhc-32, which delays a data packet
// caught in that burst by up to ~40 ms on this 2-core host (idle fleet, 40 s of pings: client-melbourne
// median 195 ms, p99 200, max 235). Five pings over 0.25 s put a median inside one burst in 5 of 9
// short runs on 2026-11-28; a median over 2 s cannot sit in one.
const PINGS = option('pings', 20);
const PING_INTERVAL_S = 0.1;
const IDLE_S = SHORT ? 4 : 30;
const FLOWS = option('flows', SHORT ? 4 : 8);
const FLOW_MBPS = option('mbps', 4);
/** Flows last a round of probes of every probed pair (pairs pinged a batch at a time), with a margin; the bench waits out the rest. */
const flowSeconds = (probedPairs: number) =>
  Math.ceil(FLOW_RAMP_MS / 1000 + Math.ceil(probedPairs / PAIRS_AT_ONCE) * (PINGS * PING_INTERVAL_S + 0.5) + 2);
/** TCP's start and iperf3's omitted first second, before the loaded window opens. */
const FLOW_RAMP_MS = 2500;
const STACK: ProcessKind[] = ['emulator', 'wireguard', 'tinc'];
/** Telemetry's role for each daemon kind (operations/telemetry/local-fleet.ts). */
const ROLE: Record<ProcessKind, string> = { emulator: 'emulator', wireguard: 'wireguard', tinc: 'tinc' };
const LABEL: Record<ProcessKind, string> = { emulator: 'fb-wan', wireguard: 'boringtun', tinc: 'tincd' };

const fmt = (x: number, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const say = (line = '') => console.log(line);
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const targets = new Targets(say);

// ---- what the host did while a window ran ------------------------------------------------

interface HostUse {
  seconds: number;
  hostBusyPercent: number;
  /** Mean % of one core per daemon kind, and all three. */
  stack: Record<ProcessKind, number>;
  stackPercent: number;
  /** Bytes the emulator relayed (both directions of every link), Mbit/s. */
  relayedMbps: number;
  /** The sampler's own CPU, % of one core. */
  samplerPercent: number;
}

async function observed<T>(inventory: Inventory, work: () => Promise<T>): Promise<{ result: T; telemetry: TelemetrySample[] }> {
  const telemetry: TelemetrySample[] = [];
  const sampler = await startHostTelemetry(inventory, (s) => telemetry.push(s));
  try {
    return { result: await work(), telemetry };
  } finally {
    sampler.stop();
  }
}

function hostUse(telemetry: TelemetrySample[]): HostUse {
  if (telemetry.length === 0) throw new Error('the window was too short for a telemetry sample');
  const seconds = sum(telemetry.map((s) => s.intervalMs)) / 1000;
  const mean = (f: (s: TelemetrySample) => number) => sum(telemetry.map((s) => f(s) * s.intervalMs)) / 1000 / seconds;
  const stack = Object.fromEntries(STACK.map((k) => [k, mean((s) => s.roles[ROLE[k]] ?? 0)])) as Record<ProcessKind, number>;
  const relayedBytes = sum(telemetry.flatMap((s) => Object.values(s.links).map((b) => b.txBytes + b.rxBytes)));
  return {
    seconds,
    hostBusyPercent: mean((s) => s.hostBusyPercent),
    stack,
    stackPercent: sum(Object.values(stack)),
    relayedMbps: (relayedBytes * 8) / 1e6 / seconds,
    samplerPercent: mean((s) => s.selfCpuPercent ?? 0),
  };
}

function sayUse(label: string, use: HostUse, links: number): void {
  say(
    `${label.padEnd(22)} ${fmt(use.seconds, 0).padStart(4)} s  host busy ${fmt(use.hostBusyPercent, 1).padStart(5)} %  ` +
      STACK.map((k) => `${LABEL[k]} ${fmt(use.stack[k], 1)}`).join('  ') +
      `  stack ${fmt(use.stackPercent, 1)} % of a core (${fmt((1000 * use.stackPercent) / links, 1)} per 1000 links)  ` +
      `relayed ${fmt(use.relayedMbps, 1)} Mbit/s  sampler ${fmt(use.samplerPercent, 1)} %`,
  );
}

// ---- RTT ---------------------------------------------------------------------------------

/** A pair's RTT bound: max(1 ms, `relative` of its configured RTT); `note` says why it is not the usual 2 %. */
interface RttBound {
  relative: number;
  note?: string;
}
const TWO_PERCENT: RttBound = { relative: 0.02 };
const allowedMs = (configuredMs: number, relative = TWO_PERCENT.relative) => Math.max(1, relative * configuredMs);
const errorMs = (p: PairRtt) => p.medianMs - p.configuredMs;

/** Each reply as an in-run probe, for the verdict (which judges by share of probes off). */
function asProbes(pairs: PairRtt[]): RttProbe[] {
  const time = Date.now();
  return pairs.flatMap((p) => p.samplesMs.map((measuredMs) => ({ time, from: p.a, to: p.b, measuredMs, configuredMs: p.configuredMs })));
}

const pairLine = (p: PairRtt) => `${p.a}-${p.b} ${fmt(p.configuredMs, 1)} -> ${fmt(p.medianMs, 1)} ms`;

/**
 * Under the workload a pair's median moves with this host's speed (issue 29: CI's short run of
 * 1eba96b had 11 of 12 pairs within 2 %), so short mode holds the loaded window to the verdict's
 * per-probe bound, 5 %; full mode to 2 %.
 */
const LOADED_SHORT: RttBound = {
  relative: VERDICT_THRESHOLDS.rttTolerancePercent / 100,
  note: "short mode: under the workload a median moves with the host's speed; full mode judges 2 %",
};

function sayRtt(label: string, pairs: PairRtt[], { relative, note }: RttBound = TWO_PERCENT): void {
  const bound = `max(1 ms, ${Math.round(relative * 100)} %)`;
  const isWithin = (p: PairRtt) => Math.abs(errorMs(p)) <= allowedMs(p.configuredMs, relative);
  const within = pairs.filter(isWithin);
  const outside = pairs.filter((p) => !isWithin(p));
  targets.count(`RTT ${label}, pairs within ${bound}`, within.length, pairs.length, pairs.length, {
    ...(note ? { note } : {}),
    onMiss: `outside: ${outside.map(pairLine).join('; ')}`,
  });
  const errors = pairs.map(errorMs);
  const worst = [...pairs].sort((x, y) => Math.abs(errorMs(y)) / allowedMs(y.configuredMs) - Math.abs(errorMs(x)) / allowedMs(x.configuredMs));
  say(
    `RTT ${label}: ${within.length}/${pairs.length} pairs within ${bound} (median of ${PINGS} pings each); ` +
      `error median ${fmt(median(errors))} ms, most negative ${fmt(Math.min(...errors))} ms, most positive ${fmt(Math.max(...errors))} ms`,
  );
  say(`  worst: ${worst.slice(0, 4).map(pairLine).join('; ')}`);
}

function sayVerdict(label: string, v: PhaseVerdict): void {
  const roles = Object.entries(v.figures.roleMedianPercent)
    .map(([role, pct]) => `${role} ${pct}`)
    .join(', ');
  say(`verdict ${label}: ${v.verdict}${v.reasons.length ? ` (${v.reasons.map((r) => r.text).join('; ')})` : ''}`);
  say(
    `  host busy median ${v.figures.hostBusyMedianPercent} %, probes off max(1 ms, 5 %) ${v.figures.probesOffPercent} % of ${v.figures.probes}; ` +
      `median % of a core: ${roles}`,
  );
}

/** Meta connections every tincd has closed so far. */
function metaConnectionsClosed(inventory: Inventory): number {
  return sum(inventory.nodes.map((n) => closedConnections(n.name)));
}

/**
 * Probed pairs the overlay does not carry over their own fibre link right now (over another
 * type, or through other sites): such a pair measures tinc's path, not the emulator's link.
 */
async function offFibre(probed: Inventory): Promise<string[]> {
  const key = (a: string, b: string) => [a, b].sort().join('~');
  const paths = new Map((await overlayPaths(readState()!.plan)).map((p) => [key(p.from, p.to), p]));
  return probed.links
    .filter((l) => {
      const path = paths.get(key(l.a, l.b));
      return !path || path.hops.length !== 2 || path.links[0] !== l.id;
    })
    .map((l) => l.id);
}

interface OverlayMotion {
  /** Meta connections closed during the window. */
  closed: number;
  /** Probed pairs off their fibre at its end. */
  off: string[];
}

/** One round of pings over every probed pair, and whether the overlay held still meanwhile (tinc's reconnects and path changes). */
async function probeRound(inventory: Inventory, probed: Inventory): Promise<{ pairs: PairRtt[]; overlay: OverlayMotion }> {
  const before = metaConnectionsClosed(inventory);
  const pairs = await rttPairs(probed, 1, PINGS, PING_INTERVAL_S);
  const closed = metaConnectionsClosed(inventory) - before;
  return { pairs, overlay: { closed, off: await offFibre(probed) } };
}

function sayOverlay(label: string, o: OverlayMotion, probed: Inventory): void {
  const listed = o.off.slice(0, 6).join(', ') + (o.off.length > 6 ? ', ...' : '');
  say(
    `overlay ${label}: ${o.closed} tinc meta connections closed during the window; ` +
      `${o.off.length}/${probed.links.length} probed pairs off their fibre at its end${o.off.length ? ` (${listed})` : ''}`,
  );
}

// ---- the fleet ---------------------------------------------------------------------------

/** Pairs with a direct link, one per pair (its fibre, type 0, the pair's fastest): all, or a spread sample. */
function probedInventory(inventory: Inventory): Inventory {
  const fibre = inventory.links.filter((l) => l.type === 0);
  if (!SHORT) return { ...inventory, links: fibre };
  const stride = fibre.length / SAMPLE_PAIRS;
  return { ...inventory, links: Array.from({ length: SAMPLE_PAIRS }, (_, i) => fibre[Math.floor(i * stride)]) };
}

/** Flows on fibre links between data nodes, spread over the link list, no node in two flows. */
function flowLinks(inventory: Inventory, count: number): InventoryLink[] {
  const candidates = inventory.links.filter(
    (l) => l.type === 0 && l.a !== inventory.clientNode && l.b !== inventory.clientNode && l.bandwidthMbps >= 2 * FLOW_MBPS,
  );
  const used = new Set<string>();
  const chosen: InventoryLink[] = [];
  const stride = Math.max(1, Math.floor(candidates.length / count));
  for (let start = 0; start < stride && chosen.length < count; start++) {
    for (let i = start; i < candidates.length && chosen.length < count; i += stride) {
      const l = candidates[i];
      if (used.has(l.a) || used.has(l.b)) continue;
      used.add(l.a).add(l.b);
      chosen.push(l);
    }
  }
  return chosen;
}

async function memory(): Promise<Record<ProcessKind, { processes: number; mb: number }>> {
  const pageBytes = Number((await runHost(['getconf', 'PAGESIZE'])).stdout.trim());
  const out = Object.fromEntries(STACK.map((k) => [k, { processes: 0, mb: 0 }])) as Record<ProcessKind, { processes: number; mb: number }>;
  for (const p of readState()!.processes) {
    const rss = readPidStat(p.pid)?.rssPages;
    if (rss === undefined) continue;
    out[p.kind].processes++;
    out[p.kind].mb += (rss * pageBytes) / 2 ** 20;
  }
  return out;
}

async function main(): Promise<void> {
  if (readState()) throw new Error('a local fleet is up; the benchmark builds its own: run `fragbench fleet down` first');
  try {
    const up = await fleetUp(TOPOLOGY, (line) => say(`  ${line}`));
    const inventory = await loadInventory(fleet);
    const state = readState()!;
    const interfaces = state.plan.nodes.reduce((n, node) => n + node.interfaces.length, 0);
    const links = up.links;
    const sites = new Set(inventory.nodes.map((n) => n.site)).size;
    const processes = (kind: ProcessKind) => state.processes.filter((p) => p.kind === kind).length;
    targets.atMost(`fleet up ${TOPOLOGY}`, up.seconds, 30, ' s', { kind: 'speed', digits: 1 });
    say(
      `fleet up ${TOPOLOGY}: ${fmt(up.seconds, 1)} s; ${sites} sites, ${up.nodes} nodes, ${links} links, ${interfaces} WireGuard interfaces; ` +
        `processes: ${STACK.map((k) => `${processes(k)} ${LABEL[k]}`).join(', ')}; overlay RTT cost ${fmt(up.baseRttMs)} ms; ` +
        `network daemons on CPU ${state.networkCpus ?? 'any'}; tinc PingInterval ${state.plan.tinc.pingInterval} s, PingTimeout ${state.plan.tinc.pingTimeout} s`,
    );

    say('\nCPU (% of one core, mean over the window; telemetry once a second)');
    const idle = hostUse((await observed(inventory, () => sleep(IDLE_S * 1000))).telemetry);
    sayUse('idle', idle, links);

    const probed = probedInventory(inventory);
    const probe = () => probeRound(inventory, probed);
    const quiet = await observed(inventory, probe);
    const probing = hostUse(quiet.telemetry);
    sayUse('probes only', probing, links);

    const flows = flowLinks(inventory, FLOWS);
    const flowS = flowSeconds(probed.links.length);
    const flowsStarted = Date.now();
    const carried = Promise.all(flows.map((l) => measureBandwidth({ fleet, from: l.a, to: l.b, seconds: flowS, bitrateMbps: FLOW_MBPS })));
    await sleep(FLOW_RAMP_MS);
    const busy = await observed(inventory, probe);
    const probesOutlastedFlows = Date.now() > flowsStarted + flowS * 1000;
    const loaded = hostUse(busy.telemetry);
    const goodputMbps = sum((await carried).map((r) => r.mbps));
    sayUse(`workload + probes`, loaded, links);
    say(
      `workload: ${flows.length} iperf3 flows at ${FLOW_MBPS} Mbit/s (${flows.map((l) => l.id).join(', ')}): ` +
        `${fmt(goodputMbps, 1)} Mbit/s of TCP payload carried` +
        (probesOutlastedFlows ? ' (the flows ended before the probes: the last pairs were probed without load)' : ''),
    );

    say('');
    sayRtt('probes only', quiet.result.pairs);
    sayRtt('with the workload', busy.result.pairs, SHORT ? LOADED_SHORT : TWO_PERCENT);
    sayOverlay('probes only', quiet.result.overlay, probed);
    sayOverlay('with the workload', busy.result.overlay, probed);
    const quietVerdict = phaseVerdict({ phase: 'probes', telemetry: quiet.telemetry, probes: asProbes(quiet.result.pairs), samples: [] });
    const busyVerdict = phaseVerdict({ phase: 'loaded', telemetry: busy.telemetry, probes: asProbes(busy.result.pairs), samples: [] });
    sayVerdict('probes only', quietVerdict);
    sayVerdict('with the workload', busyVerdict);
    targets.holds('verdict probes only', quietVerdict.verdict, 'ok', quietVerdict.verdict === 'ok');
    // Under the workload the verdict is this host's capacity (issue 29: the network daemons share one
    // CPU here): alone on the host in short mode it read network-off in 1 of 3 runs (13.3 % of 60
    // probes off, every pair's median within bounds), so it is judged in full mode; the pairs' RTT
    // under the workload stays judged in short mode.
    targets.holds('verdict with the workload', busyVerdict.verdict, 'ok', busyVerdict.verdict === 'ok', { kind: 'speed' });
    // The measurer's own share: what the probes and the sampler cost, and whether the host was
    // free enough while they measured (host-bound: other work competed with the daemons).
    const errorShiftMs = median(busy.result.pairs.map(errorMs)) - median(quiet.result.pairs.map(errorMs));
    say(
      `measurer: the probes add ${fmt(probing.stackPercent - idle.stackPercent, 1)} % of a core to the daemons, telemetry ${fmt(probing.samplerPercent, 1)} %; ` +
        `the workload moved the median pair error by ${fmt(errorShiftMs)} ms; verdict ${quietVerdict.verdict} while probing, ${busyVerdict.verdict} under the workload`,
    );

    const mem = await memory();
    const totalMb = sum(STACK.map((k) => mem[k].mb));
    const availableMb = busy.telemetry.at(-1)!.memAvailableMb;
    say(
      `\nmemory (RSS): ${STACK.map((k) => `${LABEL[k]} ${fmt(mem[k].mb, 1)} MB in ${mem[k].processes} (${fmt(mem[k].mb / mem[k].processes, 1)} each)`).join(', ')}; ` +
        `${fmt(totalMb, 0)} MB in all, ${fmt((1024 * totalMb) / links, 0)} kB per link; the host has ${availableMb} MB available ` +
        `(~${fmt((availableMb * links) / totalMb, 0)} more links at that figure)`,
    );

    // Linear extrapolation from this one size: what the daemons' CPU (all pinned to one CPU
    // unless FRAGBENCH_NETWORK_CPUS says otherwise) leaves for more links or more traffic.
    const perLinkIdle = idle.stackPercent / links;
    const perMbps = (loaded.stackPercent - probing.stackPercent) / goodputMbps;
    const headroom = 100 - loaded.stackPercent;
    say(
      `\ncapacity (one core for the network daemons, linear extrapolation): idle ${fmt(perLinkIdle, 4)} % of a core per link ` +
        `(${fmt(idle.stackPercent, 1)} % for ${links} links: ~${fmt(100 / perLinkIdle, 0)} links before idle upkeep alone fills the core); ` +
        `${fmt(perMbps, 2)} % of a core per Mbit/s carried (${fmt(perMbps * 10, 1)} ms of CPU per Mbit); ` +
        `headroom under this workload ${fmt(headroom, 0)} % of a core, ~${fmt(headroom / perMbps, 0)} Mbit/s more across the fleet; ` +
        `loaded ${fmt(loaded.stackPercent / links, 3)} % of a core per link; the address plan allows ${MAX_NODES} nodes`,
    );
    if (busy.result.pairs.length === 0 || goodputMbps <= 0) throw new Error('the loaded window measured nothing');
  } finally {
    const down = await fleetDown();
    if (down.removed) say(`fleet down ${TOPOLOGY}: ${fmt(down.seconds, 1)} s`);
  }
}

runBenchmark('scale', main, targets);
