/** `fleet status`: what the local fleet is, and how it is right now (processes, shaping, cuts). */
import { EmulatorClient, type DirectionStats, type DropCounts, type LinkStats } from './emulator-client';
import { listNamespaces, markedNamespaces } from './namespaces';
import { daemonRuns } from './processes';
import { fleetPaths, readState } from './state';
import { relayBytesPerPayloadByte } from './overlay-cost';
import { isCutAnyWay, type NetworkSettings } from '../../core/network';
import { FleetNetwork } from '../shaping/fleet-network';
import { formatPath, overlayPaths, type OverlayPath } from './overlay-paths';
import { loadInventory } from '../../services/inventory/inventory-loader';

interface ProcessStatus {
  kind: string;
  owner: string;
  pid: number;
  alive: boolean;
}

interface DirectionStatus {
  delayMs: number;
  rateMbps: number | null;
  lossPercent: number;
  jitterMs: number;
  packets: number;
  drops: number;
  cut: boolean;
}

export interface FleetStatus {
  up: boolean;
  name?: string;
  topology?: string;
  phase?: 'building' | 'up';
  createdAt?: number;
  /** RTT the overlay itself adds to a link (measured at `up`), subtracted from every link's delay. */
  baseRttMs?: number;
  settings?: NetworkSettings;
  nodes: { name: string; site: string; role: string; namespace: string; namespaceExists: boolean; overlayAddress: string }[];
  links: {
    id: string;
    latencyMs: number;
    bandwidthMbps: number;
    estimated: boolean;
    cut: boolean;
    /** What ping over the link should report now: emulated delay both ways plus the overlay's cost. */
    expectedRttMs?: number;
    /** What iperf3 over the link should report now (a->b): the relay's cap less the overlay's bytes. */
    expectedMbps?: number | null;
    ab?: DirectionStatus;
    ba?: DirectionStatus;
  }[];
  processes: ProcessStatus[];
  /** The way each pair's packets take on the overlay now (absent while the fleet is not up). */
  paths?: OverlayPath[];
  emulatorError?: string;
  /** Namespaces carrying the fleet marker that the state does not know (left by a crash). */
  strayNamespaces: string[];
}

export async function fleetStatus(): Promise<FleetStatus> {
  const state = readState();
  const marked = await markedNamespaces();
  if (!state) return { up: false, nodes: [], links: [], processes: [], strayNamespaces: marked };
  const existing = new Set(await listNamespaces());
  const processes = state.processes.map((p) => ({ kind: p.kind, owner: p.owner, pid: p.pid, alive: daemonRuns(p) }));
  let stats = new Map<string, LinkStats>();
  let emulatorError: string | undefined;
  try {
    stats = new Map((await new EmulatorClient(fleetPaths.emulatorSocket, 2000).stats()).map((s) => [s.id, s]));
  } catch (err) {
    emulatorError = (err as Error).message;
  }
  const settings = state.status === 'up' ? new FleetNetwork(await loadInventory({ kind: 'local' })).settings() : undefined;
  const base = state.baseRttMs ?? 0;
  // A tincd that is down answers no node dump: its pairs show as unreachable; a namespace gone, no paths.
  const paths = state.status === 'up' ? await overlayPaths(state.plan).catch(() => undefined) : undefined;
  return {
    up: state.status === 'up' && processes.every((p) => p.alive),
    name: state.plan.name,
    topology: state.topologyFile,
    phase: state.status,
    createdAt: state.createdAt,
    baseRttMs: state.baseRttMs,
    settings,
    nodes: state.plan.nodes.map((n) => ({
      name: n.name,
      site: n.site,
      role: n.role,
      namespace: n.namespace,
      namespaceExists: existing.has(n.namespace),
      overlayAddress: n.overlayAddress,
    })),
    links: state.plan.links.map((l) => {
      const s = stats.get(l.id);
      return {
        id: l.id,
        latencyMs: l.latencyMs,
        bandwidthMbps: l.bandwidthMbps,
        estimated: l.estimated ?? false,
        cut: s?.cut ?? (settings ? isCutAnyWay(settings, l.id) : false),
        ...(s
          ? {
              expectedRttMs: s.ab.delayMs + s.ba.delayMs + base,
              expectedMbps: s.ab.rateMbps ? s.ab.rateMbps / relayBytesPerPayloadByte(state.plan.stack) : null,
              ab: direction(s.ab),
              ba: direction(s.ba),
            }
          : {}),
      };
    }),
    processes,
    ...(paths ? { paths } : {}),
    emulatorError,
    strayNamespaces: marked.filter((ns) => !state.namespaces.includes(ns)),
  };
}

function direction(d: DirectionStats): DirectionStatus {
  const drops = Object.values(d.drops as Record<keyof DropCounts, number>).reduce((sum, n) => sum + n, 0);
  return {
    delayMs: d.delayMs,
    rateMbps: d.rateMbps,
    lossPercent: d.lossPercent,
    jitterMs: d.jitterMs ?? 0,
    packets: d.packets,
    drops,
    cut: d.cut ?? false,
  };
}

const fixed = (x: number | undefined | null, digits = 1) => (x === undefined || x === null ? '-' : x.toFixed(digits));

export function formatStatus(status: FleetStatus): string {
  if (!status.name) {
    const stray =
      status.strayNamespaces.length > 0 ? ` (namespaces left by a crash: ${status.strayNamespaces.join(', ')}; \`fleet down\` removes them)` : '';
    return `no local fleet${stray}`;
  }
  const lines: string[] = [];
  const dead = status.processes.filter((p) => !p.alive);
  lines.push(
    `fleet ${status.name} (${status.topology}): ${status.up ? 'up' : status.phase === 'building' ? 'being built (or its build crashed)' : 'DEGRADED'}, ` +
      `${status.processes.length - dead.length}/${status.processes.length} processes alive` +
      (dead.length ? ` (dead: ${dead.map((p) => `${p.kind} ${p.owner}`).join(', ')})` : ''),
  );
  if (status.settings) {
    const oneWay = (status.settings.oneWayCuts ?? []).map((c) => `${c.link} (${c.direction === 'ab' ? 'a->b' : 'b->a'} only)`);
    const cuts = [...status.settings.cut, ...oneWay];
    const cut = cuts.length ? cuts.join(', ') : 'none';
    lines.push(
      `shaping: latency x${status.settings.latencyScale}, bandwidth x${status.settings.bandwidthScale}; cut: ${cut}; overlay RTT cost ${fixed(status.baseRttMs, 2)} ms`,
    );
  }
  if (status.emulatorError) lines.push(`emulator: ${status.emulatorError}`);
  lines.push('', 'node        site        role    namespace      overlay');
  for (const n of status.nodes) {
    lines.push(
      `${n.name.padEnd(11)} ${n.site.padEnd(11)} ${n.role.padEnd(7)} ${(n.namespaceExists ? n.namespace : `${n.namespace}(gone)`).padEnd(14)} ${n.overlayAddress}`,
    );
  }
  lines.push('', 'link                   ref RTT  ref Mbit/s  now RTT  now Mbit/s  packets ab/ba  drops  cut');
  for (const l of status.links) {
    const packets = l.ab && l.ba ? `${l.ab.packets}/${l.ba.packets}` : '-';
    const drops = l.ab && l.ba ? String(l.ab.drops + l.ba.drops) : '-';
    lines.push(
      `${l.id.padEnd(22)} ${fixed(l.latencyMs).padStart(7)}${l.estimated ? '*' : ' '} ${fixed(l.bandwidthMbps).padStart(10)}  ${fixed(l.expectedRttMs).padStart(7)}  ${fixed(l.expectedMbps).padStart(10)}  ${packets.padStart(13)}  ${drops.padStart(5)}  ${cutMark(l)}`,
    );
  }
  if (status.links.some((l) => l.estimated)) lines.push('* estimated reference value');
  if (status.paths) {
    lines.push('', 'pair                   overlay path now (node =link=> node)');
    for (const p of status.paths) lines.push(`${`${p.from}-${p.to}`.padEnd(22)} ${formatPath(p)}`);
  }
  if (status.strayNamespaces.length) lines.push(`namespaces left by a crash: ${status.strayNamespaces.join(', ')}`);
  return lines.join('\n');
}

/** `CUT`, or the one direction cut: `CUT a->b`. */
function cutMark(link: { cut: boolean; ab?: { cut?: boolean }; ba?: { cut?: boolean } }): string {
  if (!link.cut) return '';
  if (link.ab?.cut && !link.ba?.cut) return 'CUT a->b';
  if (link.ba?.cut && !link.ab?.cut) return 'CUT b->a';
  return 'CUT';
}
