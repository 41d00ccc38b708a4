/**
 * `npm run bench:network`: builds the fhc-8dc fleet and prints how closely it reproduces the
 * reference network: configured vs measured RTT for every pair at latency scale 1.0 and 0.2,
 * bandwidth caps vs iperf3, how long two nodes are cut off after their direct link(s) go, how
 * soon they are back on their fastest link after the restore and the path they take before, in
 * and after the cut, and fleet up/down times, and failover under the topology failover profiles (a custom one; tinc's
 * defaults in full mode only: over a minute). Removes the fleet at the end, also on error.
 * Needs root and no fleet up. The same figures at scale (fhc-32, 244 links, with a workload
 * running) are `npm run bench:scale` (bench/scale.ts).
 * `--short` (CI): 10 pings per pair at scale 0.2 only, 3 s iperf3 runs, one failover try each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { NetnsExec } from '../services/exec/transports';
import { applyBandwidthEpoch, applyLatencyEpoch, cutLink, measureBandwidth, restoreLink } from '../operations/network/network-operations';
import { ping } from '../services/probes/ping';
import { linkBytes } from '../services/probes/traffic';
import { median, quantile } from '../services/probes/quantile';
import { loadInventory } from '../services/inventory/inventory-loader';
import { findNode, type Inventory } from '../core/inventory';
import type { FailoverProfile } from '../core/failover';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { namespaceOf } from '../infra/local/plan';
import { fleetPaths, readState } from '../infra/local/state';
import { formatPath, metaConnectionLinks, overlayPaths, pairLinks, type OverlayPath } from '../infra/local/overlay-paths';
import { EmulatorClient } from '../infra/local/emulator-client';
import { netnsArgv, startCommand } from '../platform/command';
import { sleep, waitFor } from '../platform/wait';
import { SHORT } from './args';
import { rttPairs, type PairRtt } from './rtt-pairs';
import { runBenchmark, Targets } from './targets';
import { linkedSites } from '../test/support/small-topology';

const fleet = { kind: 'local' } as const;
const PINGS_PER_PAIR = SHORT ? 10 : 100;
const PING_INTERVAL_S = 0.05;
/**
 * After a latency change the emulator keeps each direction FIFO, so packets sent just after a
 * decrease wait behind those sent before it (as on a real path): measure once that has drained.
 */
const SETTLE_MS = 2000;
/**
 * Links whose caps iperf3 checks (short, middle and long RTT), and the bandwidth scale that brings
 * their caps under what one path (tinc + userspace WireGuard + relay) carries on this 2-core host:
 * about 65 Mbit/s uncapped when the host is otherwise idle.
 */
const BANDWIDTH_LINKS = ['sydney-pune/0', 'singapore-virginia/0', 'melbourne-dubai/0'];
const BANDWIDTH_SCALE = 0.2;
/**
 * iperf3's runs (its first second left out). The longest link here is ~210 ms RTT at scale 1, where
 * TCP's slow start needs about 1.5 s to fill a 30 Mbit/s cap: 3 s read 26 % short in one CI run.
 * There, after slow start overshoots the one-RTT buffer (about 1,800 retransmissions), a second
 * at two thirds of the cap follows now and then (per-second rates 31.5 31.5 21.0 31.5 ... on
 * 2026-11-27): one such second in 5 s is 7 % off, two are 14 % (16.3 % in one run, alone on the
 * host). Links of 100 ms RTT or more therefore run 10 s in short mode too, as in full mode.
 */
const iperfSeconds = (rttMs: number) => (SHORT && rttMs < 100 ? 5 : 10);
const FAILOVER_TRIES = SHORT ? 1 : 3;
/** The window over which the idle fleet's own bytes are counted. */
const UPKEEP_S = SHORT ? 5 : 30;

/** What the RTT of a link may be off by: its median, and its tail (queueing and the relay's own jitter). */
const medianLimitMs = (configuredMs: number) => Math.max(1, 0.02 * configuredMs);
const tailLimitMs = (configuredMs: number) => Math.max(3, 0.05 * configuredMs);
/** Of iperf3's rate against a link's cap (one TCP flow over tinc, WireGuard and the relay). */
const BANDWIDTH_TOLERANCE_PERCENT = 10;

const fmt = (x: number, digits = 2) => x.toFixed(digits);
const say = (line = '') => console.log(line);
const targets = new Targets(say);

/**
 * The tail judged per pair: p99 over full mode's 100 pings; over short mode's 10 the p99 is the
 * slowest ping alone (one 3.2 ms reply once failed a pair whose others were within 0.5 ms), so
 * short mode judges the p90, the second slowest.
 */
const TAIL = SHORT
  ? { name: 'p90', q: 0.9, note: `short mode: ${PINGS_PER_PAIR} pings per pair, whose p99 is the slowest one alone` }
  : { name: 'p99', q: 0.99 };

const pairName = (p: { a: string; b: string }) => `${p.a}-${p.b}`;
const medianMisses = (p: PairRtt) => Math.abs(p.medianMs - p.configuredMs) > medianLimitMs(p.configuredMs);

/**
 * Every pair at a scale; a pair whose median misses is measured once more (all its pings again)
 * and judged on that, its first median printed. A stall of this shared host over part of a pair's
 * half second passes the second time (CI, 2026-11-28: melbourne-pune median +1.15 ms and p90
 * +4.17 ms, every other pair's median within 0.3 ms); an emulator off by a constant misses twice.
 */
async function measuredPairs(inventory: Inventory, scale: number): Promise<{ pairs: PairRtt[]; firstMedians: Map<string, number> }> {
  const first = await rttPairs(inventory, scale, PINGS_PER_PAIR, PING_INTERVAL_S);
  const missed = first.filter(medianMisses);
  if (missed.length === 0) return { pairs: first, firstMedians: new Map() };
  const names = new Set(missed.map(pairName));
  const again = await rttPairs(
    { ...inventory, links: inventory.links.filter((l) => names.has(pairName(l))) },
    scale,
    PINGS_PER_PAIR,
    PING_INTERVAL_S,
  );
  const second = new Map(again.map((p) => [pairName(p), p]));
  return { pairs: first.map((p) => second.get(pairName(p)) ?? p), firstMedians: new Map(missed.map((p) => [pairName(p), p.medianMs])) };
}

function reportRtt({ pairs, firstMedians }: { pairs: PairRtt[]; firstMedians: Map<string, number> }, scale: number): void {
  say(`\nRTT at latency scale ${scale} (${PINGS_PER_PAIR} pings per pair, ${PING_INTERVAL_S} s apart)`);
  say(`pair                      configured   median   err     ${TAIL.name}    err`);
  let medianOk = 0;
  let tailOk = 0;
  const tailOf = (p: PairRtt) => quantile(p.samplesMs, TAIL.q);
  for (const p of pairs) {
    const medErr = p.medianMs - p.configuredMs;
    const tailMs = tailOf(p);
    const tailErr = tailMs - p.configuredMs;
    if (!medianMisses(p)) medianOk++;
    if (Math.abs(tailErr) <= tailLimitMs(p.configuredMs)) tailOk++;
    say(
      `${`${p.a}-${p.b}`.padEnd(24)} ${fmt(p.configuredMs).padStart(10)} ${fmt(p.medianMs).padStart(8)} ${fmt(medErr).padStart(6)} ${fmt(tailMs).padStart(7)} ${fmt(tailErr).padStart(6)}`,
    );
  }
  for (const [name, firstMs] of firstMedians) {
    const p = pairs.find((x) => pairName(x) === name)!;
    say(`${name}: measured again, its first median ${fmt(firstMs)} ms (error ${fmt(firstMs - p.configuredMs)}) outside max(1 ms, 2 %)`);
  }
  const medErrs = pairs.map((p) => Math.abs(p.medianMs - p.configuredMs));
  const tailErrs = pairs.map((p) => Math.abs(tailOf(p) - p.configuredMs));
  say(
    `summary scale ${scale}: per-pair median error: median ${fmt(median(medErrs))} ms, worst ${fmt(Math.max(...medErrs))} ms; ` +
      `per-pair ${TAIL.name} error: median ${fmt(median(tailErrs))} ms, worst ${fmt(Math.max(...tailErrs))} ms`,
  );
  const again = firstMedians.size > 0 ? { note: `${firstMedians.size} measured again after a first median outside` } : {};
  targets.count(`RTT scale ${scale}, pairs with median error <= max(1 ms, 2 %)`, medianOk, pairs.length, pairs.length, again);
  // The precision the emulator has shown at the short latencies, where the overlay's own cost is a larger share.
  if (scale === 0.2) targets.atMost(`RTT scale ${scale}, median over pairs of |median error|`, median(medErrs), 0.2, ' ms');
  targets.count(
    `RTT scale ${scale}, pairs with ${TAIL.name} error <= max(3 ms, 5 %)`,
    tailOk,
    pairs.length,
    pairs.length,
    'note' in TAIL ? { note: TAIL.note } : {},
  );
}

async function bandwidth(inventory: Inventory): Promise<void> {
  say(`\nBandwidth caps (reference x ${BANDWIDTH_SCALE}) vs iperf3 (first second omitted)`);
  await applyBandwidthEpoch({ fleet, scale: BANDWIDTH_SCALE });
  say('link                      cap Mbit/s   iperf3   error   run');
  for (const id of BANDWIDTH_LINKS) {
    const link = inventory.links.find((l) => l.id === id)!;
    const cap = link.bandwidthMbps * BANDWIDTH_SCALE;
    const seconds = iperfSeconds(link.latencyMs);
    const measure = async () => {
      const { mbps } = await measureBandwidth({ fleet, from: link.a, to: link.b, seconds });
      const errorPercent = (100 * (mbps - cap)) / cap;
      say(`${id.padEnd(24)} ${fmt(cap, 1).padStart(12)} ${fmt(mbps, 1).padStart(8)} ${fmt(errorPercent, 1).padStart(6)} % in ${seconds} s`);
      return errorPercent;
    };
    // As with the RTT pairs: a flow that misses is measured once more and judged on that. One TCP
    // flow at 40 ms or more now and then loses a second to a stall of the shared host (12.4 % in
    // one CI run, beside the other lane); a cap the emulator holds wrongly misses twice.
    const first = await measure();
    const retried = Math.abs(first) > BANDWIDTH_TOLERANCE_PERCENT;
    const errorPercent = retried ? await measure() : first;
    const again = retried ? { note: `measured again after a first ${fmt(first, 1)} %` } : {};
    targets.atMost(`bandwidth ${id}, |iperf3 - cap| / cap`, Math.abs(errorPercent), BANDWIDTH_TOLERANCE_PERCENT, ' %', { digits: 1, ...again });
  }
  await applyBandwidthEpoch({ fleet, scale: 1 });
}

/**
 * Pings `to` from `from` every 50 ms while `cut` runs; returns the seconds from the cut to the
 * first reply to a request sent after it. The ping stops at that reply rather than running out its
 * window: the rest of the window measured nothing and cost CI most of this benchmark's time.
 */
async function secondsCutOff(inventory: Inventory, from: string, to: string, cut: () => Promise<void>, windowS = 15): Promise<number> {
  const address = findNode(inventory, to).overlayAddress;
  const pinger = startCommand(netnsArgv(namespaceOf(from), ['ping', '-D', '-n', '-i', '0.05', '-W', '1', '-w', String(windowS), address]), {
    input: '',
    diesWithCaller: true,
  });
  try {
    await sleep(1000);
    const cutAt = Date.now() / 1000;
    await cut();
    const firstAnswerAfterCut = (): number | undefined => {
      for (const m of pinger.stdout().matchAll(/^\[(\d+\.\d+)\] .* time=([\d.]+) ms$/gm)) {
        const received = Number(m[1]);
        if (received - Number(m[2]) / 1000 > cutAt) return received - cutAt;
      }
      return undefined;
    };
    let pingEnded = false;
    void pinger.exited.then(() => (pingEnded = true));
    const answered = await waitFor(() => firstAnswerAfterCut() ?? (pingEnded ? 'none' : undefined), {
      what: `ping from ${from} to end`,
      timeoutMs: (windowS + 10) * 1000,
    });
    if (answered === 'none') throw new Error(`${from} did not reach ${to} within ${windowS - 1} s of the cut`);
    return answered;
  } finally {
    pinger.kill('SIGINT');
    await pinger.exited;
  }
}

/** The overlay path between two nodes now, as `fleet status` shows it. */
async function pathOf(from: string, to: string): Promise<OverlayPath> {
  const paths = await overlayPaths(readState()!.plan);
  return paths.find((p) => (p.from === from && p.to === to) || (p.from === to && p.to === from))!;
}

/**
 * Restores the links and waits until the pair's meta connection is back on its fastest direct
 * link (the steering's part); returns the seconds from the last restore to then (sampled every
 * 250 ms) and the path its packets take at that moment, which tinc 1.0 may leave on the other
 * link (infra/local/overlay-paths.ts says why).
 */
async function restoreAndSettle(links: string[], from: string, to: string, timeoutS = 30): Promise<{ seconds: number; path: OverlayPath }> {
  for (const link of links) await restoreLink({ fleet, link });
  const restoredAt = Date.now();
  const plan = readState()!.plan;
  const pair = [from, to].sort().join('-');
  const best = pairLinks(plan).get(pair)![0].id;
  await waitFor(async () => (await metaConnectionLinks(plan)).get(pair)?.id === best, {
    what: `${from}-${to}'s meta connection back on ${best}`,
    timeoutMs: timeoutS * 1000,
    intervalMs: 250,
  });
  return { seconds: (Date.now() - restoredAt) / 1000, path: await pathOf(from, to) };
}

/** Of the given links, the one the overlay sends `from`'s pings to `to` over right now. */
async function busiestLink(ids: string[], from: string, to: string): Promise<string> {
  const emulator = new EmulatorClient(fleetPaths.emulatorSocket);
  const packets = async () => new Map((await emulator.stats()).map((l) => [l.id, l.ab.packets + l.ba.packets]));
  const before = await packets();
  const inventory = await loadInventory(fleet);
  await ping(new NetnsExec(namespaceOf(from)), findNode(inventory, to).overlayAddress, 20, 0.02);
  const after = await packets();
  return [...ids].sort((x, y) => after.get(y)! - before.get(y)! - (after.get(x)! - before.get(x)!))[0];
}

/**
 * Cuts `links()` in order and measures, from the last cut (the one that takes the overlay's
 * current path away), how long `from` is cut off from `to`; restores them all between tries.
 */
interface FailoverExpectation {
  targetS: number;
  /** How long to keep pinging after the cut, s. */
  windowS: number;
  tries: number;
  /** How long a restored link may take to carry the pair again, s (tinc's reconnect back-off). */
  settleS: number;
}

const FAST_FAILOVER: FailoverExpectation = { targetS: 5, windowS: 15, tries: FAILOVER_TRIES, settleS: 30 };

async function failover(label: string, from: string, to: string, links: () => Promise<string[]>, expect = FAST_FAILOVER): Promise<number[]> {
  const times: number[] = [];
  const settling: number[] = [];
  const paths: string[] = [];
  for (let i = 0; i < expect.tries; i++) {
    const inventory = await loadInventory(fleet);
    const cuts = await links();
    const before = formatPath(await pathOf(from, to));
    for (const link of cuts.slice(0, -1)) await cutLink({ fleet, link });
    times.push(await secondsCutOff(inventory, from, to, () => cutLink({ fleet, link: cuts[cuts.length - 1] }).then(() => undefined), expect.windowS));
    const during = formatPath(await pathOf(from, to));
    const back = await restoreAndSettle(cuts, from, to, expect.settleS);
    settling.push(back.seconds);
    paths.push(`${before} | cut: ${during} | restored, packets on: ${formatPath(back.path)}`);
  }
  say(`failover ${label}: ${times.map((t) => fmt(t, 2)).join(', ')} s`);
  targets.atMost(`failover ${label}, median time cut off`, median(times), expect.targetS, ' s');
  say(
    `  meta connection back on the fastest link after the restore: ${settling.map((t) => fmt(t, 2)).join(', ')} s (median ${fmt(median(settling))} s)`,
  );
  for (const p of [...new Set(paths)]) say(`  path ${from}-${to}: ${p}`);
  return times;
}

/** A triangle: cutting north-east leaves the way through south. */
const THREE_SITES = linkedSites('bench-three-sites', [
  ['north', 'east', 20],
  ['east', 'south', 30],
  ['north', 'south', 40],
]);

/** Two nodes with two connection types between them and a third node beside both. */
const TWO_TYPES = linkedSites('bench-two-types', [
  ['pa', 'pb', 35],
  ['pa', 'pb', 49, 1],
  ['pa', 'pc', 35],
  ['pb', 'pc', 49],
]);

/**
 * Bytes the links carry with no database and no workload: tinc's keepalives (one PING and PONG per
 * meta connection every PingInterval) and WireGuard's handshakes. Every traffic figure (the traffic
 * reproduction's bytes per operation) stands on this floor, which grows with time, not operations.
 */
async function upkeep(inventory: Inventory): Promise<void> {
  const execOf = (node: string) => new NetnsExec(namespaceOf(node));
  const total = (bytes: Map<string, number>) => [...bytes.values()].reduce((a, b) => a + b, 0);
  const before = await linkBytes(inventory, execOf);
  const started = Date.now();
  await sleep(UPKEEP_S * 1000);
  const after = await linkBytes(inventory, execOf);
  const perSecond = (total(after) - total(before)) / ((Date.now() - started) / 1000);
  const { pingInterval } = readState()!.plan.tinc;
  say(
    `upkeep (no database, no workload; tinc PingInterval ${pingInterval} s): ${fmt(perSecond / 1000, 1)} kB/s over ${inventory.links.length} links ` +
      `(${fmt(perSecond / inventory.links.length, 0)} B/s per link), counted by WireGuard over ${UPKEEP_S} s`,
  );
}

async function main(): Promise<void> {
  if (readState()) throw new Error('a local fleet is up; the benchmark builds its own: run `fragbench fleet down` first');
  const scratch = mkdtempSync(join(tmpdir(), 'fb-bench-'));
  try {
    const t0 = Date.now();
    await fleetUp('fhc-8dc', (line) => say(`  ${line}`));
    const upSeconds = (Date.now() - t0) / 1000;
    const inventory = await loadInventory(fleet);
    say(`overlay RTT cost ${fmt(readState()!.baseRttMs ?? 0)} ms`);
    targets.atMost('fleet up fhc-8dc', upSeconds, 30, ' s', { kind: 'speed', digits: 1 });
    await upkeep(inventory);

    for (const scale of SHORT ? [0.2] : [1.0, 0.2]) {
      await applyLatencyEpoch({ fleet, scale });
      await sleep(SETTLE_MS);
      reportRtt(await measuredPairs(inventory, scale), scale);
    }
    await applyLatencyEpoch({ fleet, scale: 1 });
    await bandwidth(inventory);

    say('\nFailover on the overlay (ping every 50 ms; time from the cut to the first answer to a later request)');
    await failover('fhc-8dc sydney-pune, their direct link cut', 'sydney', 'pune', () => Promise.resolve(['sydney-pune/0']));
    const down1 = await fleetDown();
    targets.atMost('fleet down fhc-8dc', down1.seconds, 10, ' s', { kind: 'speed', digits: 1 });

    const file = join(scratch, 'two-types.yaml');
    writeFileSync(file, stringify(TWO_TYPES));
    await fleetUp(file);
    const pair = ['pa-pb/0', 'pa-pb/1'];
    const inUse = () => busiestLink(pair, 'pa', 'pb');
    await failover('pa-pb, the one of their two direct links in use cut', 'pa', 'pb', async () => [await inUse()]);
    await failover('pa-pb, both direct links cut (the one in use last)', 'pa', 'pb', async () => {
      const used = await inUse();
      return [...pair.filter((l) => l !== used), used];
    });
    await fleetDown();

    // Failover profiles (topology `failover`): tinc's timers decide how long the overlay takes.
    // tinc-defaults (PingInterval 60) can take over a minute: full mode only.
    const profiles: [string, FailoverProfile, FailoverExpectation][] = [
      ['custom {pingInterval: 5, pingTimeout: 3}', { pingInterval: 5, pingTimeout: 3 }, { targetS: 10, windowS: 20, tries: 1, settleS: 60 }],
    ];
    if (!SHORT) profiles.push(['tinc-defaults', 'tinc-defaults', { targetS: 70, windowS: 90, tries: 1, settleS: 300 }]);
    for (const [name, profile, expect] of profiles) {
      const profiled = join(scratch, 'profile.yaml');
      writeFileSync(profiled, stringify({ ...THREE_SITES, failover: profile }));
      await fleetUp(profiled);
      await failover(`north-east with failover ${name}, their direct link cut`, 'north', 'east', () => Promise.resolve(['north-east/0']), expect);
      await fleetDown();
    }
  } finally {
    const down = await fleetDown();
    if (down.removed) say(`fleet down: ${fmt(down.seconds, 1)} s`);
    rmSync(scratch, { recursive: true, force: true });
  }
}

runBenchmark('network', main, targets);
