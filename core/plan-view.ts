/**
 * What a scenario will do, worked out without touching the host (`fragbench validate`, and the
 * plan `run` prints first): its fleet, each cell's phases with every event at its absolute time
 * and what it changes, the expected duration, and the warnings a user wants before spending the
 * time. Every estimate here is a lower bound from a stated model, not a prediction.
 */
import type { DatabaseName } from './database';
import { eventKindOf } from './event-kinds/registry';
import type { CellPlan, PlannedPhase, RunPlan } from './scenario';
import type { FleetView } from './scenario-plan';

export interface PlannedEventView {
  /** Seconds from the start of the cell's run phase and from the start of the run (setup estimated). */
  phaseAtS: number;
  runAtS: number;
  description: string;
}

export interface PhaseView {
  name: string;
  kind: PlannedPhase['kind'];
  durationS?: number;
  operations?: number;
  warmup?: boolean;
  waitForResizes?: boolean;
  /** Its consistency is checked (ycsb.check): a history per client, every key read back after it. */
  checked?: boolean;
  events: PlannedEventView[];
}

export interface CellView {
  cellId: string;
  coordinates: Record<string, string | number>;
  database: DatabaseName;
  nodes: string[];
  client: string;
  latencyScale?: number;
  bandwidthScale?: number;
  /** Estimated offset of the cell's start from the run's start, s. */
  startsAtS: number;
  phases: PhaseView[];
}

export interface PlanView {
  scenario: string;
  experiment: string;
  timeScale: number;
  fleet: { name: string; clientNode: string; nodes: FleetView['nodes']; links: FleetView['links'] };
  cells: CellView[];
  /** Lower bound: run phases as configured plus the setup model below. */
  expectedDurationS: number;
  warnings: string[];
}

/**
 * Set-up time per cell before its first run phase (cluster start, flush, load), from what this
 * host measured: Redis forms in ~4 s; a 3-node Cassandra in ~55 s (bench:db); loads run at a
 * few thousand records a second on a LAN, and no faster than their round trips allow on a WAN
 * (insertWaitS). Fleet up is ~6 s.
 */
const SETUP_S: Record<DatabaseName, number> = { redis: 10, cassandra: 60, mongodb: 60, mysql: 60, riak: 60, couchdb: 60 };
/**
 * Cassandra's nodes start one after another (started together they could allocate the same
 * tokens), each JVM 17-22 s to serve here (its system.log, CI of 2026-11-26): a cluster of more
 * than 3 takes longer than SETUP_S says.
 */
const CASSANDRA_PER_NODE_S = 18;
const LOAD_RECORDS_PER_S = 2000;
const FLEET_UP_S = 6;

/**
 * Redis moves a resize's hash slots one at a time, each about seven round trips between the
 * nodes (MIGRATE and the SETSLOT steps): the quickstart's removal took 59 s at latency scale 0.02
 * and 252 s at 0.1 on fhc-4. A Cassandra join or decommission took at least ~12 s here even on
 * a LAN (bench:db). Other databases: no model, no warning.
 */
const REDIS_SLOTS = 16384;
const REDIS_ROUND_TRIPS_PER_SLOT = 7;
const CASSANDRA_MIN_RESIZE_S = 12;

/** Largest RTT between two of the nodes, ms, at the cell's latency scale (undefined: unknown). */
function worstRttMs(fleet: FleetView, nodes: string[], scale: number): number | undefined {
  const among = fleet.links.filter((l) => l.a && l.b && nodes.includes(l.a) && nodes.includes(l.b) && l.latencyMs !== undefined);
  return among.length === 0 ? undefined : Math.max(...among.map((l) => l.latencyMs!)) * scale;
}

/** Seconds a resize needs at least, by the models above; undefined where there is none. */
function resizeLowerBoundS(cell: CellPlan, fleet: FleetView, node: string, delta: 1 | -1, members: number): number | undefined {
  if (cell.database === 'cassandra') return CASSANDRA_MIN_RESIZE_S;
  if (cell.database !== 'redis') return undefined;
  const rtt = worstRttMs(fleet, [...cell.nodes, node], cell.latencyScale ?? 1);
  if (rtt === undefined) return undefined;
  const slots = delta < 0 ? REDIS_SLOTS / members : REDIS_SLOTS / (members + 1);
  return (slots * REDIS_ROUND_TRIPS_PER_SLOT * rtt) / 1000;
}

/** RTT (ms, at latency scale 1) of the direct link between two nodes; undefined without one. */
function linkRttMs(fleet: FleetView, a: string, b: string): number | undefined {
  const direct = fleet.links.filter((l) => l.latencyMs !== undefined && ((l.a === a && l.b === b) || (l.a === b && l.b === a)));
  return direct.length === 0 ? undefined : Math.min(...direct.map((l) => l.latencyMs!));
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Replica acknowledgements a Cassandra write waits for, from the cell's replication and consistency. */
function cassandraAcks(cell: CellPlan): number {
  const replicas = cell.settings.replication ?? Math.min(3, cell.nodes.length);
  const consistency = String(cell.settings.options?.writeConsistency ?? 'QUORUM').toUpperCase();
  if (consistency === 'ALL') return replicas;
  if (consistency === 'ONE' || consistency === 'LOCAL_ONE' || consistency === 'ANY') return 1;
  return Math.floor(replicas / 2) + 1;
}

/**
 * Seconds one inserted record waits on the network at least, from the RTTs at the cell's latency
 * scale (undefined where a link's RTT is unknown or the database has no model):
 * - Redis: the record's node and the node of YCSB's scan index (a sorted set every insert adds
 *   to), each a round trip from the client: twice the mean client-to-node RTT;
 * - Cassandra: the driver sends to a replica, which waits for the rest of its quorum: averaged
 *   over the nodes as coordinator, its RTT from the client plus the RTT to its nearest other
 *   nodes that complete the quorum (the real replicas are among them, so this is a lower bound).
 * Measured here (hybrid-virginia, 229.5 ms to the public nodes): Cassandra 1_2 with 2 threads
 * loaded 1,000 records in 122 s (this model: 115 s), 1_1 in 186 s (172 s); Redis 1_2 with 10
 * threads in 44 s (31 s).
 */
function insertWaitS(cell: CellPlan, fleet: FleetView): number | undefined {
  const rtts = (from: string, to: string[]) => allKnown(to.map((n) => linkRttMs(fleet, from, n)));
  const fromClient = rtts(cell.client, cell.nodes);
  if (fromClient === undefined) return undefined;
  const waitMs = cell.database === 'redis' ? 2 * mean(fromClient) : cell.database === 'cassandra' ? quorumWaitMs(cell, fromClient, rtts) : undefined;
  return waitMs === undefined ? undefined : (waitMs * (cell.latencyScale ?? 1)) / 1000;
}

/** Cassandra's per-record wait, averaged over the nodes as coordinator (see insertWaitS). */
function quorumWaitMs(cell: CellPlan, fromClient: number[], rtts: (from: string, to: string[]) => number[] | undefined): number | undefined {
  const othersNeeded = cassandraAcks(cell) - 1;
  const perCoordinator = cell.nodes.map((coordinator, i) => {
    const toOthers = rtts(
      coordinator,
      cell.nodes.filter((n) => n !== coordinator),
    );
    return toOthers && fromClient[i] + (othersNeeded > 0 ? (toOthers.sort((x, y) => x - y)[othersNeeded - 1] ?? 0) : 0);
  });
  const known = allKnown(perCoordinator);
  return known && mean(known);
}

/** The values when every one is known, else undefined. */
function allKnown(values: (number | undefined)[]): number[] | undefined {
  return values.every((v) => v !== undefined) ? values : undefined;
}

function loadS(cell: CellPlan, fleet: FleetView, ycsb: { recordCount: number; threads: number }): number {
  const wait = insertWaitS(cell, fleet);
  const byRoundTrips = wait === undefined ? 0 : (ycsb.recordCount * wait) / Math.max(1, ycsb.threads);
  return Math.max(ycsb.recordCount / LOAD_RECORDS_PER_S, byRoundTrips);
}

function setupS(cell: CellPlan, fleet: FleetView): number {
  const loads = cell.phases.reduce((s, p) => s + (p.kind === 'load' ? loadS(cell, fleet, p.ycsb) : 0), 0);
  const form = cell.database === 'cassandra' ? Math.max(SETUP_S.cassandra, CASSANDRA_PER_NODE_S * cell.nodes.length) : SETUP_S[cell.database];
  return form + loads;
}

function phaseLengthS(p: PlannedPhase): number {
  return p.kind === 'run' ? (p.durationS ?? 0) : 0;
}

/** The plan as a user reads it; `cores` is this host's (warnings about JVMs). */
export function planView(plan: RunPlan, fleet: FleetView, cores: number): PlanView {
  const warnings: string[] = [];
  const cells: CellView[] = [];
  let clock = FLEET_UP_S;
  for (const cell of plan.cells) {
    const startsAtS = clock;
    clock += setupS(cell, fleet);
    const phases: PhaseView[] = [];
    let members = cell.nodes.length;
    for (const phase of cell.phases) {
      const phaseStart = clock;
      const view: PhaseView = { name: phase.name, kind: phase.kind, events: [] };
      if (phase.kind === 'run') {
        Object.assign(view, { durationS: phase.durationS, operations: phase.operations, warmup: phase.warmup, waitForResizes: phase.waitForResizes });
        if (phase.ycsb.check) view.checked = true;
        let clients = 1;
        for (const event of phase.events) {
          const kind = eventKindOf(event.action);
          view.events.push({ phaseAtS: event.atS, runAtS: phaseStart + event.atS, description: kind.plan(event.action) });
          const where = `${cell.cellId} ${phase.name}: ${event.label} at ${event.atS} s`;
          if (kind.startsClient) clients++;
          if (kind.resize) {
            const needS = resizeLowerBoundS(cell, fleet, kind.resize.node(event.action), kind.resize.delta, members);
            const leftS = phase.durationS === undefined ? undefined : phase.durationS - event.atS;
            if (needS !== undefined && leftS !== undefined && needS > leftS && !phase.waitForResizes) {
              warnings.push(
                `${where} needs at least ~${Math.round(needS)} s to move its data at these latencies, but the phase ends ${Math.round(leftS)} s later: it will still be moving (add waitForResizes: true to the phase, or lengthen it)`,
              );
            }
            members += kind.resize.delta;
          }
        }
        // A server capped below a core (database.cpus) takes no more than its cap of the host.
        const cap = cell.settings.cpusPerNode;
        const serverCores = cell.database === 'cassandra' ? members * Math.min(1, cap ?? 1) : 0;
        if (clients + serverCores > cores) {
          const servers =
            cell.database === 'cassandra' ? ` + ${members} Cassandra nodes${cap === undefined ? '' : ` capped at ${cap} core each`}` : '';
          warnings.push(
            `${cell.cellId} ${phase.name}: ${clients + (cell.database === 'cassandra' ? members : 0)} JVMs (${clients} YCSB client(s)${servers}) on ${cores} cores: the host will likely be the bottleneck (the verdict will say host-bound); use fewer nodes or run on a larger host`,
          );
        }
      }
      phases.push(view);
      clock += phaseLengthS(phase);
    }
    cells.push({
      cellId: cell.cellId,
      coordinates: cell.coordinates,
      database: cell.database,
      nodes: cell.nodes,
      client: cell.client,
      latencyScale: cell.latencyScale,
      bandwidthScale: cell.bandwidthScale,
      startsAtS,
      phases,
    });
  }
  return {
    scenario: plan.scenario,
    experiment: plan.experiment,
    timeScale: plan.timeScale,
    fleet: { name: fleet.name, clientNode: fleet.clientNode, nodes: fleet.nodes, links: fleet.links },
    cells,
    expectedDurationS: Math.round(clock),
    warnings,
  };
}

const minutes = (s: number) => (s >= 120 ? `${(s / 60).toFixed(1)} min` : `${Math.round(s)} s`);

/** The plan in a terminal. */
export function formatPlanView(v: PlanView): string {
  const lines = [
    `${v.scenario}: "${v.experiment}"; ${v.cells.length} cell(s); time scale ${v.timeScale}; about ${minutes(v.expectedDurationS)} or more`,
  ];
  lines.push(`fleet ${v.fleet.name}: ${v.fleet.nodes.map((n) => n.name).join(', ')} (client ${v.fleet.clientNode}); ${v.fleet.links.length} links`);
  for (const l of v.fleet.links) {
    if (l.latencyMs !== undefined) lines.push(`  ${l.id.padEnd(22)} ${l.latencyMs} ms RTT, ${l.bandwidthMbps ?? '?'} Mbit/s`);
  }
  for (const c of v.cells) {
    const scales = [
      c.latencyScale !== undefined ? `latency x${c.latencyScale}` : '',
      c.bandwidthScale !== undefined ? `bandwidth x${c.bandwidthScale}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(
      `cell ${c.cellId} (from ~${minutes(c.startsAtS)}): ${c.database} on ${c.nodes.join(', ')}; YCSB on ${c.client}${scales ? `; ${scales}` : ''}`,
    );
    for (const p of c.phases) {
      const bound = p.durationS !== undefined ? `${p.durationS} s` : p.operations !== undefined ? `${p.operations} ops` : '';
      const flags = [
        p.warmup ? 'warm-up' : '',
        p.waitForResizes ? 'waits for resizes' : '',
        p.checked ? 'consistency checked, then every key written read back' : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(`  ${p.name}${bound ? ` (${bound}${flags ? `, ${flags}` : ''})` : ''}`);
      for (const e of p.events) lines.push(`    at ${e.phaseAtS} s (~${minutes(e.runAtS)} into the run): ${e.description}`);
    }
  }
  lines.push(v.warnings.length === 0 ? 'no warnings' : `${v.warnings.length} warning(s):`);
  lines.push(...v.warnings.map((w) => `  ! ${w}`));
  return lines.join('\n');
}
