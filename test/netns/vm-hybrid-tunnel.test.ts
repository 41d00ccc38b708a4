// The hybrid stack's donor tunnel for real, on VM-shaped local nodes (infra/vmlocal): two nodes
// stand for the consumer and donor brokers, each given cloud-init's broker packages; the tunnel's
// scripts, rendered by the functions the stack's commands use (render/hybrid-tunnel-scripts.ts)
// from the program's settings, plan, keys and inventory, run through the SSH executor via the
// jump host as `@pulumi/command` sends them (the script on stdin of `sudo sh -s`, the delete step
// as a `sudo sh -c` command line). Then routes and pings across the tunnel, both ways, and the
// delete step. About 10 s; needs the image scripts/setup.sh builds.
import { readFileSync } from 'node:fs';
import { SshExec } from '../../services/exec/transports';
import { listNamespaces } from '../../infra/local/namespaces';
import { plannedNode } from '../../infra/pulumi/plan';
import { HYBRID_NODES } from '../../infra/pulumi/plan-hybrid';
import { PACKAGES } from '../../infra/pulumi/render/cloud-init';
import { ROOT_SCRIPT_COMMAND, rootCommandLine, rootScriptInput } from '../../infra/pulumi/render/files-script';
import {
  authoriseScript,
  consumerPeerOfDonor,
  consumerTunnelScript,
  deauthoriseCommand,
  donorTunnelScript,
  tunnelConfig,
} from '../../infra/pulumi/render/hybrid-tunnel-scripts';
import { VM_PREFIX } from '../../infra/vmlocal/addresses';
import { applyCloudInitPackages } from '../../infra/vmlocal/cloud-init';
import { operatorSshPath, vmFleetDown, vmFleetPaths, vmFleetUp, type VmFleet } from '../../infra/vmlocal/fleet';
import { VM_BROKERS, prepareVmBroker, vmHybridBrokers, type VmHybridBrokers } from '../../infra/vmlocal/hybrid-brokers';
import { isAlive } from '../../platform/pid';
import { allDone, waitFor } from '../../platform/wait';
import { pingReplies } from '../support/ping';

jest.setTimeout(120_000);

const { consumer, donor } = HYBRID_NODES;
/** The consumer's shared port (a locally administered MAC, as the cloud's port has its own). */
const SHARED_PORT_MAC = '02:fb:00:00:00:0a';
/** A handshake the donor refused is tried again after 5 s (WireGuard's REKEY_TIMEOUT). */
const HANDSHAKE_WAIT_MS = 15_000;

const pathBefore = process.env.PATH;
let fleet: VmFleet;
let brokers: VmHybridBrokers;

beforeAll(async () => {
  process.env.PATH = `${operatorSshPath()}:${pathBefore ?? ''}`;
  fleet = await vmFleetUp(VM_BROKERS, { packages: PACKAGES.broker });
  await allDone(fleet.nodes.map((n) => applyCloudInitPackages(new SshExec(n.exec), fleet.userData)));
  brokers = vmHybridBrokers('vm-hybrid', fleet);
  await prepareVmBroker(exec(consumer), address(consumer), SHARED_PORT_MAC);
  await prepareVmBroker(exec(donor), address(donor));
});

afterAll(async () => {
  await vmFleetDown();
  process.env.PATH = pathBefore;
});

function exec(node: string): SshExec {
  const found = fleet.nodes.find((n) => n.name === node);
  if (!found) throw new Error(`no VM-shaped node ${node}`);
  return new SshExec(found.exec);
}
/** A broker's address on its own cloud's network. */
const address = (node: string) => plannedNode(brokers.plan, node).privateAddress;
const tunnelAddress = (node: string) => plannedNode(brokers.plan, node).wireguard[0].address;
const config = (node: string, without: string[]) =>
  tunnelConfig(brokers.inventory, brokers.plan.routedPrefixes, node, brokers.keys[node].privateKey, without);
const consumerPeer = () => consumerPeerOfDonor(brokers.inventory, brokers.plan.routedPrefixes);

/** As a remote command's create step: the script on standard input of ROOT_SCRIPT_COMMAND. */
const runScript = (node: string, script: string) => exec(node).run(ROOT_SCRIPT_COMMAND.split(' '), { input: rootScriptInput(script) });
const root = async (node: string, ...argv: string[]) => (await exec(node).run(['sudo', '-n', ...argv])).stdout;
/** Destinations routed into the tunnel, as CIDRs (`ip` prints a host route without its /32). */
async function tunnelRoutes(node: string): Promise<string[]> {
  const lines = (await root(node, 'ip', '-o', 'route', 'show', 'dev', 'wg0')).trim().split('\n').filter(Boolean);
  return lines
    .map((l) => l.split(' ')[0])
    .map((d) => (d.includes('/') ? d : `${d}/32`))
    .sort();
}
/** The consumer connects (it has the endpoint); its first ping may wait for its next handshake. */
const consumerConnects = () =>
  waitFor(async () => (await pingReplies(exec(consumer), tunnelAddress(donor), 1)) === 1, {
    what: `a ping from ${consumer} to ${donor} across the tunnel`,
    timeoutMs: HANDSHAKE_WAIT_MS,
  });
const peers = async (node: string) => (await root(node, 'wg', 'show', 'wg0', 'peers')).trim().split('\n').filter(Boolean);

test("the donor's first script starts its tunnel with no peer, listening on the stack's port", async () => {
  await runScript(donor, donorTunnelScript(config(donor, [consumer])));
  expect(await peers(donor)).toEqual([]);
  expect((await root(donor, 'wg', 'show', 'wg0', 'listen-port')).trim()).toBe(String(brokers.settings.wireguardPort));
  expect(await tunnelRoutes(donor)).toEqual([]);
});

test("the consumer's script, through the jump host, brings up its shared port and routes the donor's side into the tunnel", async () => {
  await runScript(consumer, consumerTunnelScript(config(consumer, []), SHARED_PORT_MAC));
  expect(await root(consumer, 'ip', '-o', 'link', 'show', 'eth1')).toMatch(/state UP|<[^>]*\bUP\b/);
  const { azurePrefixes } = brokers.plan;
  expect(await tunnelRoutes(consumer)).toEqual([`${tunnelAddress(donor)}/32`, ...azurePrefixes].sort());
  // The donor has not authorised it yet: it cannot connect.
  expect(await pingReplies(exec(consumer), tunnelAddress(donor), 1)).toBe(0);
});

test("authorising the consumer routes its side into the donor's tunnel; pings cross it both ways", async () => {
  await runScript(donor, authoriseScript(consumerPeer(), config(donor, [])));
  expect(await tunnelRoutes(donor)).toEqual([`${tunnelAddress(consumer)}/32`, ...brokers.plan.openstackPrefixes].sort());
  expect(await peers(donor)).toEqual([consumerPeer().publicKey]);
  await consumerConnects();
  expect(await pingReplies(exec(consumer), address(donor))).toBe(3);
  expect(await pingReplies(exec(donor), tunnelAddress(consumer))).toBe(3);
  expect(await pingReplies(exec(donor), address(consumer))).toBe(3);
  // The config file it rewrote keeps the peer and its routes over a restart of the tunnel.
  await root(donor, 'systemctl', 'restart', 'wg-quick@wg0');
  expect(await peers(donor)).toEqual([consumerPeer().publicKey]);
  expect(await tunnelRoutes(donor)).toEqual([`${tunnelAddress(consumer)}/32`, ...brokers.plan.openstackPrefixes].sort());
});

test('a rotated consumer key: the authorisation is replaced as the stack orders it, and the tunnel carries both ways again', async () => {
  const before = brokers;
  const oldPeer = consumerPeer();
  brokers = vmHybridBrokers('vm-hybrid', fleet, before, [consumer]);
  await runScript(consumer, consumerTunnelScript(config(consumer, []), SHARED_PORT_MAC));
  expect(await pingReplies(exec(consumer), tunnelAddress(donor), 1)).toBe(0);
  // The stack registers the authorisation deleteBeforeReplace (test/infra/hybrid.test.ts): in
  // Pulumi's default order, the old one's delete step, run last, took the new one's routes away.
  await exec(donor).run(['sh', '-c', rootCommandLine(deauthoriseCommand(oldPeer))]);
  await runScript(donor, authoriseScript(consumerPeer(), config(donor, [])));
  expect(await peers(donor)).toEqual([consumerPeer().publicKey]);
  expect(await tunnelRoutes(donor)).toEqual([`${tunnelAddress(consumer)}/32`, ...brokers.plan.openstackPrefixes].sort());
  await consumerConnects();
  expect(await pingReplies(exec(donor), tunnelAddress(consumer))).toBe(3);
});

test('the delete step takes the peer and its routes away, in the running tunnel and its config file', async () => {
  await exec(donor).run(['sh', '-c', rootCommandLine(deauthoriseCommand(consumerPeer()))]);
  expect(await peers(donor)).toEqual([]);
  expect(await tunnelRoutes(donor)).toEqual([]);
  expect(await root(donor, 'cat', '/etc/wireguard/wg0.conf')).not.toContain('[Peer]');
  expect(await pingReplies(exec(donor), tunnelAddress(consumer), 1)).toBe(0);
});

test('down leaves no namespace or process of the VM-shaped fleet', async () => {
  const state = JSON.parse(readFileSync(vmFleetPaths.state(), 'utf8')) as { nodes: { process: { pid: number } }[] };
  await vmFleetDown();
  expect((await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX))).toEqual([]);
  for (const node of state.nodes) expect(isAlive(node.process.pid)).toBe(false);
});
