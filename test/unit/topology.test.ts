import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { InputError, InputErrors } from '../../core/errors';
import { builtInTopologies, loadTopology } from '../../core/load-topology';
import { validateTopology } from '../../core/validate-topology';
import { linkType, type Topology } from '../../core/topology';
import { haversineKm } from '../../core/site-motion';
import { planFleet } from '../../infra/local/plan';
import { builtInTopologyDefinitions, estimatedRttMs, topologyFilePath, topologyYaml } from '../../topologies/derive';

const reference = JSON.parse(readFileSync(join(__dirname, '../../topologies/reference/datacenters-8.json'), 'utf8')) as {
  sites: string[];
  links: { a: string; b: string; latencyMs: number; downloadMbps: number }[];
};

function good(): Topology {
  return {
    name: 'three',
    nodes: [
      { name: 'alpha', site: 'x' },
      { name: 'beta', site: 'y' },
      { name: 'gamma', site: 'z' },
    ],
    links: [
      { a: 'alpha', b: 'beta', latencyMs: 20, bandwidthMbps: 100 },
      { a: 'alpha', b: 'beta', type: 1, latencyMs: 40, bandwidthMbps: 50 },
      { a: 'beta', b: 'gamma', latencyMs: 30, bandwidthMbps: 100 },
    ],
  };
}

/** The fields named by the errors a value is rejected with. */
function rejectedFields(value: unknown): string[] {
  try {
    validateTopology(value);
  } catch (err) {
    if (err instanceof InputErrors) return err.errors.map((e) => e.field);
    if (err instanceof InputError) return [err.field];
    throw err;
  }
  throw new Error('accepted');
}

describe('topology validation', () => {
  test('a topology with two connection types between one pair is accepted', () => {
    expect(validateTopology(good()).links).toHaveLength(3);
  });

  test.each<[string, (t: Topology) => void, string]>([
    ['unknown node in a link', (t) => (t.links[2].b = 'delta'), 'links[2].b'],
    ['negative latency', (t) => (t.links[1].latencyMs = -5), 'links[1].latencyMs'],
    ['zero bandwidth', (t) => (t.links[0].bandwidthMbps = 0), 'links[0].bandwidthMbps'],
    ['duplicate node names', (t) => (t.nodes[2].name = 'alpha'), 'nodes[2].name'],
    ['a name too long for an interface', (t) => (t.nodes[0].name = 'abcdefghijk'), 'nodes[0].name'],
    ['an upper-case name', (t) => (t.nodes[1].name = 'Beta'), 'nodes[1].name'],
    ['the reserved name wan', (t) => (t.nodes[2].name = 'wan'), 'nodes[2].name'],
    ['the same pair and type twice', (t) => t.links.push({ a: 'beta', b: 'alpha', latencyMs: 1, bandwidthMbps: 1 }), 'links[3]'],
    ['a link from a node to itself', (t) => (t.links[2].b = 'beta'), 'links[2].b'],
    ['a connection type out of range', (t) => (t.links[0].type = 100), 'links[0].type'],
    ['an unknown client', (t) => (t.client = 'omega'), 'client'],
    ['a misspelt field', (t) => ((t.links[0] as unknown as Record<string, number>).latency = 3), 'links[0].latency'],
    ['a node without links', (t) => t.nodes.push({ name: 'delta', site: 'w' }), 'nodes[3]'],
  ])('%s is rejected, naming the field', (_what, breakIt, field) => {
    const topology = good();
    breakIt(topology);
    expect(rejectedFields(topology)).toContain(field);
  });

  test('the message says what is wrong and how to fix it', () => {
    const topology = good();
    topology.nodes[0].name = 'averyverylongname';
    expect(() => validateTopology(topology)).toThrow(/nodes\[0\]\.name: .*at most 10 characters/);
  });

  test('a bad file is rejected with the field and the file named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fb-topology-'));
    const file = join(dir, 'bad.yaml');
    const topology = good();
    topology.links[0].latencyMs = -1;
    writeFileSync(file, stringify(topology));
    expect(() => loadTopology(file)).toThrow(/links\[0\]\.latencyMs: .*\(in bad\.yaml\)/);
  });

  test('an unknown topology name lists the built-in ones', () => {
    expect(() => loadTopology('no-such-topology')).toThrow(/fhc-8dc/);
  });
});

describe('built-in topologies', () => {
  test('every built-in topology loads and validates', () => {
    expect(builtInTopologies()).toEqual(expect.arrayContaining(['fhc-8dc', 'fhc-4', 'hybrid-sydney', 'hybrid-mumbai', 'hybrid-virginia', 'fhc-32']));
    for (const name of builtInTopologies()) expect(loadTopology(name).name).toBe(name);
  });

  test('each generated file is what topologies/derive.ts derives from the reference data', () => {
    for (const topology of builtInTopologyDefinitions()) {
      expect(readFileSync(topologyFilePath(topology), 'utf8')).toBe(topologyYaml(topology));
    }
  });

  test('fhc-8dc carries every reference pair, and a client that sees sites as Singapore does', () => {
    const fhc = loadTopology('fhc-8dc');
    expect(fhc.nodes.map((n) => n.name)).toEqual([...reference.sites, 'client']);
    for (const ref of reference.links) {
      expect(fhc.links).toContainEqual(expect.objectContaining({ a: ref.a, b: ref.b, latencyMs: ref.latencyMs, bandwidthMbps: ref.downloadMbps }));
      const [site, other] = [ref.a, ref.b];
      if (site === 'singapore' || other === 'singapore') {
        const far = site === 'singapore' ? other : site;
        expect(fhc.links).toContainEqual(expect.objectContaining({ a: 'client', b: far, latencyMs: ref.latencyMs }));
      }
    }
    expect(fhc.links.find((l) => l.a === 'client' && l.b === 'singapore')).toMatchObject({ latencyMs: 1, estimated: true });
    expect(fhc.links).toHaveLength(28 + 8);
  });

  test('fhc-32: 32 positioned sites and a client, measured datacenter pairs, every edge site linked to its datacenter, the rest within reach and estimated', () => {
    const sites32 = JSON.parse(readFileSync(join(__dirname, '../../topologies/reference/sites-32.json'), 'utf8')) as {
      reachKm: number;
      sites: { name: string; lat: number; lon: number; near?: string }[];
    };
    const fhc = loadTopology('fhc-32');
    expect(() => validateTopology(fhc)).not.toThrow();
    expect(fhc.nodes).toHaveLength(33);
    expect(fhc.nodes.every((n) => n.position)).toBe(true);
    expect(fhc.client).toBe('client');
    const linksOf = (a: string, b: string) => fhc.links.filter((l) => (l.a === a && l.b === b) || (l.a === b && l.b === a));
    for (const ref of reference.links) {
      expect(linksOf(ref.a, ref.b)).toContainEqual(expect.objectContaining({ latencyMs: ref.latencyMs, bandwidthMbps: ref.downloadMbps }));
    }
    const at = new Map(sites32.sites.map((s) => [s.name, s]));
    for (const edge of sites32.sites.filter((s) => s.near)) expect(linksOf(edge.name, edge.near!).length).toBeGreaterThan(0);
    for (const l of fhc.links.filter((l) => l.a !== 'client' && l.b !== 'client')) {
      const measured = reference.links.some((r) => (r.a === l.a && r.b === l.b) || (r.a === l.b && r.b === l.a));
      const homeLink = at.get(l.a)!.near === l.b || at.get(l.b)!.near === l.a;
      if (!measured && !homeLink) expect(haversineKm(at.get(l.a)!, at.get(l.b)!)).toBeLessThanOrEqual(sites32.reachKm);
      if (!measured || linkType(l) > 0) expect(l.estimated).toBe(true);
    }
    // The fibre (type 0) is each pair's fastest link: probes and the overlay measure it.
    for (const fibre of fhc.links.filter((l) => linkType(l) === 0)) {
      for (const other of linksOf(fibre.a, fibre.b)) expect(other.latencyMs!).toBeGreaterThanOrEqual(fibre.latencyMs!);
    }
    expect(new Set(fhc.links.map(linkType))).toEqual(new Set([0, 1, 2]));
    // Its ~220 ms meta connections need more than `fast`'s one second to authenticate.
    expect(fhc.failover).toEqual({ pingInterval: 2, pingTimeout: 2, maxTimeout: 2 });
    // Interface names fit Linux's 15 characters and every node gets an address.
    const plan = planFleet(fhc);
    expect(Math.max(...plan.nodes.flatMap((n) => n.interfaces.map((i) => i.name.length)))).toBeLessThanOrEqual(15);
  });

  test('hybrid latencies: Virginia measured, Sydney and Mumbai estimated from distance and labelled', () => {
    const inter = (name: string) => loadTopology(name).links.find((l) => l.a === 'prv1' && l.b === 'pub1')!;
    expect(inter('hybrid-virginia')).toMatchObject({ latencyMs: 229.5 });
    expect(inter('hybrid-virginia').estimated).toBeUndefined();
    expect(inter('hybrid-sydney')).toMatchObject({ latencyMs: estimatedRttMs(1374), estimated: true });
    expect(inter('hybrid-mumbai')).toMatchObject({ latencyMs: estimatedRttMs(9022), estimated: true });
    // The estimate reproduces the one measured region within a few percent.
    expect(Math.abs(estimatedRttMs(16671) - 229.5) / 229.5).toBeLessThan(0.03);
  });
});
