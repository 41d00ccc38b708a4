/**
 * The fragmented stack under Pulumi's in-process mocks: fhc-8dc as published (all in OpenStack),
 * and a small fleet with two connection types on one pair and a site in Azure. Each VM's
 * WireGuard and tinc files, as the program pushes them, are read back and checked against the
 * topology's links.
 */
import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Inventory } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';
import { loadTopology } from '../../core/load-topology';
import { checkScenarioShape } from '../../core/scenario-schema';
import { planScenario } from '../../core/scenario-plan';
import { inputProblems } from '../support/input-problems';
import { CommandRecorder } from '../support/recording-exec';
import { steerVmOverlay } from '../../infra/shaping/vm-overlay';
import { REFERENCE_SETTINGS, type NetworkSettings } from '../../core/network';
import { buildFleet } from '../../infra/pulumi/fleet';
import { wireguardPublicKey } from '../../infra/pulumi/keys/key-material';
import type { FragmentedSettings } from '../../infra/pulumi/settings';
import { filesOfScript, parseWireguard, splitList } from './config-files';
import {
  OPERATOR_CONFIG,
  OPERATOR_SSH_PRIVATE_KEY,
  TYPES,
  BUILD_TIMEOUT_MS,
  mockCloud,
  settled,
  stackSettings,
  valueOf,
  type MockCloud,
} from './harness';

interface Built {
  cloud: MockCloud;
  settings: FragmentedSettings;
  inventory: Inventory;
}

async function build(stack: string, overrides: Record<string, unknown> = {}): Promise<Built> {
  const cloud = mockCloud(stack);
  const settings = stackSettings('fhc-8dc', overrides) as FragmentedSettings;
  const inventory = await valueOf(buildFleet(settings, OPERATOR_SSH_PRIVATE_KEY));
  await settled();
  return { cloud, settings, inventory };
}

/** Every WireGuard config each node receives: node -> interface -> parsed config. */
function pushedConfigs(b: Built) {
  return Object.fromEntries(
    b.inventory.nodes.map((n) => {
      const files = filesOfScript(b.cloud.named(TYPES.command, `${n.name}-mesh`).inputs.stdin!);
      return [n.name, { files, wg: Object.fromEntries(n.wireguard.map((w) => [w.name, parseWireguard(files[`/etc/wireguard/${w.name}.conf`])])) }];
    }),
  );
}

/** Each node's config for each type names exactly its link partners of that type, at their public endpoints. */
function expectMeshMatchesLinks(b: Built): void {
  const configs = pushedConfigs(b);
  const byName = new Map(b.inventory.nodes.map((n) => [n.name, n]));
  for (const node of b.inventory.nodes) {
    for (const iface of node.wireguard) {
      const conf = configs[node.name].wg[iface.name];
      expect(wireguardPublicKey(conf.iface.PrivateKey)).toBe(iface.publicKey);
      expect(conf.iface.ListenPort).toBe(String(iface.listenPort));
      const partners = b.inventory.links
        .filter((l) => l.type === iface.type && (l.a === node.name || l.b === node.name))
        .map((l) => byName.get(l.a === node.name ? l.b : l.a)!);
      const expected = partners.map((p) => {
        const theirs = p.wireguard.find((w) => w.type === iface.type)!;
        return { PublicKey: theirs.publicKey!, AllowedIPs: `${theirs.address}/32`, Endpoint: `${p.underlayAddress}:${theirs.listenPort}` };
      });
      const actual = conf.peers.map((p) => ({ PublicKey: p.PublicKey, AllowedIPs: splitList(p.AllowedIPs).join(','), Endpoint: p.Endpoint }));
      expect(sortByKey(actual)).toEqual(sortByKey(expected));
    }
  }
}

function sortByKey<T extends { PublicKey: string }>(items: T[]): T[] {
  return [...items].sort((x, y) => x.PublicKey.localeCompare(y.PublicKey));
}

describe('fhc-8dc as published', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build('fhc-8dc');
  }, BUILD_TIMEOUT_MS);

  test('one OpenStack VM of 2 vCPU / 4 GiB / 40 GB per site, plus the client, each with a public address', () => {
    const topology = loadTopology('fhc-8dc');
    const vms = b.cloud.ofType(TYPES.osInstance);
    expect(vms.map((v) => v.inputs.name).sort()).toEqual(topology.nodes.map((n) => `fb-fhc-8dc-${n.name}`).sort());
    expect(new Set(vms.map((v) => v.inputs.flavorName))).toEqual(new Set(['m1.medium']));
    expect(b.cloud.ofType(TYPES.osFloatingIp)).toHaveLength(topology.nodes.length);
    expect(b.cloud.ofType(TYPES.azVm)).toHaveLength(0);
    const inv = b.inventory.nodes.find((n) => n.name === 'melbourne')!;
    expect([inv.vcpus, inv.memoryGiB]).toEqual([2, 4]);
  });

  test('the inventory validates, keeps the reference links, and carries no private key', () => {
    expect(() => validateInventory(b.inventory)).not.toThrow();
    const topology = loadTopology('fhc-8dc');
    expect(b.inventory.links.map((l) => [l.a, l.b, l.latencyMs, l.bandwidthMbps])).toEqual(
      topology.links.map((l) => [l.a, l.b, l.latencyMs, l.bandwidthMbps]),
    );
    expect(b.inventory.clientNode).toBe('client');
    // 9 WireGuard keys and 9 tinc keys were made; none is in the inventory.
    expect(b.cloud.privateKeys).toHaveLength(18);
    expect(b.cloud.leakedKeys(JSON.stringify(b.inventory))).toEqual([]);
  });

  test("each node's WireGuard config names exactly its peers, with their AllowedIPs and endpoints", () => {
    expectMeshMatchesLinks(b);
  });

  test('tinc connects each node to its neighbours and knows every neighbour by its mesh address', () => {
    const configs = pushedConfigs(b);
    for (const node of b.inventory.nodes) {
      const files = configs[node.name].files;
      const neighbours = b.inventory.links.filter((l) => l.a === node.name || l.b === node.name).map((l) => (l.a === node.name ? l.b : l.a));
      const connectTo = [...files['/etc/tinc/fb/tinc.conf'].matchAll(/^ConnectTo = (\S+)$/gm)].map((m) => m[1]);
      expect(connectTo.sort()).toEqual([...new Set(neighbours)].sort());
      for (const n of neighbours) {
        const peer = b.inventory.nodes.find((x) => x.name === n)!;
        expect(files[`/etc/tinc/fb/hosts/${n}`]).toContain(`Subnet = ${peer.overlayAddress}/32`);
        expect(files[`/etc/tinc/fb/hosts/${n}`]).toContain(`Address = ${peer.wireguard[0].address}`);
      }
      expect(files['/etc/tinc/fb/tinc-up']).toContain(`${node.overlayAddress}/24`);
    }
  });

  test('only WireGuard and SSH from the operator face the internet', () => {
    const rules = b.cloud
      .ofType(TYPES.osSecGroupRule)
      .map((r) => [r.inputs.protocol, r.inputs.portRangeMin, r.inputs.portRangeMax, r.inputs.remoteIpPrefix]);
    expect(rules.sort()).toEqual(
      [
        ['tcp', 22, 22, OPERATOR_CONFIG.operatorCidr],
        ['udp', b.settings.wireguardPort, b.settings.wireguardPort, '0.0.0.0/0'],
      ].sort(),
    );
  });
});

describe('several connection types per pair, and a site in Azure', () => {
  let b: Built;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fb-infra-'));
    const file = join(dir, 'three.yaml');
    writeFileSync(
      file,
      [
        'name: three',
        'client: gamma',
        'nodes: [{ name: alpha, site: sydney }, { name: beta, site: virginia }, { name: gamma, site: singapore }]',
        'links:',
        '  - { a: alpha, b: beta, type: 0, latencyMs: 165, bandwidthMbps: 121 }',
        '  - { a: alpha, b: beta, type: 1, latencyMs: 240, bandwidthMbps: 50 }',
        '  - { a: alpha, b: gamma, latencyMs: 35, bandwidthMbps: 206 }',
        '  - { a: beta, b: gamma, type: 1, latencyMs: 142, bandwidthMbps: 111 }',
      ].join('\n'),
    );
    b = await build('three', { topology: file, placement: { beta: 'azure:eastus' } });
  }, BUILD_TIMEOUT_MS);

  test('a node has one interface per connection type it takes part in, on its own port', () => {
    const wg = (name: string) => b.inventory.nodes.find((n) => n.name === name)!.wireguard.map((w) => [w.name, w.listenPort]);
    expect(wg('alpha')).toEqual([
      ['wg0', 51820],
      ['wg1', 51821],
    ]);
    expect(wg('beta')).toEqual([
      ['wg0', 51820],
      ['wg1', 51821],
    ]);
    expect(wg('gamma')).toEqual([
      ['wg0', 51820],
      ['wg1', 51821],
    ]);
    expectMeshMatchesLinks(b);
    expect(() => validateInventory(b.inventory)).not.toThrow();
  });

  test('the Azure site gets a VM, a public IP and an NSG opening only the WireGuard ports and SSH', () => {
    const vms = b.cloud.ofType(TYPES.azVm);
    expect(vms.map((v) => [v.inputs.vmName, v.inputs.hardwareProfile!.vmSize, v.inputs.storageProfile!.osDisk!.diskSizeGB])).toEqual([
      ['fb-fhc-8dc-beta', 'Standard_B2s', 40],
    ]);
    expect(b.inventory.nodes.find((n) => n.name === 'beta')).toMatchObject({ cloud: 'azure', site: 'virginia' });
    expect(b.cloud.ofType(TYPES.azPublicIp)).toHaveLength(1);
    const rules = b.cloud.ofType(TYPES.azNsg).flatMap((n) => n.inputs.securityRules!);
    expect(rules.map((r) => [r.protocol, r.destinationPortRange, r.sourceAddressPrefix]).sort()).toEqual(
      [
        ['Tcp', '22', OPERATOR_CONFIG.operatorCidr],
        ['Udp', '51820-51821', '*'],
      ].sort(),
    );
  });
});

describe('positions, tags and the distance model reach the inventory, so moves validate against the stack', () => {
  let b: Built;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fb-infra-'));
    const file = join(dir, 'afloat.yaml');
    writeFileSync(
      file,
      [
        'name: afloat',
        'client: gamma',
        'distance: { msPerKm: 0.02, baseMs: 2 }',
        'nodes:',
        '  - { name: alpha, site: sydney, tags: [ship], position: { lat: -33.87, lon: 151.21 } }',
        '  - { name: beta, site: singapore, position: { lat: 1.35, lon: 103.82 } }',
        '  - { name: gamma, site: virginia, position: { lat: 38.9, lon: -77.04 } }',
        'links:',
        '  - { a: alpha, b: beta, bandwidthMbps: 100 }',
        '  - { a: alpha, b: gamma, latencyMs: 200, bandwidthMbps: 100 }',
        '  - { a: alpha, b: gamma, type: 1, latencyMs: 150, bandwidthMbps: 100 }',
        '  - { a: beta, b: gamma, latencyMs: 220, bandwidthMbps: 100 }',
      ].join('\n'),
    );
    b = await build('afloat', { topology: file });
  }, BUILD_TIMEOUT_MS);

  test('each positioned node keeps its position and tags; the stack keeps the distance model', () => {
    const node = (name: string) => b.inventory.nodes.find((n) => n.name === name)!;
    expect(node('alpha')).toMatchObject({ tags: ['ship'], position: { lat: -33.87, lon: 151.21 } });
    expect(node('beta').position).toEqual({ lat: 1.35, lon: 103.82 });
    expect(b.inventory.distance).toEqual({ msPerKm: 0.02, baseMs: 2 });
    // Sydney - Singapore is about 6,300 km: 2 + 0.02 x km.
    const estimated = b.inventory.links.find((l) => l.id === 'alpha-beta/0')!;
    expect(estimated.estimated).toBe(true);
    expect(estimated.latencyMs).toBeGreaterThan(120);
    expect(estimated.latencyMs).toBeLessThan(135);
    expect(() => validateInventory(b.inventory)).not.toThrow();
  });

  test('a move plans against the stack’s inventory, and is refused by one without positions (as before they reached it)', () => {
    const scenario = checkScenarioShape({
      name: 'sail',
      experiment: 'A ship moving away',
      fleet: { pulumiStack: 'afloat' },
      database: { name: 'cassandra', nodes: ['alpha', 'beta'] },
      phases: [{ phase: 'run', duration: 100, events: [{ at: 10, move: { node: 'alpha', to: { lat: -20, lon: 120 }, over: 60 } }] }],
    });
    const on = (view: typeof b.inventory) => () => ({ ref: { kind: 'pulumi' as const, stack: 'afloat' }, view });
    const [phase] = planScenario(scenario, on(b.inventory)).cells[0].phases;
    expect(phase.kind === 'run' && phase.events[0].action).toMatchObject({ kind: 'site-move', node: 'alpha' });
    const unplaced = { ...b.inventory, nodes: b.inventory.nodes.map(({ position: _position, ...n }) => n) };
    expect(
      inputProblems(() => planScenario(scenario, on(unplaced)))
        .map((e) => e.message)
        .join('\n'),
    ).toMatch(/^phases\[0\]\.events\[0\]\.move: .*no position/);
  });

  const mesh = (node: string, type: number) => b.inventory.nodes.find((n) => n.name === node)!.wireguard.find((w) => w.type === type)!.address;

  test('a host file lists the peer’s addresses fastest link first, whatever the types’ order', () => {
    const files = filesOfScript(b.cloud.named(TYPES.command, 'alpha-mesh').inputs.stdin!);
    const addresses = (file: string) => files[file].split('\n').filter((l) => l.startsWith('Address = '));
    // alpha-gamma/1 (150 ms) before alpha-gamma/0 (200 ms).
    expect(addresses('/etc/tinc/fb/hosts/gamma')).toEqual([`Address = ${mesh('gamma', 1)}`, `Address = ${mesh('gamma', 0)}`]);
  });

  test('steering over SSH: a reordered pair gets its Address lines rewritten on both ends, and reconnects where its link is no longer the fastest', async () => {
    let connectedVia = mesh('gamma', 1);
    const recorder = new CommandRecorder((node, argv) =>
      argv.join(' ').includes('ss -Htn') && node === 'alpha' ? `0 0 ${mesh('alpha', 1)}:40000 ${connectedVia}:655\n` : '',
    );
    const execOf = (node: string) => recorder.execFor(b.inventory.nodes.find((n) => n.name === node)!);
    const slower: NetworkSettings = { ...REFERENCE_SETTINGS, overrides: { 'alpha-gamma/1': { ab: { delayMs: 150 }, ba: { delayMs: 150 } } } };

    expect(await steerVmOverlay(b.inventory, slower, REFERENCE_SETTINGS, execOf)).toEqual(['alpha-gamma']);
    const f = (peer: string) => `'/etc/tinc/fb/hosts/${peer}'`;
    const rewrite = (peer: string, first: string, second: string) =>
      `sh -c { printf '%s\\n' 'Address = ${first}' 'Address = ${second}'; grep -v '^Address = ' ${f(peer)}; } > ${f(peer)}.fb-new && mv ${f(peer)}.fb-new ${f(peer)} && touch -r /etc/tinc/fb/tinc.conf ${f(peer)}`;
    expect(recorder.lines()).toEqual([
      `alpha: ${rewrite('gamma', mesh('gamma', 0), mesh('gamma', 1))}`,
      `gamma: ${rewrite('alpha', mesh('alpha', 0), mesh('alpha', 1))}`,
      `alpha: sh -c ss -Htn state established '( dport = :655 or sport = :655 )'`,
      `alpha: sh -c touch -r /etc/tinc/fb/tinc.conf ${f('beta')} && touch -d "@$(( $(date +%s) + 2 ))" ${f('gamma')} && tincd -n fb -kHUP`,
    ]);
    expect(recorder.calls.every((c) => c.argv[0] === 'sudo' && c.argv[1] === '-n')).toBe(
      b.inventory.nodes[0].exec.transport === 'ssh' && b.inventory.nodes[0].exec.user !== 'root',
    );

    // Nothing reordered, nothing restored: not one command.
    recorder.clear();
    expect(await steerVmOverlay(b.inventory, slower, slower, execOf)).toEqual([]);
    expect(recorder.calls).toEqual([]);

    // The fastest link cut while the pair is on it: the files put it last, and tinc is left to notice (no HUP).
    connectedVia = mesh('gamma', 0);
    const cut: NetworkSettings = { ...slower, cut: ['alpha-gamma/0'] };
    expect(await steerVmOverlay(b.inventory, cut, slower, execOf)).toEqual([]);
    expect(recorder.lines().filter((l) => l.includes('kHUP'))).toEqual([]);
    expect(recorder.lines()[0]).toBe(`alpha: ${rewrite('gamma', mesh('gamma', 1), mesh('gamma', 0))}`);
  });
});
