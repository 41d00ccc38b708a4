/**
 * The figures of one run, read from its cell records: per measured run phase its throughput
 * (YCSB's count, so workload F's read-modify-write counts once, as in the published numbers),
 * mean read and update latency, and bytes per operation (in all and per node pair) where traffic
 * was measured; around each event what event-figures.ts reads (load after a resize or a client,
 * recovery and outages after a link cut, the overlay's path per step); per cell each resize's
 * acceptance and completion; per phase the round trip each probed node pair was configured for,
 * and per cell its replication factor, for models of what the network alone explains
 * (quorum-model.ts). Each figure carries the verdict it was measured under: a figure not `ok` is
 * reported as not reproducible here, never silently used.
 */
import type { CellRecord, PhaseRecord } from '../run-record';
import { latestPerSecond, type Sample } from '../samples';
import { withRunPhaseVerdicts, type Verdict } from '../verdict';
import type { FleetSpec } from '../scenario';
import { median } from './statistics';
import { allClientsPerSecond, eventWindowFigures, latencyFigures, linkEventFigures, pairTrafficFigures, ycsbOk } from './event-figures';

/** Seconds left out at a phase's start: the JVM's first second and a latency change settling. */
export const SKIPPED_FIRST_SECONDS = 2;
/** An epoch that reached this share of its ceiling (ycsb.target) measured the ceiling, not the round trips. */
export const CEILING_SHARE = 0.9;

/** Flush and load phases (`load`, `load2`): set-up, not measurements. */
const SET_UP_PHASE = /^(flush|load)\d*$/;

export type FigureVerdict = Verdict | 'ceiling-bound' | 'unjudged';

export interface Figure {
  database: string;
  /** The cell's coordinates other than the database, `k=v` joined, e.g. `layout=4_4`. */
  cell: string;
  phase: string;
  /**
   * `throughput`, `operations measured`, `relative error of throughput`, `bytes per operation`, `accepted after`, `completed
   * after`, the removal and probe-cost measures below, and event-figures.ts's (`throughput
   * after`, `recovery after`, `outage after`, `path`, `pair bytes per operation`, `read
   * latency`, ...).
   */
  measure: string;
  unit: string;
  value: number;
  verdict: FigureVerdict;
  /** The verdict's reasons, e.g. "host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)". */
  why?: string;
  /** The host's median busy share while the figure was measured, %. */
  hostBusyMedianPercent?: number;
  /** Which plan produced it: "as planned" or the re-plans (core/reproduce/replan.ts planNote). */
  plan?: string;
  /** The phase's client threads (main client), where the run's plan records them. */
  threads?: number;
  /** The node pair a per-pair figure is of, `a-b`. */
  pair?: string;
  /** A figure that is a text (a path's links), its value a count (hops). */
  text?: string;
  /** One of many per pair or per step: in comparison.json, left out of the Markdown table. */
  detail?: true;
}

/** Where a cell ran its client and its database, as its plan recorded them. */
export interface CellPlacement {
  client: string;
  nodes: string[];
}

/** A run phase's client as its plan recorded it: the ceiling (ycsb.target) and the threads. */
export interface PhaseClient {
  target?: number;
  threads?: number;
}

export function figureKey(f: Pick<Figure, 'database' | 'cell' | 'phase' | 'measure' | 'pair'>): string {
  return [f.database, f.cell, f.phase, f.measure, f.pair].filter(Boolean).join(' · ');
}

function phaseVerdict(phase: PhaseRecord): Pick<Figure, 'verdict' | 'why' | 'hostBusyMedianPercent'> {
  if (!phase.verdict) return { verdict: 'unjudged', why: 'no telemetry was recorded for this phase' };
  const why = phase.verdict.reasons.map((r) => r.text).join('; ');
  return { verdict: phase.verdict.verdict, ...(why ? { why } : {}), hostBusyMedianPercent: phase.verdict.figures.hostBusyMedianPercent ?? undefined };
}

function bytesOf(phase: PhaseRecord): number | undefined {
  const sorted = [...phase.traffic].sort((a, b) => a.time - b.time);
  if (sorted.length < 2) return undefined;
  const total = (m: (typeof sorted)[number]) => m.pairs.reduce((n, p) => n + p.bytes, 0);
  return total(sorted[sorted.length - 1]) - total(sorted[0]);
}

/** Around each link removal of a phase that also measured the all-pairs RTT (SPEC.md §4.5). */
type RemovalMeasure = 'throughput before' | 'throughput after' | 'average ping before' | 'average ping after';

/**
 * Per link cut of a phase that measured RTTs around its cuts: the throughput from the previous
 * cut (or the phase's start) to this one and from this one to the next (or the phase's end), as
 * the published experiment's 60 s before and after each removal, and the all-pairs average ping
 * measured last before the cut and first after it (before the next cut).
 */
function removalFigures(phase: PhaseRecord, seconds: Sample[], base: Omit<Figure, 'measure' | 'unit' | 'value' | 'phase'>): Figure[] {
  const cuts = phase.events.filter((e) => e.kind === 'link-cut').sort((a, b) => a.requestedAt - b.requestedAt);
  const pings = phase.rtt.filter((m) => m.meanMs !== null).sort((a, b) => a.time - b.time);
  if (cuts.length === 0 || pings.length === 0) return [];
  const meanBetween = (from: number, to: number) => meanThroughput(seconds.filter((s) => s.time > from && s.time <= to));
  const figures: Figure[] = [];
  cuts.forEach((cut, i) => {
    const [previous, next] = [cuts[i - 1]?.requestedAt ?? -Infinity, cuts[i + 1]?.requestedAt ?? Infinity];
    const values: [RemovalMeasure, string, number | null | undefined][] = [
      ['throughput before', 'ops/s', meanBetween(previous, cut.requestedAt)],
      ['throughput after', 'ops/s', meanBetween(cut.requestedAt, next)],
      ['average ping before', 'ms', pings.filter((m) => m.time > previous && m.time <= cut.requestedAt).at(-1)?.meanMs],
      ['average ping after', 'ms', pings.find((m) => m.time > cut.requestedAt && m.time <= next)?.meanMs],
    ];
    for (const [measure, unit, value] of values) {
      if (value !== undefined && value !== null) figures.push({ ...base, phase: `${phase.name} · ${cut.label}`, measure, unit, value });
    }
  });
  return figures;
}

/** The measurer measured: the load carried while the all-pairs pings ran, and between them. */
type ProbeCostMeasure = 'throughput while pinging' | 'throughput between pings';

/**
 * A phase that pinged all pairs under load (link removal): its throughput in the seconds the pings
 * ran against the seconds between them, so that the probes' own traffic and CPU show up if they
 * moved the figures they are set beside. Records without the pings' start give none.
 */
function probeCostFigures(phase: PhaseRecord, seconds: Sample[], base: Omit<Figure, 'measure' | 'unit' | 'value'>): Figure[] {
  const windows = phase.rtt.flatMap((m) => (m.startedAt === undefined ? [] : [[m.startedAt, m.time] as const]));
  if (windows.length === 0) return [];
  // A sample covers the second that ends at its time.
  const pinging = (s: Sample) => windows.some(([from, to]) => s.time > from && s.time - 1000 < to);
  const values: [ProbeCostMeasure, number | undefined][] = [
    ['throughput while pinging', meanThroughput(seconds.filter(pinging))],
    ['throughput between pings', meanThroughput(seconds.filter((s) => !pinging(s)))],
  ];
  return values.flatMap(([measure, value]) => (value === undefined ? [] : [{ ...base, measure, unit: 'ops/s', value }]));
}

/**
 * Per node pair the phase's probes measured, the round trip its links were configured for (the
 * median over the phase: a latency epoch changes it), `a-b` in name order. Detail figures: in
 * comparison.json, not in the table.
 */
function configuredRttFigures(phase: PhaseRecord, base: Omit<Figure, 'measure' | 'unit' | 'value'>): Figure[] {
  const byPair = new Map<string, number[]>();
  for (const probe of phase.probes ?? []) {
    const pair = unorderedPair(probe.from, probe.to);
    byPair.set(pair, [...(byPair.get(pair) ?? []), probe.configuredMs]);
  }
  return [...byPair].map(([pair, values]) => ({ ...base, measure: CONFIGURED_RTT, unit: 'ms', value: median(values), pair, detail: true }));
}

/** A pair's name whichever way it was probed: `a-b` in name order. */
export const unorderedPair = (a: string, b: string) => [a, b].sort().join('-');

export const CONFIGURED_RTT = 'configured rtt';
export const REPLICATION_FACTOR = 'replication factor';

/** The cell's replication factor, as its cluster record states it; its text is the read and write consistency. */
function replicationFigures(cell: CellRecord, base: Omit<Figure, 'measure' | 'unit' | 'value' | 'phase'>): Figure[] {
  const consistency = cell.cluster?.consistency;
  const factor = Number(consistency?.['replication factor']);
  if (!consistency || !Number.isFinite(factor)) return [];
  const text = `${consistency['read consistency'] ?? '?'} reads, ${consistency['write consistency'] ?? '?'} writes`;
  return [{ ...base, phase: 'cluster', measure: REPLICATION_FACTOR, unit: '', value: factor, text, detail: true }];
}

/** YCSB's operations completed in `seconds`. */
const completed = (seconds: Sample[]) => seconds.reduce((n, s) => n + ycsbOk(s), 0);

/** YCSB's mean operations per second over `seconds`; undefined for none. */
function meanThroughput(seconds: Sample[]): number | undefined {
  return seconds.length ? completed(seconds) / seconds.length : undefined;
}

/**
 * The operations a phase's throughput figure counts (its measured seconds): a throughput counted
 * from a few long operations (E's scans at 1.0) is a small count, wide and biased in a ratio.
 */
export const OPERATIONS_MEASURED = 'operations measured';

/**
 * The seconds before the client's wind-down: YCSB stops issuing at its time limit and reports its
 * last second or two while it exits (a Cassandra A epoch at 13-19 operations a second ended
 * `14 1 0`), a fall that is not the throughput's own spread. Trailing seconds below half the
 * median are that; a phase of mostly empty seconds (a few long scans) has none.
 */
function withoutWindDown(perSecond: number[]): number[] {
  const half = median(perSecond) / 2;
  let end = perSecond.length;
  while (end > 0 && perSecond[end - 1] < half) end--;
  return perSecond.slice(0, end);
}

/** A throughput's relative standard error, from its own seconds (`throughputError`). */
export const THROUGHPUT_ERROR = 'relative error of throughput';

/**
 * How far a phase's mean throughput is from its long-run rate by chance, relative to it: the
 * standard deviation of its per-second counts over the square root of its seconds, measured, so
 * a steady closed loop is tight and a few long operations are wide. It is never below one
 * operation in all it counted: the operation in progress at either end of the measured seconds
 * moves the count by one, which per-second counts of 0 and 1 do not show.
 */
export function throughputError(allSeconds: number[]): number {
  const perSecond = withoutWindDown(allSeconds);
  const n = perSecond.length;
  const total = perSecond.reduce((a, b) => a + b, 0);
  if (n < 2 || total === 0) return Infinity;
  const mean = total / n;
  const variance = perSecond.reduce((sum, c) => sum + (c - mean) ** 2, 0) / (n - 1);
  return Math.max(Math.sqrt(variance / n) / mean, 1 / total);
}

/**
 * `clientOf`: the phase's client as planned (its ceiling and threads), where the plan is known;
 * `placementOf`: the cell's client node and database nodes, whose pairs' paths are read.
 */
export function runFigures(
  cells: CellRecord[],
  clientOf: (cell: CellRecord, phase: string) => PhaseClient | undefined = () => undefined,
  placementOf: (cell: CellRecord) => CellPlacement | undefined = () => undefined,
): Figure[] {
  const figures: Figure[] = [];
  for (const cell of cells) {
    const database = cell.cluster?.database ?? String(cell.coordinates.database ?? '');
    const place = Object.entries(cell.coordinates)
      .filter(([k]) => k !== 'database')
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    // Records written before sub-phases carried their run phase's verdict get it here.
    for (const phase of withRunPhaseVerdicts(cell.phases)) {
      if (phase.warmup || phase.samples.length === 0 || SET_UP_PHASE.test(phase.name)) continue;
      const seconds = latestPerSecond(phase.samples).slice(SKIPPED_FIRST_SECONDS);
      const throughput = meanThroughput(seconds);
      if (throughput === undefined) continue;
      const judged = phaseVerdict(phase);
      const client = clientOf(cell, phase.name);
      const ceiling = client?.target;
      const atCeiling = ceiling !== undefined && throughput >= CEILING_SHARE * ceiling && judged.verdict === 'ok';
      const verdict = atCeiling
        ? {
            ...judged,
            verdict: 'ceiling-bound' as const,
            why: `${throughput.toFixed(0)} ops/s is at least ${CEILING_SHARE * 100} % of its ceiling ${ceiling} ops/s`,
          }
        : judged;
      const base = { database, cell: place, phase: phase.name, ...(client?.threads !== undefined ? { threads: client.threads } : {}) };
      figures.push({ ...base, measure: 'throughput', unit: 'ops/s', value: throughput, ...verdict });
      figures.push({ ...base, measure: OPERATIONS_MEASURED, unit: '', value: completed(seconds), ...verdict, detail: true });
      figures.push({ ...base, measure: THROUGHPUT_ERROR, unit: '', value: throughputError(seconds.map(ycsbOk)), ...verdict, detail: true });
      const bytes = bytesOf(phase);
      const ops = completed(phase.samples);
      if (bytes !== undefined && ops > 0) figures.push({ ...base, measure: 'bytes per operation', unit: 'B', value: bytes / ops, ...verdict });
      figures.push(...removalFigures(phase, seconds, { database, cell: place, ...judged }));
      figures.push(...probeCostFigures(phase, seconds, { ...base, ...judged }));
      figures.push(...configuredRttFigures(phase, { ...base, ...judged }));
      const placement = placementOf(cell);
      const ramped = cell.phases.filter((p) => p.name.startsWith(`${phase.name}:`)).map((p) => latestPerSecond(p.samples));
      const together = allClientsPerSecond(seconds, ramped);
      const pairs = placement ? placement.nodes.map((n): [string, string] => [placement.client, n]) : [];
      const more = [
        ...latencyFigures(phase.name, seconds),
        ...pairTrafficFigures(phase, ops),
        ...(phase.name.includes(':') ? [] : [...eventWindowFigures(phase, together), ...linkEventFigures(phase, together, pairs)]),
      ];
      figures.push(...more.map((f) => ({ ...base, ...f, ...judged })));
    }
    const cellVerdict = cell.summary.verdict;
    figures.push(...replicationFigures(cell, { database, cell: place, verdict: 'ok' }));
    const judged = cellVerdict
      ? { verdict: cellVerdict.verdict, ...(cellVerdict.reasons.length ? { why: cellVerdict.reasons.map((r) => r.text).join('; ') } : {}) }
      : { verdict: 'unjudged' as const };
    for (const resize of cell.summary.resizes ?? []) {
      const base = { database, cell: place, phase: resize.label, unit: 's', ...judged };
      if (resize.acceptedAfterS !== undefined) figures.push({ ...base, measure: 'accepted after', value: resize.acceptedAfterS });
      if (resize.completedAfterS !== undefined) figures.push({ ...base, measure: 'completed after', value: resize.completedAfterS });
    }
  }
  return figures;
}

/** A fleet as a figure names it: the local topology, the inventory file or the Pulumi stack. */
function fleetLabel(spec: FleetSpec): string {
  return 'local' in spec ? spec.local : 'inventoryFile' in spec ? spec.inventoryFile : spec.pulumiStack;
}

/**
 * Where an experiment's parts run on different fleets (distance: one per region), each figure
 * names its part's fleet first; otherwise the parts' figures would share keys and be taken for
 * repetitions of one another.
 */
export function namingFleets(parts: { scenario: { fleet: FleetSpec } }[], fleet: FleetSpec, figures: Figure[]): Figure[] {
  if (new Set(parts.map((p) => fleetLabel(p.scenario.fleet))).size < 2) return figures;
  return figures.map((f) => ({ ...f, cell: [`fleet=${fleetLabel(fleet)}`, f.cell].filter(Boolean).join(' ') }));
}
