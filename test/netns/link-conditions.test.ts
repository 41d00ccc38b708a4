// Network dynamics on a real local fleet: an asymmetric link measured one way at a time, loss and
// jitter as configured, one-way cuts, partitions and their heal, ramps, node-grain changes and a
// flapping link, each applied through the activity a scenario's event calls.
import type { Topology } from '../../core/topology';
import { findNode } from '../../core/inventory';
import {
  changeLinkConditions,
  cutLink,
  flapLink,
  healPartition,
  measureBandwidth,
  partitionLinks,
  rampLinkConditions,
  restoreLink,
} from '../../operations/network/network-operations';
import { oneWay } from '../../services/probes/one-way';
import { median } from '../../services/probes/quantile';
import { EmulatorClient } from '../../infra/local/emulator-client';
import { fleetPaths, readState } from '../../infra/local/state';
import { sleep } from '../../platform/wait';
import { useLocalFleet } from '../support/local-fleet';

jest.setTimeout(240_000);

const fleet = { kind: 'local' } as const;

// lc1 -> lc2 is the slow, narrow uplink (15 ms, 8 Mbit/s); lc2 -> lc1 the fast downlink (5 ms, 40).
// lc3 (tagged mobile) closes a triangle, so the overlay has a way around a cut.
const ASYM: Topology = {
  name: 'asym',
  nodes: [
    { name: 'lc1', site: 'one' },
    { name: 'lc2', site: 'two' },
    { name: 'lc3', site: 'three', tags: ['mobile'] },
  ],
  links: [
    { a: 'lc1', b: 'lc2', 'a->b': { delayMs: 15, bandwidthMbps: 8 }, 'b->a': { delayMs: 5, bandwidthMbps: 40 } },
    { a: 'lc2', b: 'lc3', latencyMs: 10, bandwidthMbps: 50 },
    { a: 'lc1', b: 'lc3', latencyMs: 30, bandwidthMbps: 50 },
  ],
};

const inventory = useLocalFleet(ASYM);
const emulator = new EmulatorClient(fleetPaths.emulatorSocket);
const stats = async (id: string) => (await emulator.stats()).find((l) => l.id === id)!;
const probe = (from: string, to: string, count: number, intervalMs: number, port = 7100) =>
  oneWay(`fb-${from}`, `fb-${to}`, { address: findNode(inventory(), to).overlayAddress, port, count, intervalMs });
/** A one-way delay is the configured one plus half the overlay's own RTT (WireGuard, tinc, the
 *  relay), which `up` measures: 0.78 ms on this host on 2026-11-26, so half of it is most of a
 *  1 ms tolerance on its own. */
const expectOneWay = (delaysMs: number[], configured: number) => {
  const expected = configured + (readState()?.baseRttMs ?? 0) / 2;
  const measured = median(delaysMs);
  expect({ measured, expected, within: Math.abs(measured - expected) <= Math.max(1, 0.02 * configured) }).toMatchObject({ within: true });
};

test('an asymmetric link: each direction has its own one-way delay and bandwidth', async () => {
  const ab = await probe('lc1', 'lc2', 60, 20);
  const ba = await probe('lc2', 'lc1', 60, 20);
  expect(ab.lossPercent).toBe(0);
  expectOneWay(ab.delaysMs, 15);
  expectOneWay(ba.delaysMs, 5);
  const up = await measureBandwidth({ fleet, from: 'lc1', to: 'lc2', seconds: 3 });
  const down = await measureBandwidth({ fleet, from: 'lc2', to: 'lc1', seconds: 3 });
  expect(Math.abs(up.mbps - 8) / 8).toBeLessThan(0.1);
  expect(Math.abs(down.mbps - 40) / 40).toBeLessThan(0.1);
});

test('loss set on one direction drops that share of its datagrams; jitter spreads delays and keeps order', async () => {
  await changeLinkConditions({ fleet, target: { link: 'lc2-lc3/0', direction: 'a->b' }, change: { set: { lossPercent: 20, jitterMs: 2 } } });
  const lossy = await probe('lc2', 'lc3', 800, 2);
  // 800 datagrams at 20 %: the binomial's standard deviation is 1.4 points; 5 is over three and a half.
  expect(Math.abs(lossy.lossPercent - 20)).toBeLessThan(5);
  expect(lossy.reordered).toBe(0);
  const back = await probe('lc3', 'lc2', 150, 4, 7101);
  expect(back.lossPercent).toBe(0);
  const link = await stats('lc2-lc3/0');
  expect(link.ab.lossPercent).toBe(20);
  expect(link.ab.drops.loss).toBeGreaterThan(100);
  expect(link.ba.drops.loss).toBe(0);

  // Spaced well beyond 3 jitters, so keeping order does not narrow the spread.
  await changeLinkConditions({ fleet, target: { link: 'lc2-lc3/0', direction: 'a->b' }, change: { set: { lossPercent: 0 } } });
  const spread = await probe('lc2', 'lc3', 200, 20);
  const mean = spread.delaysMs.reduce((s, x) => s + x, 0) / spread.delaysMs.length;
  const sd = Math.sqrt(spread.delaysMs.reduce((s, x) => s + (x - mean) ** 2, 0) / spread.delaysMs.length);
  expect(Math.abs(sd - 2) / 2).toBeLessThan(0.2);
  // Packets 1 ms apart with 2 ms of jitter would cross often; the emulator keeps them in order.
  const dense = await probe('lc2', 'lc3', 500, 1, 7102);
  expect(dense.reordered).toBe(0);
  await changeLinkConditions({ fleet, target: { link: 'lc2-lc3/0' }, change: { reset: true } });
  expect((await stats('lc2-lc3/0')).ab).toMatchObject({ lossPercent: 0, jitterMs: 0 });
});

test('a one-way cut drops one direction only; restore brings it back', async () => {
  await changeLinkConditions({ fleet, target: { link: 'lc1-lc2/0', direction: 'a->b' }, change: { cut: true } });
  const cutNow = await stats('lc1-lc2/0');
  expect(cutNow.ab.cut).toBe(true);
  expect(cutNow.ba.cut).toBe(false);
  const before = cutNow.ba.packets;
  await sleep(1500);
  const later = await stats('lc1-lc2/0');
  // lc2 still reaches lc1 over the link (tinc's own keep-alives at least), while lc1's are dropped.
  expect(later.ba.packets).toBeGreaterThan(before);
  expect(later.ab.drops.cut).toBeGreaterThan(0);
  await changeLinkConditions({ fleet, target: { link: 'lc1-lc2/0', direction: 'a->b' }, change: { restore: true } });
  expect((await stats('lc1-lc2/0')).cut).toBe(false);
});

test('a partition cuts exactly the links between its groups, and heal restores exactly those', async () => {
  await cutLink({ fleet, link: 'lc2-lc3/0' });
  const { cut } = await partitionLinks({ fleet, groups: [['lc1'], ['lc2', 'lc3']] });
  // lc2-lc3 lies inside a group and was cut before: the partition neither counts nor heals it.
  expect(cut.sort()).toEqual(['lc1-lc2/0', 'lc1-lc3/0']);
  const silent = await probe('lc1', 'lc3', 50, 20);
  expect(silent.lossPercent).toBe(100);
  const { restored } = await healPartition({ fleet });
  expect(restored.sort()).toEqual(['lc1-lc2/0', 'lc1-lc3/0']);
  const after = await emulator.stats();
  expect(after.filter((l) => l.cut).map((l) => l.id)).toEqual(['lc2-lc3/0']);
  await restoreLink({ fleet, link: 'lc2-lc3/0' });
});

test('a ramp moves the delay linearly to its target; a node-grain change touches what the node sends', async () => {
  const ramp = rampLinkConditions({ fleet, target: { link: 'lc1-lc3/0' }, change: { set: { latencyMs: 90 } }, overS: 3, steps: 'linear' });
  await sleep(1500);
  const mid = (await stats('lc1-lc3/0')).ab.delayMs;
  const done = await ramp;
  expect(done.links).toBe(1);
  expect(done.completedAt - done.appliedAt).toBeGreaterThanOrEqual(2900);
  expect(done.latenessMs.p50).toBeGreaterThanOrEqual(0);
  expect(done.latenessMs.max).toBeGreaterThanOrEqual(done.latenessMs.p99);
  const end = (await stats('lc1-lc3/0')).ab.delayMs;
  // From 15 ms each way towards 45; the emulator's own figure leaves out the overlay's share.
  expect(end - mid).toBeGreaterThan(5);
  expect(mid - (end - 30)).toBeGreaterThan(5);

  await changeLinkConditions({ fleet, target: { node: 'lc3', direction: 'out' }, change: { set: { bandwidthMbps: 5 } } });
  const [l13, l23] = [await stats('lc1-lc3/0'), await stats('lc2-lc3/0')];
  // lc3 is b on both links: what it sends is b -> a.
  expect(l13.ba.rateMbps).toBeLessThan(l13.ab.rateMbps!);
  expect(l23.ba.rateMbps).toBeLessThan(l23.ab.rateMbps!);
  await changeLinkConditions({ fleet, target: { tag: 'mobile' }, change: { reset: true } });
  expect((await stats('lc2-lc3/0')).ba.rateMbps).toBe((await stats('lc2-lc3/0')).ab.rateMbps);
});

test('a flapping link goes down and up every half period and is left up', async () => {
  const result = await flapLink({ fleet, link: 'lc2-lc3/0', periodS: 1, forS: 3 });
  expect(result.flips).toBe(3);
  const link = await stats('lc2-lc3/0');
  expect(link.cut).toBe(false);
  expect(link.ab.drops.cut + link.ba.drops.cut).toBeGreaterThan(0);
});
