// The fragmented stack's VM-side steps for real, on VM-shaped local nodes (infra/vmlocal): the
// settings, plan, keys and inventory of the Pulumi program, cloud-init's packages installed by
// apt from the local repository, each VM's mesh script (WireGuard by wg-quick, tinc) run through
// the SSH executor via the jump host, then the tc back end and the Redis install on those VMs.
// About 10 s for the fleet, installs and mesh; needs the image scripts/setup.sh builds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { findNode, type Inventory, type InventoryLink, type InventoryNode } from '../../core/inventory';
import type { LinkConditions } from '../../core/link-conditions';
import { validateInventory } from '../../core/validate-inventory';
import { TcShaper } from '../../infra/shaping/tc-shaper';
import { listNamespaces } from '../../infra/local/namespaces';
import { VM_PREFIX } from '../../infra/vmlocal/addresses';
import { operatorSshPath, vmFleetDown } from '../../infra/vmlocal/fleet';
import { NO_NETEM, vmStackUp, type VmStack } from '../../infra/vmlocal/stack';
import { RedisClusterAdapter } from '../../services/databases/redis/redis-cluster';
import { SshExec } from '../../services/exec/transports';
import { overlayRoute } from '../../operations/network/network-operations';
import { pingReplies } from '../support/ping';
import { TINC_INTERFACE } from '../../infra/pulumi/render/tinc';
import { ipv6Addresses, multicastReceived } from '../support/overlay-multicast';
import { waitFor } from '../../platform/wait';
import { smallTopology } from '../support/small-topology';

jest.setTimeout(180_000);

const dir = mkdtempSync(join(tmpdir(), 'fb-vm-stack-'));
const pathBefore = process.env.PATH;
let stack: VmStack;
let inventory: Inventory;

beforeAll(async () => {
  const topology = join(dir, 'vm-small.yaml');
  writeFileSync(topology, stringify(smallTopology));
  process.env.PATH = `${operatorSshPath()}:${pathBefore ?? ''}`;
  stack = await vmStackUp('vm-small', topology);
  inventory = stack.inventory;
});

afterAll(async () => {
  await vmFleetDown();
  process.env.PATH = pathBefore;
  rmSync(dir, { recursive: true, force: true });
});

const exec = (node: string) => new SshExec(findNode(inventory, node).exec as Extract<InventoryNode['exec'], { transport: 'ssh' }>);
const wgAddress = (node: string, type: number) => findNode(inventory, node).wireguard.find((w) => w.type === type)?.address as string;
const link = (id: string) => inventory.links.find((l) => l.id === id) as InventoryLink;

/**
 * Replies to 3 pings once the path answers at all: a mesh just configured carries nothing until
 * its first handshake, which a host busy with other tests can take seconds to finish.
 */
async function replies(from: string, address: string): Promise<number> {
  await waitFor(async () => ((await pingReplies(exec(from), address, 1)) > 0 ? true : undefined), {
    what: `${from} to reach ${address}`,
    timeoutMs: 20_000,
    intervalMs: 500,
  }).catch(() => undefined);
  return pingReplies(exec(from), address);
}

test("the inventory is the stack's: valid, every VM reached over SSH through the jump host", () => {
  expect(validateInventory(inventory)).toBe(inventory);
  expect(inventory.shaping).toBe('tc');
  // Asked of the nodes' kernel, which is this host's: no netem.
  expect(inventory.shapingLimits).toEqual([NO_NETEM]);
  for (const node of inventory.nodes) {
    expect(node.exec).toMatchObject({ transport: 'ssh', user: 'ubuntu', jump: { host: stack.fleet.jump.exec.host } });
    expect(node.underlayAddress).toBe(node.privateAddress);
  }
});

test("cloud-init's packages came from the local repository, and the mesh runs as the stack configured it", async () => {
  const alpha = exec('alpha');
  const status = await alpha.run(['dpkg-query', '-W', '-f', '${Package} ${Status}\n', 'wireguard-tools', 'tinc', 'iperf3']);
  expect(status.stdout.trim().split('\n').sort()).toEqual(['iperf3', 'tinc', 'wireguard-tools'].map((p) => `${p} install ok installed`));
  expect((await alpha.run(['apt-cache', 'policy', 'tinc'])).stdout).toContain('http://198.18.240.1:8080 ./ Packages');
  // alpha's files: one interface per connection type it has (0 and 3), tinc hosts of its neighbours.
  expect((await alpha.run(['sudo', '-n', 'ls', '/etc/wireguard'])).stdout.split('\n')).toEqual(['wg0.conf', 'wg3.conf', '']);
  expect((await alpha.run(['sudo', '-n', 'ls', '/etc/tinc/fb/hosts'])).stdout.split('\n')).toEqual(['alpha', 'beta', 'cl', '']);
  for (const type of [0, 3]) expect(await replies('alpha', wgAddress('beta', type))).toBe(3);
  expect(await replies('alpha', findNode(inventory, 'gamma').overlayAddress)).toBe(3);
});

test('the overlay carries unicast only: a multicast ping reaches no other node, and the overlay interface has no IPv6', async () => {
  const others = ['beta', 'gamma', 'cl'].map(exec);
  expect(await multicastReceived(exec('alpha'), others, TINC_INTERFACE)).toEqual([0, 0, 0]);
  for (const node of [exec('alpha'), ...others]) expect(await ipv6Addresses(node, TINC_INTERFACE)).toEqual([]);
});

test("the overlay route probe reads tinc's node dump on the VMs, from the log the unit's drop-in gives tincd", async () => {
  const path = join(dir, 'inventory.json');
  writeFileSync(path, JSON.stringify(inventory));
  const { hops } = await overlayRoute({ fleet: { kind: 'file', path }, from: 'alpha', to: 'gamma' });
  expect(hops[0]).toBe('alpha');
  expect(hops[hops.length - 1]).toBe('gamma');
});

test('the tc back end caps a link with htb and cuts it with a u32 filter into its dropping class; delay is left to the emulator', async () => {
  const shaper = new TcShaper(inventory);
  const ab = link('alpha-beta/0');
  const capped: LinkConditions = {
    ab: { delayMs: 10, bandwidthMbps: 20, lossPercent: 0, jitterMs: 0 },
    ba: { delayMs: 10, bandwidthMbps: 20, lossPercent: 0, jitterMs: 0 },
  };
  await shaper.apply(ab, capped);
  const classes = (await exec('alpha').run(['sudo', '-n', 'tc', 'class', 'show', 'dev', 'wg0'])).stdout;
  expect(classes).toMatch(/class htb 1:1 .*rate 20Mbit ceil 20Mbit/);
  // No netem in this kernel: the delay is reported as not applied, the cap is.
  expect(shaper.unappliedConditions()).toEqual([
    'alpha-beta/0 from alpha: delay 10 ms not applied (no netem in the kernel; rate caps and cuts are)',
    'alpha-beta/0 from beta: delay 10 ms not applied (no netem in the kernel; rate caps and cuts are)',
  ]);
  // The cap holds on the wire: iperf3 (cloud-init's) from alpha to beta over the link's WireGuard.
  await exec('beta').run(['iperf3', '-s', '-1', '-D', '-B', wgAddress('beta', 0)]);
  const { stdout } = await exec('alpha').run(['iperf3', '-c', wgAddress('beta', 0), '-t', '2', '-J']);
  const mbps = (JSON.parse(stdout) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second / 1e6;
  expect(mbps).toBeGreaterThan(10);
  expect(mbps).toBeLessThan(22);

  await shaper.cut(ab);
  expect((await exec('alpha').run(['sudo', '-n', 'tc', 'filter', 'show', 'dev', 'wg0'])).stdout).toMatch(/pref 1 u32 .*flowid 1:ffff/);
  expect(await replies('alpha', wgAddress('beta', 0))).toBe(0);
  expect((await exec('alpha').run(['sudo', '-n', 'tc', '-s', 'qdisc', 'show', 'dev', 'wg0', 'parent', '1:ffff'])).stdout).toMatch(/dropped [1-9]/);
  // Only that link: alpha and beta still talk over their type-3 link.
  expect(await replies('alpha', wgAddress('beta', 3))).toBe(3);
  await shaper.restore(ab);
  expect(await replies('alpha', wgAddress('beta', 0))).toBe(3);
  await shaper.clear();
});

test("Redis installs by the adapter's install step, from the repository standing in for the vendor's; nothing starts on its own", async () => {
  const adapter = new RedisClusterAdapter(inventory);
  await adapter.install(findNode(inventory, 'alpha'));
  const { stdout } = await exec('alpha').run(['sh', '-c', 'redis-server --version; redis-cli --version; ps -e -o comm=']);
  expect(stdout).toMatch(/^Redis server v=7\./m);
  expect(stdout).toMatch(/^redis-cli 7\./m);
  expect(stdout).not.toMatch(/^redis-server$/m);
  // Installed already: the second call is one dpkg-query.
  const started = Date.now();
  await adapter.install(findNode(inventory, 'alpha'));
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('down leaves no namespace of the VM-shaped fleet', async () => {
  await vmFleetDown();
  expect((await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX))).toEqual([]);
});
