/**
 * `npm run bench:fleets`: does every fleet come out right, not just the average one? Builds the
 * same topology N times in a row (default fhc-8dc, 10 fleets) and, on each, pings every directly
 * linked pair at the reference latencies. Prints per fleet its up time, the overlay correction
 * it measured at start-up, and its worst pair; the target is every pair of every fleet within
 * max(0.5 ms, 2 %) of configured (median of the pair's pings). Removes each fleet after use, also
 * on error. Needs root and no fleet up.
 *
 *   npx tsx bench/fleets.ts [--short] [--fleets 10] [--pings 20]
 * `--short` (CI): 2 fleets of fhc-4, 10 pings per pair.
 */
import { loadInventory } from '../services/inventory/inventory-loader';
import { median } from '../services/probes/quantile';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { readState } from '../infra/local/state';
import { option, SHORT } from './args';
import { rttPairs, type PairRtt } from './rtt-pairs';
import { runBenchmark, Targets } from './targets';

const TOPOLOGY = SHORT ? 'fhc-4' : 'fhc-8dc';
const FLEETS = option('fleets', SHORT ? 2 : 10);
const PINGS = option('pings', SHORT ? 10 : 20);
const PING_INTERVAL_S = 0.05;

const fmt = (x: number, digits = 2) => x.toFixed(digits);
const say = (line = '') => console.log(line);
const targets = new Targets(say);
const allowedMs = (configuredMs: number) => Math.max(0.5, 0.02 * configuredMs);
const errorMs = (p: PairRtt) => p.medianMs - p.configuredMs;

async function oneFleet(index: number): Promise<{ within: boolean; errors: number[] }> {
  const up = await fleetUp(`topologies/${TOPOLOGY}.yaml`);
  try {
    const correction = readState()?.baseRttMs ?? 0;
    const pairs = await rttPairs(await loadInventory({ kind: 'local' }), 1, PINGS, PING_INTERVAL_S);
    const worst = pairs.reduce((w, p) =>
      Math.abs(errorMs(p)) / allowedMs(p.configuredMs) > Math.abs(errorMs(w)) / allowedMs(w.configuredMs) ? p : w,
    );
    const outside = pairs.filter((p) => Math.abs(errorMs(p)) > allowedMs(p.configuredMs));
    say(
      `${String(index + 1).padStart(5)} ${fmt(up.seconds, 1).padStart(6)} ${fmt(correction).padStart(10)}   ` +
        `${`${worst.a}-${worst.b}`.padEnd(22)} ${fmt(worst.configuredMs).padStart(8)} ${fmt(worst.medianMs).padStart(8)} ${fmt(errorMs(worst)).padStart(6)}   ` +
        `${pairs.length - outside.length}/${pairs.length}`,
    );
    return { within: outside.length === 0, errors: pairs.map(errorMs) };
  } finally {
    await fleetDown();
  }
}

async function main(): Promise<void> {
  if (readState()) throw new Error('a local fleet is up; take it down first (`fragbench fleet down`)');
  say(`${FLEETS} fleets of ${TOPOLOGY} in a row, reference latencies, ${PINGS} pings per directly linked pair (${PING_INTERVAL_S} s apart)`);
  say('fleet   up s  correction   worst pair               configured  median   err   pairs within max(0.5 ms, 2 %)');
  const results = [];
  for (let i = 0; i < FLEETS; i++) results.push(await oneFleet(i));
  const errors = results.flatMap((r) => r.errors);
  const good = results.filter((r) => r.within).length;
  targets.count('fleets with every pair within max(0.5 ms, 2 %)', good, FLEETS);
  say(
    `\nerror over all pairs: median ${fmt(median(errors))} ms, most negative ${fmt(Math.min(...errors))} ms, most positive ${fmt(Math.max(...errors))} ms`,
  );
}

runBenchmark('fleets', main, targets);
