/**
 * The tokens of a Cassandra cluster formed all at once (services/databases/cassandra/config.ts):
 * every member the same share of the Murmur3 ring, neighbouring ranges owned by different members.
 */
import { cassandraYaml, evenTokens } from '../../services/databases/cassandra/config';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

test('each member gets its own tokens, all distinct and inside the Murmur3 range', () => {
  const tokens = evenTokens(3, 16);
  expect(tokens.map((t) => t.length)).toEqual([16, 16, 16]);
  const all = tokens.flat().map(BigInt);
  expect(new Set(all).size).toBe(48);
  expect(all.every((t) => t >= MIN && t <= MAX)).toBe(true);
  expect(all).toContain(MIN);
});

test('the ring is cut into equal ranges dealt out in turn, so shares are equal and neighbours differ', () => {
  const tokens = evenTokens(4, 8);
  const owner = new Map(tokens.flatMap((list, member) => list.map((t) => [BigInt(t), member] as const)));
  const sorted = [...owner.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const widths = sorted.map((t, i) => (i + 1 < sorted.length ? sorted[i + 1] : MAX + 1n + (sorted[0] - MIN)) - t);
  // Equal to within integer division's rounding.
  expect(Number(widths.reduce((a, b) => (a > b ? a : b)) - widths.reduce((a, b) => (a < b ? a : b)))).toBeLessThanOrEqual(1);
  sorted.forEach((t, i) => expect(owner.get(t)).not.toBe(owner.get(sorted[(i + 1) % sorted.length])));
});

test('a member formed at once has its tokens and no bootstrap in its cassandra.yaml; a joining node has neither', () => {
  const base = { clusterName: 'c', address: '198.18.0.2', seeds: ['198.18.0.2'], dir: '/d', numTokens: 2, heapMb: 512, classpath: 'x' };
  const formed = cassandraYaml({ ...base, initialTokens: evenTokens(2, 2)[1] });
  expect(formed).toMatch(new RegExp(`^initial_token: ${evenTokens(2, 2)[1].join(',')}$`, 'm'));
  expect(formed).toMatch(/^auto_bootstrap: false$/m);
  const joining = cassandraYaml(base);
  expect(joining).not.toMatch(/initial_token|auto_bootstrap/);
});
