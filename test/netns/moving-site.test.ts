// A moving site on a real local fleet: a 3 s move of one node, applied through the function the
// `move` event's activity calls; the emulator's per-direction delays follow the distance model
// at the end, were part-way between start and end midway, and the node's end position is kept.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Topology } from '../../core/topology';
import type { Inventory } from '../../core/inventory';
import { haversineKm, type Position } from '../../core/site-motion';
import { moveSite } from '../../operations/network/network-operations';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { EmulatorClient } from '../../infra/local/emulator-client';
import { fleetPaths, readState } from '../../infra/local/state';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import { sleep } from '../../platform/wait';

jest.setTimeout(240_000);

const fleet = { kind: 'local' } as const;
const dir = mkdtempSync(join(tmpdir(), 'fb-moving-test-'));

// A steep factor (0.05 ms/km) so a short move changes delays by tens of ms: mv1 leaves (0, 0) for
// (0, 9), closing on mv2 at (0, 10) and drawing away from mv3 at (10, 0).
const MS_PER_KM = 0.05;
const START: Position = { lat: 0, lon: 0 };
const END: Position = { lat: 0, lon: 9 };
const PEERS: Record<string, Position> = { mv2: { lat: 0, lon: 10 }, mv3: { lat: 10, lon: 0 } };
const MOVING: Topology = {
  name: 'moving',
  distance: { msPerKm: MS_PER_KM, baseMs: 1 },
  nodes: [
    { name: 'mv1', site: 'ship', position: START },
    { name: 'mv2', site: 'east', position: PEERS.mv2 },
    { name: 'mv3', site: 'north', position: PEERS.mv3 },
  ],
  links: [
    { a: 'mv1', b: 'mv2', bandwidthMbps: 50 },
    { a: 'mv1', b: 'mv3', bandwidthMbps: 50 },
    { a: 'mv2', b: 'mv3', bandwidthMbps: 50 },
  ],
};

let inventory: Inventory;
const emulator = new EmulatorClient(fleetPaths.emulatorSocket);
const stats = async (id: string) => (await emulator.stats()).find((l) => l.id === id)!;
const withinMs = (measured: number, configured: number) => Math.abs(measured - configured) <= Math.max(1, 0.02 * configured);

/** The emulator's one-way delay for a round trip: half of it, less the overlay's own half (EmulatorShaper). */
const emulatorDelay = (rttMs: number) => Math.max(0, rttMs / 2 - (readState()?.baseRttMs ?? 0) / 2);

/** The model's round trip once mv1 stands at `at`: the link's reference, moved by the factor. */
function modelRtt(peer: string, at: Position): number {
  const reference = inventory.links.find((l) => l.a === 'mv1' && l.b === peer)!.latencyMs;
  return reference + MS_PER_KM * (haversineKm(at, PEERS[peer]) - haversineKm(START, PEERS[peer]));
}

beforeAll(async () => {
  const file = join(dir, 'moving.yaml');
  writeFileSync(file, stringify(MOVING));
  await fleetUp(file);
  inventory = await loadInventory(fleet);
});

afterAll(async () => {
  await fleetDown();
  rmSync(dir, { recursive: true, force: true });
});

test('a 3 s move: delays in between midway, on the model at the end, the end position kept', async () => {
  const before = { mv2: (await stats('mv1-mv2/0')).ab.delayMs, mv3: (await stats('mv1-mv3/0')).ab.delayMs };
  expect(withinMs(before.mv2, emulatorDelay(modelRtt('mv2', START)))).toBe(true);
  const move = moveSite({ fleet, node: 'mv1', waypoints: [END], overS: 3, steps: 'linear' });
  await sleep(1500);
  const mid = { mv2: await stats('mv1-mv2/0'), mv3: await stats('mv1-mv3/0') };
  const result = await move;
  expect(result.completedAt - result.appliedAt).toBeGreaterThanOrEqual(2900);

  for (const peer of ['mv2', 'mv3'] as const) {
    const link = await stats(`mv1-${peer}/0`);
    const end = emulatorDelay(modelRtt(peer, END));
    for (const direction of ['ab', 'ba'] as const) {
      expect({ peer, direction, delay: link[direction].delayMs, onModel: withinMs(link[direction].delayMs, end) }).toMatchObject({ onModel: true });
      // Midway it had left the start and not reached the end (each is several ms from the other).
      const [low, high] = [Math.min(before[peer], end), Math.max(before[peer], end)];
      expect(mid[peer][direction].delayMs).toBeGreaterThan(low + 1);
      expect(mid[peer][direction].delayMs).toBeLessThan(high - 1);
    }
  }
  // Closing on mv2, drawing away from mv3.
  expect((await stats('mv1-mv2/0')).ab.delayMs).toBeLessThan(before.mv2);
  expect((await stats('mv1-mv3/0')).ab.delayMs).toBeGreaterThan(before.mv3);
  // The link mv1 is not on keeps its reference.
  expect(withinMs((await stats('mv2-mv3/0')).ab.delayMs, emulatorDelay(inventory.links.find((l) => l.id === 'mv2-mv3/0')!.latencyMs))).toBe(true);

  expect(haversineKm(new FleetNetwork(inventory).settings().positions!.mv1, END)).toBeLessThan(0.01);
  expect(result.samples.length).toBeGreaterThanOrEqual(3);
  expect(result.km).toBeCloseTo(haversineKm(START, END), 6);
});
