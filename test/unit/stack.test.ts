/**
 * The network stacks a local fleet can run (core/stack.ts): how a choice resolves, which
 * topologies a stack without an overlay refuses, and what the plan makes of each: static routes
 * over each pair's fastest link, VXLAN links pointed at the emulator, WireGuard peers that take
 * the overlay addresses they route, the emulator's byte count per stack.
 */
import { describeStack, PUBLISHED_STACK, resolveStack, stackProblem } from '../../core/stack';
import { validateTopology } from '../../core/validate-topology';
import { planFleet } from '../../infra/local/plan';
import { relayBytesPerPayloadByte } from '../../infra/local/overlay-cost';
import { routedLinks, staticPaths, staticRoutes } from '../../infra/local/static-routes';
import { meshMac, vxlanCommands } from '../../infra/local/vxlan';
import { wireguardConfig } from '../../infra/local/wireguard';
import { eventPlanner } from '../support/event-planning';
import { inputProblems } from '../support/input-problems';
import { meshTopology, smallTopology } from '../support/small-topology';

const MESH = meshTopology;
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
  expect(routedLinks(plan).get('lsa-lsb')?.id).toBe('lsa-lsb/1');
  const one = plan.nodes.find((n) => n.name === 'lsa')!;
  const two = plan.nodes.find((n) => n.name === 'lsb')!;
  const toTwo = staticRoutes(plan, one).find((r) => r.to === 'lsb')!;
  expect(toTwo).toMatchObject({ address: two.overlayAddress, dev: 'fblsa-1', via: '198.19.1.2' });
  expect(staticRoutes(plan, two).find((r) => r.to === 'lsa')).toMatchObject({ dev: 'fblsb-1', via: '198.19.1.1' });
  expect(
    staticRoutes(plan, one)
      .map((r) => r.to)
      .sort(),
  ).toEqual(['lsb', 'lsc', 'lsd']);
  const paths = staticPaths(plan, (link) => link === 'lsa-lsb/1');
  expect(paths.find((p) => p.from === 'lsa' && p.to === 'lsb')).toEqual({ from: 'lsa', to: 'lsb', hops: [], links: [] });
  expect(paths.find((p) => p.from === 'lsb' && p.to === 'lsd')).toEqual({
    from: 'lsb',
    to: 'lsd',
    hops: ['lsb', 'lsd'],
    links: ['lsb-lsd/0'],
  });
});

test("a VXLAN link sends from its own port, each peer's frames to the emulator's port for that link", () => {
  const plan = planFleet(validateTopology(MESH), NONE);
  const one = plan.nodes.find((n) => n.name === 'lsa')!;
  const iface = one.interfaces.find((i) => i.type === 0)!;
  const { ip, bridge } = vxlanCommands(plan, one, iface);
  expect(ip[0]).toBe(`link add fblsa-0 type vxlan id 1 local ${one.underlayAddress} dstport 51820 srcport 51820 51821 nolearning`);
  const toTwo = plan.links.find((l) => l.id === 'lsa-lsb/0')!;
  const relay = toTwo.ends.find((e) => e.node === 'lsa')!.relayAddress.split(':');
  expect(bridge).toContain(`fdb add ${meshMac(2, 0)} dev fblsa-0 dst ${relay[0]} port ${relay[1]}`);
  expect(ip).toContain(`neigh add 198.19.0.2 lladdr ${meshMac(2, 0)} dev fblsa-0 nud permanent`);
  // One peer per link of the interface's type: two, three and the client.
  expect(bridge).toHaveLength(3);
});

test('WireGuard without tinc: the peer of a routed link also takes the overlay address it routes', () => {
  const plan = planFleet(validateTopology(MESH), { overlay: 'none' });
  const one = plan.nodes.find((n) => n.name === 'lsa')!;
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
  const { plan, problems } = eventPlanner({ ...MESH, stack: { overlay: 'none' } }, ['lsa', 'lsb', 'lsd']);

  test('a cut or a flap, which would need re-routing, is refused with the reason', () => {
    expect(problems('      - { at: 10, cut: lsa-lsb/0 }')).toEqual([
      expect.stringMatching(/cutting link lsa-lsb\/0 needs an overlay that routes around it.*overlay none/),
    ]);
    expect(problems('      - { at: 10, flap: { link: lsb-lsd/0, period: 2, for: 10 } }')).toEqual([
      expect.stringMatching(/flapping link lsb-lsd\/0 needs an overlay/),
    ]);
  });

  test('a partition, which cuts every way on either stack, is planned', () => {
    expect(() => plan('      - { at: 10, partition: [[lsa], [lsb, lsd]] }')).not.toThrow();
  });
});
