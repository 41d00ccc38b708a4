/**
 * Network namespaces of the local fleet: one per node and the WAN namespace, joined by
 * point-to-point veths. The WAN namespace does not forward, so a node reaches another only through
 * the emulator. Every namespace carries a marker (an alias on its loopback) so that `down` and a
 * later `up` recognise the ones this project created even when the state file is gone.
 */
import { netnsArgv, runHost } from '../../platform/command';
import { NAMESPACE_PREFIX, NETNS_TAG, NODE_UPLINK, WAN_NAMESPACE, type FleetPlan } from './plan';
import { isAlive, stopPids } from '../../platform/pid';
import { allDone } from '../../platform/wait';

/** On each namespace's loopback (ifalias): a tagged fleet's marker carries its tag (see plan.ts). */
export const NAMESPACE_MARKER = NETNS_TAG ? `fragbench-fleet-${NETNS_TAG}` : 'fragbench-fleet';

/** Runs `ip` commands in one process (inside `namespace` when given); stops at the first failure. */
export async function ipBatch(commands: string[], namespace?: string, force = false): Promise<void> {
  if (commands.length === 0) return;
  const argv = ['ip', ...(namespace ? ['-n', namespace] : []), ...(force ? ['-force'] : []), '-batch', '-'];
  await runHost(argv, { input: commands.join('\n') + '\n', allowFailure: force }, namespace ?? 'host');
}

export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await runHost(['ip', 'netns', 'list']);
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0])
    .filter(Boolean);
}

async function isMarked(namespace: string, marker: string): Promise<boolean> {
  const { code, stdout } = await runHost(['ip', '-n', namespace, '-j', 'link', 'show', 'lo'], { allowFailure: true });
  if (code !== 0) return false;
  const [lo] = JSON.parse(stdout) as { ifalias?: string }[];
  return lo?.ifalias === marker;
}

/**
 * Namespaces with the fleet prefix and the marker: what this project left on the host. The
 * VM-shaped fleet (infra/vmlocal) passes its own prefix and marker.
 */
export async function markedNamespaces(prefix = NAMESPACE_PREFIX, marker = NAMESPACE_MARKER): Promise<string[]> {
  const candidates = (await listNamespaces()).filter((ns) => ns.startsWith(prefix));
  const marked = await Promise.all(candidates.map(async (ns) => ((await isMarked(ns, marker)) ? ns : undefined)));
  return marked.filter((ns): ns is string => ns !== undefined);
}

export function plannedNamespaces(plan: FleetPlan): string[] {
  return [WAN_NAMESPACE, ...plan.nodes.map((n) => n.namespace)];
}

/** Fails, before anything is created, when a namespace the plan needs already exists. */
export async function checkNamespacesFree(plan: FleetPlan): Promise<void> {
  const existing = new Set(await listNamespaces());
  const taken = plannedNamespaces(plan).filter((ns) => existing.has(ns));
  if (taken.length > 0) {
    throw new Error(
      `namespace(s) ${taken.join(', ')} already exist and were not made by a fragbench fleet; ` +
        'rename the node(s) in the topology or remove those namespaces',
    );
  }
}

export async function createNamespaces(plan: FleetPlan): Promise<void> {
  const hostCommands = plannedNamespaces(plan).map((ns) => `netns add ${ns}`);
  for (const node of plan.nodes) {
    hostCommands.push(`link add ${NODE_UPLINK} netns ${node.namespace} type veth peer name ${node.wanInterface} netns ${WAN_NAMESPACE}`);
  }
  await ipBatch(hostCommands);
  const marker = [`link set lo alias ${NAMESPACE_MARKER}`, 'link set lo up'];
  const wanCommands = [...marker];
  for (const node of plan.nodes) {
    wanCommands.push(`addr add ${node.wanAddress}/24 dev ${node.wanInterface}`, `link set ${node.wanInterface} up`);
  }
  await allDone<unknown>([
    ipBatch(wanCommands, WAN_NAMESPACE),
    disableForwarding(WAN_NAMESPACE),
    ...plan.nodes.map((node) =>
      ipBatch([...marker, `addr add ${node.underlayAddress}/24 dev ${NODE_UPLINK}`, `link set ${NODE_UPLINK} up`], node.namespace),
    ),
  ]);
}

/** The emulator relays datagrams itself; the kernel of its namespace must never route one node to another. */
export function disableForwarding(namespace: string): Promise<unknown> {
  return runHost(netnsArgv(namespace, ['sysctl', '-qw', 'net.ipv4.ip_forward=0']));
}

/** PIDs of every process running inside a namespace. */
async function namespacePids(namespace: string): Promise<number[]> {
  const { stdout } = await runHost(['ip', 'netns', 'pids', namespace], { allowFailure: true });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid && isAlive(pid));
}

/**
 * Stops whatever still runs inside the namespaces (e.g. a database started in a node), then
 * deletes them. Namespaces that do not exist are skipped.
 */
export async function deleteNamespaces(namespaces: string[]): Promise<void> {
  const existing = new Set(await listNamespaces());
  const present = namespaces.filter((ns) => existing.has(ns));
  const pids = (await Promise.all(present.map(namespacePids))).flat();
  await stopPids(pids);
  await ipBatch(
    present.map((ns) => `netns del ${ns}`),
    undefined,
    true,
  );
}
