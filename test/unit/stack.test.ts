/**
 * The network stacks a local fleet can run (core/stack.ts): how a choice resolves, which
 * topologies a stack without an overlay refuses, and what the plan makes of each: static routes
 * over each pair's fastest link, VXLAN links pointed at the emulator, WireGuard peers that take
 * the overlay addresses they route, the emulator's byte count per stack.
 */
import { describeStack, PUBLISHED_STACK, resolveStack, stackProblem } from '../../core/stack';
import { validateTopology } from '../../core/validate-topology';
import type { Topology } from '../../core/topology';
import { planFleet } from '../../infra/local/plan';
import { relayBytesPerPayloadByte } from '../../infra/local/overlay-cost';
import { routedLinks, staticPaths, staticRoutes } from '../../infra/local/static-routes';
import { meshMac, vxlanCommands } from '../../infra/local/vxlan';
import { wireguardConfig } from '../../infra/local/wireguard';
import { eventPlanner } from '../support/event-planning';
import { inputProblems } from '../support/input-problems';
import { smallTopology } from '../support/small-topology';

/** Three sites all linked, one pair twice (its type 1 link the faster), and a client beside `one`. */
const MESH: Topology = {
  name: 'mesh',
  client: 'cl',
  nodes: [
    { name: 'one', site: 'a' },
    { name: 'two', site: 'b' },
    { name: 'three', site: 'c' },
    { name: 'cl', site: 'a' },
  ],
  links: [
    { a: 'one', b: 'two', latencyMs: 30, bandwidthMbps: 100 },
    { a: 'one', b: 'two', type: 1, latencyMs: 10, bandwidthMbps: 100 },
    { a: 'two', b: 'three', latencyMs: 20, bandwidthMbps: 100 },
    { a: 'one', b: 'three', latencyMs: 40, bandwidthMbps: 100 },
    { a: 'cl', b: 'one', latencyMs: 1, bandwidthMbps: 1000 },
    { a: 'cl', b: 'two', latencyMs: 31, bandwidthMbps: 1000 },
    { a: 'cl', b: 'three', latencyMs: 41, bandwidthMbps: 1000 },
  ],
};
const NONE = { overlay: 'none', encryption: 'off' } as const;

test('a run chooses over the topology, which chooses over the published stack', () => {
  expect(resolveStack()).toEqual(PUBLISHED_STACK);
  expect(resolveStack({ overlay: 'none' })).toEqual({ overlay: 'none', encryption: 'wireguard' });
  expect(resolveStack({ overlay: 'none' }, { encryption: 'off' })).toEqual(NONE);
  expect(resolveStack({ overlay: 'none' }, { overlay: 'tinc' })).toEqual({ overlay: 'tinc', encryption: 'wireguard' });
  expect(describeStack(NONE)).toBe('static routes over VXLAN (no encryption)');
});

test('without an overlay every pair needs a direct link; the topology and the plan both say which do not', () => {
  expect(stackProblem(resolveStack({ overlay: 'none' }), ['a', 'b', 'c'], [{ a: 'a', b: 'b' }])).toMatch(/a-c, b-c have none/);
  expect(stackProblem(PUBLISHED_STACK, ['a', 'b', 'c'], [{ a: 'a', b: 'b' }])).toBeUndefined();
  // smallTopology leaves gamma unlinked from alpha and cl.
  const problems = inputProblems(() => validateTopology({ ...smallTopology, stack: { overlay: 'none' } }));
  expect(problems.map((e) => e.message)).toEqual([
    expect.stringMatching(/^stack\.overlay: overlay none routes only over direct links, and alpha-gamma/),
  ]);
  expect(() => planFleet(smallTopology, { overlay: 'none' })).toThrow(/stack\.overlay: plan: overlay none routes only over direct links/);
});

test('static routes: each pair over its fastest link, the same from both ends; none while that link is cut', () => {
  const plan = planFleet(validateTopology(MESH), NONE);
  expect(routedLinks(plan).get('one-two')?.id).toBe('one-two/1');
  const one = plan.nodes.find((n) => n.name === 'one')!;
  const two = plan.nodes.find((n) => n.name === 'two')!;
  const toTwo = staticRoutes(plan, one).find((r) => r.to === 'two')!;
  expect(toTwo).toMatchObject({ address: two.overlayAddress, dev: 'fbone-1', via: '198.19.1.2' });
  expect(staticRoutes(plan, two).find((r) => r.to === 'one')).toMatchObject({ dev: 'fbtwo-1', via: '198.19.1.1' });
  expect(
    staticRoutes(plan, one)
      .map((r) => r.to)
      .sort(),
  ).toEqual(['cl', 'three', 'two']);
  const paths = staticPaths(plan, (link) => link === 'one-two/1');
  expect(paths.find((p) => p.from === 'one' && p.to === 'two')).toEqual({ from: 'one', to: 'two', hops: [], links: [] });
  expect(paths.find((p) => p.from === 'two' && p.to === 'three')).toEqual({
    from: 'two',
    to: 'three',
    hops: ['two', 'three'],
    links: ['two-three/0'],
  });
});

test("a VXLAN link sends from its own port, each peer's frames to the emulator's port for that link", () => {
  const plan = planFleet(validateTopology(MESH), NONE);
  const one = plan.nodes.find((n) => n.name === 'one')!;
  const iface = one.interfaces.find((i) => i.type === 0)!;
  const { ip, bridge } = vxlanCommands(plan, one, iface);
  expect(ip[0]).toBe(`link add fbone-0 type vxlan id 1 local ${one.underlayAddress} dstport 51820 srcport 51820 51821 nolearning`);
  const toTwo = plan.links.find((l) => l.id === 'one-two/0')!;
  const relay = toTwo.ends.find((e) => e.node === 'one')!.relayAddress.split(':');
  expect(bridge).toContain(`fdb add ${meshMac(2, 0)} dev fbone-0 dst ${relay[0]} port ${relay[1]}`);
  expect(ip).toContain(`neigh add 198.19.0.2 lladdr ${meshMac(2, 0)} dev fbone-0 nud permanent`);
  // One peer per link of the interface's type: two, three and the client.
  expect(bridge).toHaveLength(3);
});

test('WireGuard without tinc: the peer of a routed link also takes the overlay address it routes', () => {
  const plan = planFleet(validateTopology(MESH), { overlay: 'none' });
  const one = plan.nodes.find((n) => n.name === 'one')!;
  const keys = new Map(plan.nodes.map((n) => [n.name, 'k'.repeat(43) + '=']));
  const slow = wireguardConfig(
    plan,
    one,
    one.interfaces.find((i) => i.type === 0)!,
    'p',
    keys,
  );
  const fast = wireguardConfig(
    plan,
    one,
    one.interfaces.find((i) => i.type === 1)!,
    'p',
    keys,
  );
  expect(slow).toContain('AllowedIPs = 198.19.0.2/32\n');
  expect(fast).toContain('AllowedIPs = 198.19.1.2/32, 198.19.100.2/32\n');
  const tinc = wireguardConfig(
    planFleet(validateTopology(MESH)),
    one,
    one.interfaces.find((i) => i.type === 1)!,
    'p',
    keys,
  );
  expect(tinc).toContain('AllowedIPs = 198.19.1.2/32\n');
});

test("the emulator's rate cap counts each stack's own bytes per payload byte", () => {
  const published = relayBytesPerPayloadByte(PUBLISHED_STACK);
  const light = relayBytesPerPayloadByte(NONE);
  expect(published).toBeGreaterThan(relayBytesPerPayloadByte({ overlay: 'none', encryption: 'wireguard' }));
  expect(light).toBeGreaterThan(1);
  expect(light).toBeLessThan(published);
});

describe('events on a stack without an overlay', () => {
  const { plan, problems } = eventPlanner({ ...MESH, stack: { overlay: 'none' } }, ['one', 'two', 'three']);

  test('a cut or a flap, which would need re-routing, is refused with the reason', () => {
    expect(problems('      - { at: 10, cut: one-two/0 }')).toEqual([
      expect.stringMatching(/cutting link one-two\/0 needs an overlay that routes around it.*overlay none/),
    ]);
    expect(problems('      - { at: 10, flap: { link: two-three/0, period: 2, for: 10 } }')).toEqual([
      expect.stringMatching(/flapping link two-three\/0 needs an overlay/),
    ]);
  });

  test('a partition, which cuts every way on either stack, is planned', () => {
    expect(() => plan('      - { at: 10, partition: [[one], [two, three]] }')).not.toThrow();
  });
});
