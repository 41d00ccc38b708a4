/**
 * Figures a comparison needs beyond a phase's mean throughput, each read from the cell's record:
 * - around each membership or client event (a resize, a client started): the load carried from
 *   the event's completion to the next event, all the phase's clients together, and the lowest
 *   second in the first seconds after a node joins;
 * - after each link cut or restore: the seconds until the load recovered, the longest outage
 *   (seconds in a row without a successful operation) before the next event, and, where the
 *   phase recorded the overlay's paths, the path of each client-to-database-node pair at the end
 *   of each step and when it settled there;
 * - per node pair, bytes per operation where traffic was measured (the published per-pair graphs);
 * - mean read and update latency.
 * Pure: figures.ts calls these with the samples it already picked per second.
 */
import type { RecordedEvent } from '../events';
import { formatPath, pairName, type PathChange } from '../overlay-path';
import type { PhaseRecord } from '../run-record';
import type { Sample } from '../samples';

/** Seconds in a row without a successful operation that make an outage (one empty second is a slow operation). */
export const OUTAGE_MIN_S = 2;
/** The load has recovered once a second carries this share of the median second before the event. */
export const RECOVERED_SHARE = 0.5;
/** The seconds before an event its recovery is measured against, at most. */
const BEFORE_WINDOW_MS = 30_000;
/** The seconds after a join whose lowest second is its dip. */
export const DIP_WINDOW_S = 20;

const WINDOW_KINDS = new Set(['resize-add', 'resize-remove', 'client-start', 'client-stop']);
const LINK_KINDS = new Set(['link-cut', 'link-restore']);

export interface EventFigure {
  phase: string;
  measure: string;
  unit: string;
  value: number;
  pair?: string;
  text?: string;
  detail?: true;
}

/** YCSB's operations in a second: okPerS counts a read-modify-write as its read and its update. */
export function ycsbOk(s: Sample): number {
  return s.okPerS - (s.ops['READ-MODIFY-WRITE']?.ok ?? 0);
}

const mean = (xs: number[]) => (xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? undefined : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Per second (by the time its sample ends), the operations of every client of a phase: the phase's own and its ramped clients' (`phase:c2`). */
export function allClientsPerSecond(main: Sample[], ramped: Sample[][]): { time: number; ok: number }[] {
  const bySecond = new Map<number, number>();
  for (const s of [main, ...ramped].flat()) {
    const second = Math.round(s.time / 1000) * 1000;
    bySecond.set(second, (bySecond.get(second) ?? 0) + ycsbOk(s));
  }
  return [...bySecond].sort((a, b) => a[0] - b[0]).map(([time, ok]) => ({ time, ok }));
}

const sortedEvents = (phase: PhaseRecord, kinds: Set<string>) =>
  phase.events.filter((e) => kinds.has(e.kind)).sort((a, b) => a.requestedAt - b.requestedAt);

/**
 * Around each resize or client event: `throughput after <label>`, the mean from its completion (a
 * resize's data moved, else its request) to the next such event's request or the phase's end;
 * `throughput before <first label>`, from the phase's start to the first; and for a join the
 * `lowest second after`, within DIP_WINDOW_S of its request.
 */
export function eventWindowFigures(phase: PhaseRecord, seconds: { time: number; ok: number }[]): EventFigure[] {
  const events = sortedEvents(phase, WINDOW_KINDS);
  if (events.length === 0 || seconds.length === 0) return [];
  const between = (from: number, to: number) => mean(seconds.filter((s) => s.time - 1000 >= from && s.time <= to).map((s) => s.ok));
  const figures: EventFigure[] = [];
  const first = between(-Infinity, events[0].requestedAt);
  if (first !== undefined) figures.push({ phase: `${phase.name} · ${events[0].label}`, measure: 'throughput before', unit: 'ops/s', value: first });
  events.forEach((e, i) => {
    const next = events[i + 1]?.requestedAt ?? Infinity;
    const after = between(e.completedAt ?? e.requestedAt, next);
    if (after !== undefined) figures.push({ phase: `${phase.name} · ${e.label}`, measure: 'throughput after', unit: 'ops/s', value: after });
    if (e.kind === 'resize-add') {
      const dip = seconds.filter((s) => s.time - 1000 >= e.requestedAt && s.time <= Math.min(next, e.requestedAt + DIP_WINDOW_S * 1000));
      if (dip.length > 0)
        figures.push({
          phase: `${phase.name} · ${e.label}`,
          measure: 'lowest second after',
          unit: 'ops/s',
          value: Math.min(...dip.map((s) => s.ok)),
        });
    }
  });
  return figures;
}

/** Seconds from `at` until a second carries RECOVERED_SHARE of the median second before it; the window's length when none does. */
function recoveryS(seconds: { time: number; ok: number }[], at: number, previous: number, until: number): number | undefined {
  const before = median(seconds.filter((s) => s.time <= at && s.time - 1000 >= Math.max(previous, at - BEFORE_WINDOW_MS)).map((s) => s.ok));
  if (before === undefined || before === 0) return undefined;
  const after = seconds.filter((s) => s.time - 1000 >= at && s.time <= until);
  const back = after.find((s) => s.ok >= RECOVERED_SHARE * before);
  return ((back?.time ?? Math.min(until, after.at(-1)?.time ?? at)) - at) / 1000;
}

/** The longest run of seconds without an operation in (at, until], if at least OUTAGE_MIN_S long; else 0. */
function outageS(seconds: { time: number; ok: number }[], at: number, until: number): number {
  let longest = 0;
  let run = 0;
  for (const s of seconds.filter((x) => x.time - 1000 >= at && x.time <= until)) {
    run = s.ok === 0 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest >= OUTAGE_MIN_S ? longest : 0;
}

/** The path a pair took at `time`: its last recorded change at or before it. */
function pathAt(changes: PathChange[], time: number): PathChange | undefined {
  return changes.filter((c) => c.time <= time).at(-1);
}

const linksOf = (p: PathChange) => (p.hops.length === 0 ? 'unreachable' : p.links.join(' + '));

/**
 * After each link cut or restore: `recovery after` and `outage after` (seconds), and for each
 * pair of `pairs` whose path the phase recorded, `path` at the end of each step (`before <first
 * label>`, then `after <label>`; value: hops, text: the links in turn) and, where the event moved
 * it, `path settled after`: seconds from the event to the first reading of the step's last path
 * (the overlay's re-route, as the path watch reads it once a second).
 */
export function linkEventFigures(phase: PhaseRecord, seconds: { time: number; ok: number }[], pairs: [string, string][]): EventFigure[] {
  const events = sortedEvents(phase, LINK_KINDS);
  if (events.length === 0) return [];
  const end = Math.max(seconds.at(-1)?.time ?? 0, ...events.map((e) => e.requestedAt));
  const figures: EventFigure[] = [];
  events.forEach((e, i) => {
    const [previous, next] = [events[i - 1]?.requestedAt ?? -Infinity, events[i + 1]?.requestedAt ?? end];
    const at = `${phase.name} · ${e.label}`;
    const recovered = recoveryS(seconds, e.requestedAt, previous, next);
    if (recovered !== undefined) figures.push({ phase: at, measure: 'recovery after', unit: 's', value: recovered });
    if (seconds.length > 0) figures.push({ phase: at, measure: 'outage after', unit: 's', value: outageS(seconds, e.requestedAt, next) });
  });
  const byPair = new Map<string, PathChange[]>();
  for (const c of [...(phase.paths ?? [])].sort((a, b) => a.time - b.time)) byPair.set(pairName(c), [...(byPair.get(pairName(c)) ?? []), c]);
  for (const [a, b] of pairs) {
    const changes = byPair.get(`${a}-${b}`) ?? byPair.get(`${b}-${a}`);
    if (!changes) continue;
    const pair = `${a}-${b}`;
    const steps: [string, number, RecordedEvent | undefined][] = [
      [`before ${events[0].label}`, events[0].requestedAt, undefined],
      ...events.map((e, i): [string, number, RecordedEvent] => [`after ${e.label}`, events[i + 1]?.requestedAt ?? end, e]),
    ];
    for (const [step, stepEnd, event] of steps) {
      const path = pathAt(changes, stepEnd);
      if (path)
        figures.push({
          phase: `${phase.name} · ${step}`,
          measure: 'path',
          unit: 'hops',
          value: path.hops.length - 1,
          pair,
          text: linksOf(path),
          detail: true,
        });
      if (!event || !path) continue;
      const was = pathAt(changes, event.requestedAt);
      if (was && formatPath(was) === formatPath(path)) continue;
      const settled = changes.find((c) => c.time > event.requestedAt && c.time <= stepEnd && formatPath(c) === formatPath(path));
      if (settled)
        figures.push({
          phase: `${phase.name} · ${event.label}`,
          measure: 'path settled after',
          unit: 's',
          value: (settled.time - event.requestedAt) / 1000,
          pair,
        });
    }
  }
  return figures;
}

/** Bytes per operation per node pair over a phase that measured traffic (its first and last reading). */
export function pairTrafficFigures(phase: PhaseRecord, ops: number): EventFigure[] {
  const sorted = [...phase.traffic].sort((a, b) => a.time - b.time);
  if (sorted.length < 2 || ops <= 0) return [];
  const first = new Map(sorted[0].pairs.map((p) => [`${p.a}-${p.b}`, p.bytes]));
  return sorted[sorted.length - 1].pairs.map((p) => ({
    phase: phase.name,
    measure: 'pair bytes per operation',
    unit: 'B',
    value: (p.bytes - (first.get(`${p.a}-${p.b}`) ?? 0)) / ops,
    pair: `${p.a}-${p.b}`,
    detail: true as const,
  }));
}

/** Mean latency of successful reads and updates over the seconds, ms, weighted by operations. */
export function latencyFigures(phaseName: string, seconds: Sample[]): EventFigure[] {
  const figures: EventFigure[] = [];
  for (const [op, measure] of [
    ['READ', 'read latency'],
    ['UPDATE', 'update latency'],
  ] as const) {
    const weighted = seconds.flatMap((s) => {
      const o = s.ops[op];
      return o && o.ok > 0 && o.latencyUs ? [[o.ok, o.latencyUs.avg] as const] : [];
    });
    const n = weighted.reduce((a, [k]) => a + k, 0);
    if (n > 0) figures.push({ phase: phaseName, measure, unit: 'ms', value: weighted.reduce((a, [k, us]) => a + k * us, 0) / n / 1000 });
  }
  return figures;
}
