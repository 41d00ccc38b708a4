// From a topology to the local fleet's names, addresses, ports and config files (no root needed).
import { validateTopology } from '../../core/validate-topology';
import { planFleet } from '../../infra/local/plan';
import { emulatorConfig } from '../../infra/local/emulator';
import { localInventory } from '../../infra/local/inventory';
import { carriesDataOverTcp, tincFiles } from '../../infra/local/tinc';
import { wireguardConfig } from '../../infra/local/wireguard';
import { rankLinks } from '../../core/overlay-path';
import { REFERENCE_SETTINGS, type NetworkSettings } from '../../core/network';
import { loadTopology } from '../../core/load-topology';
import { smallTopology as topology } from '../support/small-topology';

const plan = planFleet(topology);
const key = (c: string) => `${c.repeat(42)}A=`;
const publicKeys = new Map([
  ['alpha', key('A')],
  ['beta', key('B')],
  ['gamma', key('C')],
  ['cl', key('D')],
]);

describe('fleet plan', () => {
  test('a tagged fleet (FRAGBENCH_NETNS_TAG) has namespaces, interfaces and a marker of its own; a bad tag is refused by name', () => {
    const before = process.env.FRAGBENCH_NETNS_TAG;
    process.env.FRAGBENCH_NETNS_TAG = 'q';
    try {
      jest.isolateModules(() => {
        /* eslint-disable @typescript-eslint/no-require-imports */
        const tagged = require('../../infra/local/plan') as typeof import('../../infra/local/plan');
        const namespaces = require('../../infra/local/namespaces') as typeof import('../../infra/local/namespaces');
        /* eslint-enable @typescript-eslint/no-require-imports */
        const taggedPlan = tagged.planFleet(topology);
        expect(taggedPlan.nodes.map((n) => n.namespace)).toEqual(['fb-q-alpha', 'fb-q-beta', 'fb-q-gamma', 'fb-q-cl']);
        expect(namespaces.plannedNamespaces(taggedPlan)[0]).toBe('fb-q-wan');
        expect(taggedPlan.nodes[0].interfaces.map((i) => i.name)).toEqual(['fbqalpha-0', 'fbqalpha-3']);
        expect(namespaces.NAMESPACE_MARKER).toBe('fragbench-fleet-q');
        expect(() => tagged.netnsTag('q2')).toThrow(/FRAGBENCH_NETNS_TAG.*one lower-case letter/);
      });
    } finally {
      if (before === undefined) delete process.env.FRAGBENCH_NETNS_TAG;
      else process.env.FRAGBENCH_NETNS_TAG = before;
    }
    // Untagged, as every fleet is by default.
    expect(plan.nodes[0].namespace).toBe('fb-alpha');
  });

  test('namespaces, underlay and overlay addresses follow the node index', () => {
    expect(plan.nodes.map((n) => [n.namespace, n.underlayAddress, n.wanAddress, n.overlayAddress, n.role])).toEqual([
      ['fb-alpha', '198.18.1.2', '198.18.1.1', '198.19.100.1', 'data'],
      ['fb-beta', '198.18.2.2', '198.18.2.1', '198.19.100.2', 'data'],
      ['fb-gamma', '198.18.3.2', '198.18.3.1', '198.19.100.3', 'data'],
      ['fb-cl', '198.18.4.2', '198.18.4.1', '198.19.100.4', 'client'],
    ]);
  });

  test('one WireGuard interface per node per connection type it has, at 198.19.<type>.<index>', () => {
    const alpha = plan.nodes[0];
    expect(alpha.interfaces).toEqual([
      { type: 0, name: 'fbalpha-0', address: '198.19.0.1', listenPort: 51820 },
      { type: 3, name: 'fbalpha-3', address: '198.19.3.1', listenPort: 51823 },
    ]);
    expect(plan.nodes[2].interfaces.map((i) => i.name)).toEqual(['fbgamma-0']);
    // The longest node name still gives an interface name Linux accepts.
    const long = planFleet(
      validateTopology({
        ...topology,
        nodes: topology.nodes.map((n, i) => (i === 0 ? { ...n, name: 'abcdefghij' } : n)),
        links: topology.links.map((l) => (l.a === 'alpha' ? { ...l, a: 'abcdefghij' } : l.b === 'alpha' ? { ...l, b: 'abcdefghij' } : l)),
      }),
    );
    for (const i of long.nodes[0].interfaces) expect(i.name.length).toBeLessThanOrEqual(15);
  });

  test('each link end gets the emulator on its own veth, one port per link', () => {
    const link = plan.links[1];
    expect(link.id).toBe('alpha-beta/3');
    expect(link.ends).toEqual([
      { node: 'alpha', interface: 'fbalpha-3', meshAddress: '198.19.3.1', relayAddress: '198.18.1.1:40001', wireguardAddress: '198.18.1.2:51823' },
      { node: 'beta', interface: 'fbbeta-3', meshAddress: '198.19.3.2', relayAddress: '198.18.2.1:40001', wireguardAddress: '198.18.2.2:51823' },
    ]);
    expect(emulatorConfig(plan).links[1]).toMatchObject({
      id: 'alpha-beta/3',
      a: { listen: '198.18.1.1:40001', peer: '198.18.1.2:51823' },
      b: { listen: '198.18.2.1:40001', peer: '198.18.2.2:51823' },
    });
  });

  test("a pair's direct links are listed fastest first, a cut one last, as the network is now", () => {
    const slowFirst = planFleet(
      validateTopology({
        name: 'two-ways',
        nodes: [
          { name: 'pa', site: 'a' },
          { name: 'pc', site: 'c' },
        ],
        links: [
          { a: 'pa', b: 'pc', latencyMs: 210, bandwidthMbps: 100 },
          { a: 'pa', b: 'pc', type: 1, latencyMs: 140, bandwidthMbps: 100 },
        ],
      }),
    );
    const hostFile = (p: typeof slowFirst) => tincFiles(p, p.nodes[0], new Map()).find((f) => f.path === 'hosts/pc')!.content;
    expect(hostFile(slowFirst)).toMatch(/^Address = 198\.19\.1\.2 655\nAddress = 198\.19\.0\.2 655\n/);
    const ids = (settings: NetworkSettings) => rankLinks(slowFirst.links, settings).map((l) => l.id);
    expect(ids({ ...REFERENCE_SETTINGS, cut: ['pa-pc/1'] })).toEqual(['pa-pc/0', 'pa-pc/1']);
    expect(ids({ ...REFERENCE_SETTINGS, oneWayCuts: [{ link: 'pa-pc/1', direction: 'ab' }] })).toEqual(['pa-pc/0', 'pa-pc/1']);
    // An event that slows type 1 past type 0 turns the order round; a latency scale does not.
    expect(ids({ ...REFERENCE_SETTINGS, overrides: { 'pa-pc/1': { ab: { delayMs: 110 }, ba: { delayMs: 110 } } } })).toEqual(['pa-pc/0', 'pa-pc/1']);
    expect(ids({ ...REFERENCE_SETTINGS, latencyScale: 0.2 })).toEqual(['pa-pc/1', 'pa-pc/0']);
  });

  test('a WireGuard peer is reached at the emulator on the near veth and owns only its mesh address', () => {
    const text = wireguardConfig(plan, plan.nodes[1], plan.nodes[1].interfaces[0], 'PRIVATE', publicKeys);
    expect(text).toContain('PrivateKey = PRIVATE\nListenPort = 51820');
    expect(text).toContain(`PublicKey = ${key('A')}\nAllowedIPs = 198.19.0.1/32\nEndpoint = 198.18.2.1:40000`);
    expect(text).toContain(`PublicKey = ${key('C')}\nAllowedIPs = 198.19.0.3/32\nEndpoint = 198.18.2.1:40002`);
    expect(text).not.toContain(key('D'));
  });

  test('tinc host files list only the addresses of links the node has to that peer', () => {
    const files = new Map(tincFiles(plan, plan.nodes[0], publicKeys).map((f) => [f.path, f]));
    expect([...files.keys()].sort()).toEqual(['hosts/alpha', 'hosts/beta', 'hosts/cl', 'tinc-up', 'tinc.conf']);
    expect(files.get('hosts/beta')!.content).toMatch(/^Address = 198\.19\.0\.2 655\nAddress = 198\.19\.3\.2 655\n/);
    expect(files.get('hosts/cl')!.content).toMatch(/^Address = 198\.19\.0\.4 655\nPort/);
    expect(files.get('hosts/alpha')!.content).not.toContain('Address');
    // alpha dials the peers after it in the topology, and is dialled by the ones before.
    expect(files.get('tinc.conf')!.content).toContain('ConnectTo = beta\nConnectTo = cl\n');
    expect(files.get('tinc.conf')!.content).toMatch(/PingInterval = 1\nPingTimeout = 1/);
    expect(files.get('tinc-up')!.mode).toBe(0o700);
    expect(files.get('tinc-up')!.content).toContain('ip addr add 198.19.100.1/24 dev "$INTERFACE"');
    expect(
      tincFiles(plan, plan.nodes[2], publicKeys)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['hosts/beta', 'hosts/gamma', 'tinc-up', 'tinc.conf']);
  });

  test('tinc carries data over UDP with one connection type, over its meta connections with several', () => {
    expect(carriesDataOverTcp(plan)).toBe(true);
    expect(tincFiles(plan, plan.nodes[0], publicKeys)[2].content).toContain('TCPOnly = yes');
    const single = planFleet(loadTopology('fhc-4'));
    expect(carriesDataOverTcp(single)).toBe(false);
    expect(tincFiles(single, single.nodes[0], publicKeys)[2].content).toContain('PMTUDiscovery = no');
  });

  test("the failover profile sets tinc's timers, and the inventory says which ran", () => {
    const conf = (failover?: unknown) => {
      const p = planFleet(validateTopology({ ...topology, failover }));
      return {
        text: tincFiles(p, p.nodes[0], publicKeys).find((f) => f.path === 'tinc.conf')!.content,
        inventory: localInventory(p, publicKeys, 'boringtun 0.7.1'),
      };
    };
    expect(conf().text).toContain('PingInterval = 1\nPingTimeout = 1\nMaxTimeout = 1\n');
    expect(conf('tinc-defaults').text).toContain('PingInterval = 60\nPingTimeout = 5\nMaxTimeout = 900\n');
    expect(conf({ pingInterval: 10, pingTimeout: 3 }).text).toContain('PingInterval = 10\nPingTimeout = 3\nMaxTimeout = 900\n');
    expect(conf('tinc-defaults').inventory.overlay?.failover).toEqual({ pingInterval: 60, pingTimeout: 5, maxTimeout: 900 });
    expect(() => validateTopology({ ...topology, failover: 'slow' })).toThrow(/failover/);
    expect(() => validateTopology({ ...topology, failover: { pingInterval: 0, pingTimeout: 2 } })).toThrow(/failover/);
    // tinc would clamp it to pingInterval without a word: refused, naming the field and the rule.
    expect(() => validateTopology({ ...topology, failover: { pingInterval: 1, pingTimeout: 2 } })).toThrow(
      /failover\.pingTimeout: 2 is over pingInterval \(1\).*give pingTimeout <= pingInterval/,
    );
  });

  test('the inventory carries reference values and public keys only', () => {
    const inventory = localInventory(plan, publicKeys, 'boringtun 0.7.1');
    expect(inventory.links[1]).toEqual({
      id: 'alpha-beta/3',
      a: 'alpha',
      b: 'beta',
      type: 3,
      latencyMs: 40,
      bandwidthMbps: 50,
      estimated: true,
      ends: [
        { node: 'alpha', interface: 'fbalpha-3', endpoint: '198.18.2.1:40001' },
        { node: 'beta', interface: 'fbbeta-3', endpoint: '198.18.1.1:40001' },
      ],
    });
    expect(inventory.clientNode).toBe('cl');
    expect(inventory.nodes[0]).toMatchObject({ exec: { transport: 'netns', namespace: 'fb-alpha' }, cloud: 'local', overlayAddress: '198.19.100.1' });
    expect(JSON.stringify(inventory)).not.toMatch(/PrivateKey|PRIVATE/);
  });
});
