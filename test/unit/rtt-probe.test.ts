/**
 * What an in-run RTT probe is held to: the link the overlay actually uses, where the path watch has
 * read it, so that tinc's own choice of link (staying on a slower or a cut one under
 * `tinc-defaults`, as published) is not taken for the emulator being off.
 */
import type { InventoryLink } from '../../core/inventory';
import { REFERENCE_SETTINGS, type NetworkSettings } from '../../core/network';
import type { OverlayPath } from '../../core/overlay-path';
import { expectedRttMs, type ProbePair } from '../../services/probes/rtt-probe';

const link = (id: string, latencyMs: number) =>
  ({ id, a: 'op1', b: 'op3', type: Number(id.slice(-1)), latencyMs, bandwidthMbps: 100 }) as unknown as InventoryLink;
// Two direct links between op1 and op3: type 0 at 20 ms, type 1 at 50 ms.
const pair: ProbePair = { from: 'op1', to: 'op3', address: '198.18.0.3', links: [link('op1-op3/0', 20), link('op1-op3/1', 50)] };
const direct = (id: string, from = 'op1', to = 'op3'): OverlayPath => ({ from, to, hops: [from, to], links: [id] });
const settings = (extra: Partial<NetworkSettings> = {}): NetworkSettings => ({ ...REFERENCE_SETTINGS, ...extra });

test('without a known path: the fastest uncut direct link, or nothing when every one is cut', () => {
  expect(expectedRttMs(pair, settings())).toBe(20);
  expect(expectedRttMs(pair, settings({ cut: ['op1-op3/0'] }))).toBe(50);
  expect(expectedRttMs(pair, settings({ cut: ['op1-op3/0', 'op1-op3/1'] }))).toBeUndefined();
});

test('on a known direct path: that link’s RTT, even when a faster link is up again (tinc has not moved back yet)', () => {
  expect(expectedRttMs(pair, settings(), direct('op1-op3/1'))).toBe(50);
  // The path the watch read the other way round names the same link.
  expect(expectedRttMs(pair, settings(), direct('op1-op3/1', 'op3', 'op1'))).toBe(50);
  expect(expectedRttMs(pair, settings({ latencyScale: 0.5 }), direct('op1-op3/1'))).toBe(25);
});

test('a path through another node, none, or over a link that is cut: not probed', () => {
  expect(expectedRttMs(pair, settings(), { from: 'op1', to: 'op3', hops: ['op1', 'op2', 'op3'], links: ['op1-op2/0', 'op2-op3/0'] })).toBeUndefined();
  expect(expectedRttMs(pair, settings(), { from: 'op1', to: 'op3', hops: [], links: [] })).toBeUndefined();
  expect(expectedRttMs(pair, settings({ cut: ['op1-op3/0'] }), direct('op1-op3/0'))).toBeUndefined();
});

test('a direct hop whose link the dump does not name: as steered', () => {
  expect(expectedRttMs(pair, settings(), direct('?'))).toBe(20);
});
