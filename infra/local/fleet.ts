/**
 * The local emulated fleet's life cycle: `up` builds it from a topology (namespaces, WAN emulator,
 * WireGuard mesh, tinc overlay, reference shaping), `down` removes everything it made. An `up`
 * that fails half-way removes what it made before reporting; a fleet left by a crash is found
 * (state file, marked namespaces) and removed by the next `up` or `down`.
 */
import { accessSync, constants, existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { loadTopology } from '../../core/load-topology';
import { NetnsExec } from '../../services/exec/transports';
import { ping } from '../../services/probes/ping';
import { median } from '../../services/probes/quantile';
import { steerOverlay } from './overlay-paths';
import { FleetNetwork } from '../shaping/fleet-network';
import { startWanEmulator } from './emulator';
import { EMULATOR_BINARY, EmulatorClient } from './emulator-client';
import { localInventory } from './inventory';
import { networkCpus } from './network-cpus';
import { withFleetLock } from './lock';
import { checkNamespacesFree, createNamespaces, deleteNamespaces, markedNamespaces, plannedNamespaces } from './namespaces';
import { NAMESPACE_PREFIX, NETNS_TAG, planFleet, planNode, type FleetPlan } from './plan';
import { stopPids } from '../../platform/pid';
import { allDone, waitFor } from '../../platform/wait';
import { plausibleOverlayCost } from './plausible-overlay-cost';
import { daemonRuns } from './processes';
import { writePrivate } from '../../platform/files';
import { createFleetDir, fleetPaths, readState, removeFleetDir, writeState, type FleetProcess, type FleetState } from './state';
import { generateTincKey, startTincOverlay, waitForTincMesh } from './tinc';
import { addStaticRoutes } from './static-routes';
import { createVxlanInterface } from './vxlan';
import { describeStack, type Stack, type StackChoice } from '../../core/stack';
import { configureWireguard, generateWireguardKey, startWireguard, uapiSocket, wireguardImplementation, WIREGUARD_PROGRAM } from './wireguard';

export type Progress = (line: string) => void;

const REQUIRED_PROGRAMS = ['ip', 'taskset', 'ping', 'iperf3', 'ss'];
/** What each part of a stack runs on top of those. */
const STACK_PROGRAMS = { wireguard: ['wg', WIREGUARD_PROGRAM], vxlan: ['bridge', 'ethtool'], tinc: ['tincd'] };
/**
 * One-way delay given to a few links while measuring what the overlay adds to it. The overlay's
 * cost grows a little with the delay (its daemons sleep longer between packets): a median of
 * ~0.65 ms RTT at 0-0.1 ms, 0.7-0.8 at 1-2 ms, 0.8-1.1 at 5-10 ms here. Measured at 5 ms it
 * over-corrected the shortest links by 0.2-0.5 ms (a 1 ms pair measured 0.46 ms in one fleet of
 * ten); at 1 ms the error splits both ways and stays within max(0.5 ms, 2 %) (`npm run bench:fleets`).
 */
const CALIBRATION_DELAY_MS = 1;
/** Links, pings per link and seconds between pings of that measurement: ~4 s in all. */
const CALIBRATION_LINKS = 4;
const CALIBRATION_PINGS = 25;
const CALIBRATION_INTERVAL_S = 0.04;
/**
 * Pings per link sent first and not counted: the first packets between two tinc daemons wait for
 * their key exchange and route learning, which read 0.2-0.3 ms too much on a 9-node fleet (every
 * link then measured that much short).
 */
const CALIBRATION_WARM_UP_PINGS = 5;
/** How long the overlay may take to connect every node after the last tincd started. */
const OVERLAY_TIMEOUT_MS = 30_000;

export interface UpResult {
  name: string;
  nodes: number;
  links: number;
  seconds: number;
  baseRttMs: number;
}

/**
 * Builds the fleet a topology (built-in name or file) describes, on the topology's network stack
 * or the one `options.stack` chooses over it. Bad input fails before anything starts.
 */
export async function fleetUp(topologyArg: string, progress: Progress = () => undefined, options: { stack?: StackChoice } = {}): Promise<UpResult> {
  const topology = loadTopology(topologyArg);
  const plan = planFleet(topology, options.stack);
  checkPrerequisites(plan.stack);
  const cpus = networkCpus(plan.nodes.length); // a bad FRAGBENCH_NETWORK_CPUS fails here, before anything starts
  return withFleetLock('up', async () => {
    const existing = readState();
    if (existing?.status === 'up' && isRunning(existing)) {
      throw new Error(`the local fleet "${existing.plan.name}" is up; run \`fragbench fleet down\` first (one local fleet at a time)`);
    }
    if (existing || (await markedNamespaces()).length > 0) {
      progress('found a fleet left behind (crashed or stopped); removing it');
      await tearDown(progress);
    }
    await checkNamespacesFree(plan);
    const started = Date.now();
    createFleetDir();
    const state: FleetState = {
      status: 'building',
      builderPid: process.pid,
      createdAt: started,
      topologyFile: topologyArg,
      plan,
      namespaces: plannedNamespaces(plan),
      processes: [],
      timings: {},
      ...(cpus === undefined ? {} : { networkCpus: cpus }),
    };
    writeState(state);
    try {
      await build(state, progress);
    } catch (err) {
      progress(`up failed (${(err as Error).message.split('\n')[0]}); removing what was made`);
      await tearDown(progress).catch((cleanup: Error) => {
        throw new Error(`${(err as Error).message}\nand removing the half-built fleet failed too: ${cleanup.message}; run \`fragbench fleet down\``);
      });
      throw err;
    }
    const seconds = (Date.now() - started) / 1000;
    progress(`fleet ${plan.name} is up: ${plan.nodes.length} nodes, ${plan.links.length} links in ${seconds.toFixed(1)} s`);
    return { name: plan.name, nodes: plan.nodes.length, links: plan.links.length, seconds, baseRttMs: state.baseRttMs ?? 0 };
  });
}

async function build(state: FleetState, progress: Progress): Promise<void> {
  const { plan } = state;
  const began = Date.now();
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const result = await work();
    state.timings![name] = Date.now() - t0;
    writeState(state);
    progress(`[${((Date.now() - began) / 1000).toFixed(1).padStart(5)} s] ${name}`);
    return result;
  };
  const record = (p: FleetProcess) => {
    state.processes.push(p);
    writeState(state);
  };
  const eachNode = <T>(work: (name: string) => Promise<T>) => allDone(plan.nodes.map((n) => work(n.name)));

  const { stack } = plan;
  const encrypted = stack.encryption === 'wireguard';
  const withTinc = stack.overlay === 'tinc';
  const none = () => Promise.resolve([] as string[]);
  const [wireguardKeys, tincKeys] = await step(`${state.namespaces.length} namespaces, veths and keys`, async () => {
    const [, wg, tinc] = await allDone<string[]>([
      createNamespaces(plan).then(none),
      encrypted ? eachNode(generateWireguardKey) : none(),
      withTinc ? eachNode(generateTincKey) : none(),
    ]);
    return [keyMap(plan, wg), keyMap(plan, tinc)];
  });
  await step(`WAN emulator relaying ${plan.links.length} links`, () => startWanEmulator(plan, state.networkCpus, record));
  const interfaces = plan.nodes.flatMap((node) => node.interfaces.map((iface) => ({ node, iface })));
  await step(`${interfaces.length} ${encrypted ? 'WireGuard' : 'VXLAN'} interfaces`, () =>
    allDone(
      interfaces.map(async ({ node, iface }) => {
        if (!encrypted) return createVxlanInterface(plan, node, iface);
        await startWireguard(node, iface, state.networkCpus, record);
        await configureWireguard(plan, node, iface, wireguardKeys);
      }),
    ),
  );
  if (withTinc) {
    await step(`${plan.nodes.length} tinc daemons`, () => startTincOverlay(plan, tincKeys, state.networkCpus, record));
    await step('overlay connected', () => waitForTincMesh(plan, OVERLAY_TIMEOUT_MS));
  } else {
    await step("static routes over each pair's fastest link", () => eachNode((name) => addStaticRoutes(plan, planNode(plan, name))));
  }
  await step('every node reaches the first and back', () => waitForReach(plan));
  state.baseRttMs = await step(`${describeStack(stack)}: cost measured`, () => plausibleOverlayCost(() => measureBaseRtt(plan), progress));
  writeState(state);
  const inventory = localInventory(plan, wireguardKeys, encrypted ? await wireguardImplementation() : undefined, state.networkCpus);
  writePrivate(fleetPaths.inventory, JSON.stringify(inventory, null, 2), 0o644);
  const settings = await step('reference latency and bandwidth applied', () => new FleetNetwork(inventory).reset());
  state.status = 'up';
  writeState(state);
  // tinc's first dial to a peer of several links may land on a slower one (seen on 2026-11-26).
  if (withTinc) await step('each pair on its fastest link', () => steerOverlay(settings, settings, { everyPair: true }));
}

function keyMap(plan: FleetPlan, keys: string[]): Map<string, string> {
  return new Map(plan.nodes.map((n, i) => [n.name, keys[i]]));
}

/** Every node reaches the first node over the overlay addresses and back: the data path works. */
async function waitForReach(plan: FleetPlan): Promise<void> {
  const [first, ...others] = plan.nodes;
  const reach = (from: string, to: string) =>
    waitFor(async () => (await ping(new NetnsExec(planNode(plan, from).namespace), planNode(plan, to).overlayAddress, 1)).avgMs ?? undefined, {
      what: `overlay ${from} -> ${to}`,
      timeoutMs: OVERLAY_TIMEOUT_MS,
    });
  await allDone(others.flatMap((n) => [reach(first.name, n.name), reach(n.name, first.name)]));
}

/**
 * What the overlay adds to an emulated link's RTT: WireGuard, tinc, and the relay's own cost of
 * holding a packet (timer wake-ups), measured across a few direct links given a known delay; the
 * emulator subtracts it so that ping reports the reference. Measured once tinc has finished
 * connecting (its start-up work would inflate it), one link at a time (pings in flight on several
 * links at once queue behind each other in the daemons, which all share one CPU), and the median
 * of them all, so that a few slow replies do not move it. The earlier way (four links at once, 40
 * pings each) read up to 2 ms too much on a busy host, and every link of that fleet stayed that
 * much short (a 7 ms pair measured 5.05 ms).
 */
async function measureBaseRtt(plan: FleetPlan): Promise<number> {
  const sample = plan.links.slice(0, CALIBRATION_LINKS);
  await new EmulatorClient(fleetPaths.emulatorSocket).setMany(sample.map((link) => ({ link: link.id, dir: 'both', delayMs: CALIBRATION_DELAY_MS })));
  const all: number[] = [];
  for (const link of sample) {
    const from = new NetnsExec(planNode(plan, link.a).namespace);
    const to = planNode(plan, link.b).overlayAddress;
    await ping(from, to, CALIBRATION_WARM_UP_PINGS, CALIBRATION_INTERVAL_S);
    const result = await ping(from, to, CALIBRATION_PINGS, CALIBRATION_INTERVAL_S);
    all.push(...result.samplesMs);
  }
  if (all.length === 0) throw new Error('no reply over the overlay while measuring its cost');
  return Math.max(0, median(all) - 2 * CALIBRATION_DELAY_MS);
}

export function isRunning(state: FleetState): boolean {
  return state.processes.length > 0 && state.processes.every(daemonRuns);
}

/** Removes the local fleet (idempotent): processes by PID, namespaces, sockets, state directory. */
export async function fleetDown(progress: Progress = () => undefined): Promise<{ removed: boolean; seconds: number }> {
  const t0 = Date.now();
  const removed = await withFleetLock('down', () => tearDown(progress));
  return { removed, seconds: (Date.now() - t0) / 1000 };
}

async function tearDown(progress: Progress): Promise<boolean> {
  const state = readState();
  const namespaces = [...new Set([...(state?.namespaces ?? []), ...(await markedNamespaces())])];
  if (!state && namespaces.length === 0) {
    removeFleetDir();
    return false;
  }
  const ours = (state?.processes ?? []).filter(daemonRuns);
  await stopPids(ours.map((p) => p.pid));
  progress(`stopped ${ours.length} processes`);
  await deleteNamespaces(namespaces);
  progress(`deleted ${namespaces.length} namespaces`);
  removeStaleSockets(namespaces);
  removeFleetDir();
  return true;
}

/** UAPI sockets of killed WireGuard daemons: `fb<tag><node>-<type>.sock` for the fleet's nodes. */
function removeStaleSockets(namespaces: string[]): void {
  const dir = '/var/run/wireguard';
  if (!existsSync(dir)) return;
  const nodes = new Set(namespaces.map((ns) => ns.slice(NAMESPACE_PREFIX.length)));
  for (const file of readdirSync(dir)) {
    const match = new RegExp(`^fb${NETNS_TAG}([a-z][a-z0-9]*)-\\d+\\.sock$`).exec(file);
    const path = uapiSocket(file.replace(/\.sock$/, ''));
    if (match && nodes.has(match[1]) && lstatSync(path).isSocket()) rmSync(path, { force: true });
  }
}

function checkPrerequisites(stack: Stack): void {
  if (process.getuid?.() !== 0) throw new Error('the local fleet needs root (network namespaces); run as root');
  const path = (process.env.PATH ?? '').split(delimiter);
  const programs = [
    ...REQUIRED_PROGRAMS,
    ...STACK_PROGRAMS[stack.encryption === 'wireguard' ? 'wireguard' : 'vxlan'],
    ...(stack.overlay === 'tinc' ? STACK_PROGRAMS.tinc : []),
  ];
  const missing = programs.filter((p) => !path.some((dir) => isExecutable(join(dir, p))));
  if (missing.length > 0) throw new Error(`missing program(s): ${missing.join(', ')}; run \`make setup\` (scripts/setup.sh)`);
  if (!isExecutable(EMULATOR_BINARY)) throw new Error(`the WAN emulator is not built (${EMULATOR_BINARY}); run \`make setup\``);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
