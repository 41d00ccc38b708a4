/**
 * Moving sites: distances on the globe, positions along a path, the distance model of a link's
 * round trip (with the base derived from a given latency), topology positions and their checks,
 * the `move` event's validation and plan line, and the move applied to a fleet network whose
 * shaper only records what it was told.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DEFAULT_DISTANCE_MODEL,
  derivedBaseMs,
  greatCirclePoint,
  haversineKm,
  modelLinks,
  motionAt,
  pathLengthKm,
  positionAlong,
  rttAt,
  rttRangeAlong,
  type Position,
} from '../../core/site-motion';
import { validateTopology } from '../../core/validate-topology';
import type { Topology } from '../../core/topology';
import { eventKindOf } from '../../core/event-kinds/registry';
import { planFleet } from '../../infra/local/plan';
import { localInventory } from '../../infra/local/inventory';
import { FleetNetwork } from '../../infra/shaping/fleet-network';
import type { LinkShaper, ShapeItem } from '../../infra/shaping/shaper';
import { moveSite } from '../../infra/shaping/site-motion';
import { inputProblems } from '../support/input-problems';
import { eventPlanner } from '../support/event-planning';

const LONDON = { lat: 51.5074, lon: -0.1278 };
const PARIS = { lat: 48.8566, lon: 2.3522 };
const NEW_YORK = { lat: 40.7128, lon: -74.006 };
const SYDNEY = { lat: -33.8688, lon: 151.2093 };
const MELBOURNE = { lat: -37.8136, lon: 144.9631 };

const within = (value: number, expected: number, share: number) => Math.abs(value - expected) <= share * expected;
const near = (p: Position, q: Position, km = 0.01) => haversineKm(p, q) < km;

describe('distances and paths', () => {
  test('haversine matches published great-circle distances of city pairs within 0.5 %', () => {
    expect(within(haversineKm(LONDON, PARIS), 344, 0.005)).toBe(true);
    expect(within(haversineKm(NEW_YORK, LONDON), 5570, 0.005)).toBe(true);
    expect(within(haversineKm(SYDNEY, MELBOURNE), 713, 0.005)).toBe(true);
    // One degree along a meridian is a 360th of the circumference.
    expect(haversineKm({ lat: 10, lon: 20 }, { lat: 11, lon: 20 })).toBeCloseTo((2 * Math.PI * 6371.0088) / 360, 6);
    expect(haversineKm(LONDON, LONDON)).toBe(0);
  });

  test('great-circle points: the midpoint of a quarter equator, across the antimeridian, over the pole', () => {
    expect(near(greatCirclePoint({ lat: 0, lon: 0 }, { lat: 0, lon: 90 }, 0.5), { lat: 0, lon: 45 })).toBe(true);
    expect(Math.abs(greatCirclePoint({ lat: 0, lon: 170 }, { lat: 0, lon: -170 }, 0.5).lon)).toBeCloseTo(180, 6);
    // The short way between two points at 80 N on opposite meridians is over the pole, not along the parallel.
    expect(greatCirclePoint({ lat: 80, lon: 0 }, { lat: 80, lon: 180 }, 0.5).lat).toBeCloseTo(90, 6);
    expect(near(greatCirclePoint(LONDON, PARIS, 0), LONDON)).toBe(true);
    expect(near(greatCirclePoint(LONDON, PARIS, 1), PARIS)).toBe(true);
  });

  test('a waypoint path is walked at constant speed, leg by leg, and clamped at its ends', () => {
    const path = [
      { lat: 0, lon: 0 },
      { lat: 0, lon: 10 },
      { lat: 10, lon: 10 },
    ];
    // Both legs span 10 degrees of a great circle: equal lengths.
    expect(pathLengthKm(path)).toBeCloseTo(2 * haversineKm(path[0], path[1]), 6);
    expect(near(positionAlong(path, 0.25), { lat: 0, lon: 5 })).toBe(true);
    expect(near(positionAlong(path, 0.5), { lat: 0, lon: 10 })).toBe(true);
    expect(near(positionAlong(path, 0.75), { lat: 5, lon: 10 })).toBe(true);
    expect(near(positionAlong(path, 1.5), { lat: 10, lon: 10 })).toBe(true);
    const motion = { path, overS: 10, steps: 'seconds' as const };
    // Steps of one second hold the position until the next whole second.
    expect(motionAt(motion, 2.9).fraction).toBeCloseTo(0.2, 9);
    expect(motionAt(motion, 5).travelledKm).toBeCloseTo(pathLengthKm(path) / 2, 6);
  });

  test('RTT follows base + factor x km; a given latency fixes the base so the model starts on it', () => {
    const km = haversineKm(NEW_YORK, LONDON);
    const base = derivedBaseMs(76, km, DEFAULT_DISTANCE_MODEL.msPerKm);
    expect(base).toBeCloseTo(76 - 0.0135 * km, 9);
    const [link] = modelLinks(NEW_YORK, [{ id: 'ny-lon/0', peer: LONDON, rttMs: 76 }], 0.0135);
    expect(link.baseMs).toBeCloseTo(base, 9);
    expect(rttAt(link, NEW_YORK, 0.0135)).toBeCloseTo(76, 9);
    // Moving to Paris: the change is the factor times the change in distance.
    expect(rttAt(link, PARIS, 0.0135)).toBeCloseTo(76 + 0.0135 * (haversineKm(PARIS, LONDON) - km), 9);
    const range = rttRangeAlong([NEW_YORK, PARIS], link, 0.0135);
    expect(range.fromMs).toBeCloseTo(76, 9);
    expect(range.minMs).toBeLessThan(range.toMs + 1e-9);
    expect(range.maxMs).toBeCloseTo(76, 9);
  });
});

const TOPOLOGY: Topology = {
  name: 'moving',
  client: 'cl',
  distance: { msPerKm: 0.01, baseMs: 2 },
  nodes: [
    { name: 'cl', site: 'london', position: LONDON },
    { name: 'boat', site: 'sea', position: NEW_YORK },
    { name: 'paris', site: 'paris', position: PARIS },
    { name: 'syd', site: 'sydney' },
  ],
  links: [
    { a: 'cl', b: 'boat', bandwidthMbps: 50 },
    { a: 'boat', b: 'paris', latencyMs: 90, bandwidthMbps: 50 },
    { a: 'cl', b: 'paris', bandwidthMbps: 100 },
    { a: 'paris', b: 'syd', latencyMs: 280, bandwidthMbps: 100 },
  ],
};

describe('positions in a topology', () => {
  test("a link between positioned nodes without latency gets the model's, marked estimated; a given one stays", () => {
    const t = validateTopology(TOPOLOGY);
    expect(t.links[0]).toMatchObject({ latencyMs: Math.round((2 + 0.01 * haversineKm(LONDON, NEW_YORK)) * 10) / 10, estimated: true });
    expect(t.links[1].latencyMs).toBe(90);
    expect(t.links[1].estimated).toBeUndefined();
    // The default model when the topology gives none.
    const plain = validateTopology({ ...TOPOLOGY, distance: undefined });
    expect(plain.links[2].latencyMs).toBeCloseTo(1 + 0.0135 * haversineKm(LONDON, PARIS), 1);
  });

  test('bad positions and half-placed links are refused, naming the field and the fix', () => {
    const offMap = { ...TOPOLOGY, nodes: [{ ...TOPOLOGY.nodes[0], position: { lat: 95, lon: 0 } }, ...TOPOLOGY.nodes.slice(1)] };
    expect(
      inputProblems(() => validateTopology(offMap))
        .map((e) => e.message)
        .join('\n'),
    ).toMatch(/^nodes\[0\]\.position\.lat: must be <= 90/);
    const halfPlaced = { ...TOPOLOGY, links: [...TOPOLOGY.links, { a: 'boat', b: 'syd', bandwidthMbps: 10 }] };
    expect(inputProblems(() => validateTopology(halfPlaced)).map((e) => e.message)).toEqual([
      'links[4].latencyMs: missing: give latencyMs for both directions, or delayMs in "a->b" and "b->a", or nodes[3].position (syd) so the distance model gives it',
    ]);
  });
});

const { plan, problems } = eventPlanner(TOPOLOGY, ['boat', 'paris', 'syd']);

describe('the move event', () => {
  test("the plan line gives the distance travelled and each link's RTT range; the next move starts where the last ended", () => {
    const [phase] = plan(`
      - { at: 10, move: { node: boat, to: { lat: 48.8566, lon: 2.3522 }, over: 30 } }
      - { at: 50, move: { node: boat, waypoints: [{ lat: 40.7128, lon: -74.006 }], over: 30, steps: seconds } }`).cells[0].phases;
    if (phase.kind !== 'run') throw new Error('a run phase was planned');
    const [there, back] = phase.events.map(
      (e) => e.action as { kind: string; preview?: { km: number; links: { id: string; fromMs: number; toMs: number }[] } },
    );
    const km = haversineKm(NEW_YORK, PARIS);
    expect(there.preview!.km).toBeCloseTo(km, 6);
    const toParis = there.preview!.links.find((l) => l.id === 'boat-paris/0')!;
    // The given 90 ms is the start; arriving in Paris removes the model's share of the distance.
    expect(toParis.fromMs).toBeCloseTo(90, 6);
    expect(toParis.toMs).toBeCloseTo(90 - 0.01 * km, 6);
    const backFromParis = back.preview!.links.find((l) => l.id === 'boat-paris/0')!;
    expect(backFromParis.fromMs).toBeCloseTo(toParis.toMs, 6);
    expect(backFromParis.toMs).toBeCloseTo(90, 6);
    const line = eventKindOf(there).plan(there);
    expect(line).toMatch(new RegExp(`^node boat moves ${Math.round(km)} km over 30 s \\(linear\\); RTT cl-boat/0 \\d+\\.\\d->\\d+\\.\\d ms`));
    expect(line).toContain('boat-paris/0 90.0->');
  });

  test('validation names the field and the fix', () => {
    const at = (move: string) => problems(`      - { at: 10, move: ${move} }`);
    expect(at('{ node: syd, to: { lat: 0, lon: 0 }, over: 10 }')).toEqual([
      'phases[0].events[0].move: node "syd" has no position: give it one in the topology (nodes[].position: {lat, lon})',
    ]);
    expect(at('{ node: nobody, to: { lat: 0, lon: 0 }, over: 10 }')[0]).toMatch(/unknown node "nobody"; nodes: cl, boat, paris, syd/);
    expect(at('{ node: boat, to: { lat: 0, lon: 0 }, waypoints: [{ lat: 1, lon: 1 }], over: 10 }')[0]).toMatch(
      /give exactly one of to .* or waypoints .* \(got to, waypoints\)/,
    );
    // paris's link to syd needs syd's position: a move of paris has no model for it.
    expect(at('{ node: paris, to: { lat: 0, lon: 0 }, over: 10 }')[0]).toMatch(/link paris-syd\/0: node "syd" has no position/);
    expect(at('{ node: boat, to: { lat: 0, lon: 0 }, over: 0 }').join('\n')).toMatch(/move\.over: must be > 0/);
    expect(at('{ node: boat, to: { lat: 0, lon: 200 }, over: 5 }').join('\n')).toMatch(/move\.to\.lon: must be <= 180/);
  });
});

/** A shaper that keeps what it was last told per link, as the emulator would hold it. */
class RecordingShaper implements LinkShaper {
  readonly shaped = new Map<string, ShapeItem['conditions']>();
  apply(link: ShapeItem['link'], conditions: ShapeItem['conditions']) {
    this.shaped.set(link.id, conditions);
    return Promise.resolve();
  }
  applyMany(items: ShapeItem[]) {
    for (const i of items) this.shaped.set(i.link.id, i.conditions);
    return Promise.resolve();
  }
  async cut() {}
  async restore() {}
  async seedDraws() {}
  async clear() {}
}

describe('a move applied to a fleet network', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-site-motion-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const plan = planFleet(validateTopology(TOPOLOGY));
  const keys = new Map(plan.nodes.map((n) => [n.name, Buffer.from(n.name.padEnd(32, '.')).toString('base64')]));
  const inventory = localInventory(plan, keys, 'test');

  test('each step sets both directions from the model; the end position is kept for the next move', async () => {
    const shaper = new RecordingShaper();
    const net = new FleetNetwork(inventory, shaper, path.join(dir, 'shaping.json'));
    const fractions: number[] = [];
    const result = await moveSite(net, { node: 'boat', waypoints: [PARIS], overS: 0.5, steps: 'linear' }, (f) => fractions.push(f));
    expect(fractions[fractions.length - 1]).toBe(1);
    expect(fractions.length).toBeGreaterThanOrEqual(3);
    expect(result.msPerKm).toBe(0.01);
    expect(near(result.end, PARIS)).toBe(true);
    expect(result.km).toBeCloseTo(haversineKm(NEW_YORK, PARIS), 6);
    const toParis = shaper.shaped.get('boat-paris/0')!;
    // Paris to Paris: only the base is left, half each way.
    const base = 90 - 0.01 * haversineKm(NEW_YORK, PARIS);
    expect(toParis.ab.delayMs).toBeCloseTo(base / 2, 6);
    expect(toParis.ba.delayMs).toBeCloseTo(base / 2, 6);
    const london = shaper.shaped.get('cl-boat/0')!;
    const clBoatStart = inventory.links.find((l) => l.id === 'cl-boat/0')!.latencyMs;
    expect(london.ab.delayMs + london.ba.delayMs).toBeCloseTo(clBoatStart + 0.01 * (haversineKm(LONDON, PARIS) - haversineKm(LONDON, NEW_YORK)), 6);
    // Links the boat is not on were never touched.
    expect(shaper.shaped.has('cl-paris/0')).toBe(false);
    expect(near(net.settings().positions!.boat, PARIS)).toBe(true);
    expect(result.samples[0]).toMatchObject({ km: 0 });
    expect(result.samples[0].rttMs['boat-paris/0']).toBeCloseTo(90, 6);
    expect(result.samples[result.samples.length - 1].km).toBeCloseTo(result.km, 6);
    expect(result.links.find((l) => l.id === 'boat-paris/0')).toMatchObject({ fromMs: 90, maxMs: 90 });

    // The next move starts in Paris: going back restores the start's round trip.
    const back = await moveSite(net, { node: 'boat', waypoints: [NEW_YORK], overS: 0.2, steps: 'linear' });
    expect(near(back.start, PARIS)).toBe(true);
    const returned = shaper.shaped.get('boat-paris/0')!;
    expect(returned.ab.delayMs + returned.ba.delayMs).toBeCloseTo(90, 6);
  });

  test('a node without a position, or a bad waypoint, is refused before anything is shaped', async () => {
    const shaper = new RecordingShaper();
    const net = new FleetNetwork(inventory, shaper, path.join(dir, 'other.json'));
    await expect(moveSite(net, { node: 'syd', waypoints: [PARIS], overS: 1, steps: 'linear' })).rejects.toThrow(
      /move\.node: node "syd" has no position/,
    );
    await expect(moveSite(net, { node: 'boat', waypoints: [{ lat: 0, lon: 190 }], overS: 1, steps: 'linear' })).rejects.toThrow(
      /move\.waypoints\[0\]\.lon: longitude must be -180\.\.180/,
    );
    expect(shaper.shaped.size).toBe(0);
  });
});
