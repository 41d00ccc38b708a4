/**
 * A run phase: the workload runs in load windows while the timeline's events fire on durable
 * timers. Events run in lanes by what they touch (cluster membership, network, clients,
 * measurements): each lane fires its events in order, so a slow removal delays the next resize
 * but never a link cut. Offsets count from the phase's origin, a time read on the activity host.
 */
import { CancellationScope, condition } from '@temporalio/workflow';
import type { YcsbSettings } from '../activities/contracts';
import type { RecordedEvent } from '../core/events';
import type { PhaseRecord } from '../core/run-record';
import type { EventAction, Measurement, PlannedEvent, PlannedPhase } from '../core/scenario';
import { clientPhaseName, DEFAULT_PING_COUNT } from '../core/scenario';
import type { Sample } from '../core/samples';
import { eventOptions, load, scenario, windowOptions } from './activities';
import { appendWindow, emptyPhase, windowProgress } from './phase-record';
import type { CellProgress } from './definitions';
import type { CellPlan } from '../core/scenario';

type RunPhasePlan = Extract<PlannedPhase, { kind: 'run' }>;

/** What a phase needs from its cell. */
export interface CellContext {
  cell: CellPlan;
  progress: CellProgress;
  /** True once the run was asked to stop gracefully: no new window or event starts. */
  aborted(): boolean;
  /** Every phase record of the cell, in order; a ramped client adds its own. */
  phases: PhaseRecord[];
  report(update: Partial<CellProgress>): void;
  /** Takes samples just appended to `record`: shows them in the progress and stores them. */
  samples(record: PhaseRecord, samples: Sample[]): Promise<void>;
}

/** YCSB's operation count when a window is bounded by time only (it must be an int). */
const UNBOUNDED_OPERATIONS = 2_000_000_000;
/** A window shorter than this would be mostly JVM start-up. */
const MIN_WINDOW_S = 3;

const LANE: Record<EventAction['kind'], string> = {
  'resize-add': 'cluster',
  'resize-remove': 'cluster',
  'latency-epoch': 'network',
  'bandwidth-epoch': 'network',
  'link-cut': 'network',
  'link-restore': 'network',
  'client-start': 'clients',
  'client-stop': 'clients',
  'measure-rtt': 'measure',
  'measure-traffic': 'measure',
};

/** Runs `event` and adds what it returned to `record`. */
async function fire(ctx: CellContext, record: PhaseRecord, event: PlannedEvent): Promise<RecordedEvent> {
  const { cell } = ctx;
  ctx.report({ running: [...(ctx.progress.running ?? []), event.label] });
  const done = await scenario.injectEvent.executeWithOptions(eventOptions(event.action, event.label), [
    { fleet: cell.fleet, database: cell.database, event },
  ]).finally(() => ctx.report({ running: ctx.progress.running?.filter((label) => label !== event.label) }));
  record.events.push(done.event);
  if (done.rtt) record.rtt.push(done.rtt);
  if (done.traffic) record.traffic.push(done.traffic);
  if (done.resize) record.resizes.push(done.resize);
  ctx.report({ lastEvent: { label: event.label, requestedAt: done.event.requestedAt } });
  return done.event;
}

function measurementEvent(m: Measurement, atS: number, when: string): PlannedEvent {
  const action: EventAction = m === 'rtt' ? { kind: 'measure-rtt', count: DEFAULT_PING_COUNT } : { kind: 'measure-traffic' };
  return { atS, label: `${m === 'rtt' ? 'ping matrix' : 'traffic counters'} ${when}`, path: 'measure', action };
}

interface ClientRun {
  record: PhaseRecord;
  ycsb: YcsbSettings;
  /** Host-clock origin of the phase. */
  originMs: number;
  /** Workflow time at which to stop starting windows; none = until the operations are done. */
  untilMs?: number;
  operations?: number;
  windowS: number;
  label: string;
}

/** One YCSB client: consecutive load windows until its time is up or its operations are done. */
async function runClient(ctx: CellContext, run: ClientRun): Promise<void> {
  const { cell } = ctx;
  let remaining = run.operations;
  let inserted = 0;
  for (let window = 1; !ctx.aborted(); window++) {
    const leftS = run.untilMs === undefined ? run.windowS : Math.floor((run.untilMs - Date.now()) / 1000);
    if (leftS < MIN_WINDOW_S) return;
    const windowS = Math.min(run.windowS, leftS);
    // Inserts of earlier windows extend the key space, so a later window neither re-inserts nor misses them.
    const settings: YcsbSettings = {
      ...run.ycsb,
      recordCount: run.ycsb.recordCount + inserted,
      operationCount: remaining ?? UNBOUNDED_OPERATIONS,
      maxSeconds: windowS,
    };
    const series = await load.ycsbRun.executeWithOptions(windowOptions(windowS, `${run.label} window ${window} (${windowS} s)`), [
      { fleet: cell.fleet, database: cell.database, settings, label: run.label },
    ]);
    await ctx.samples(run.record, appendWindow(run.record, series, run.originMs));
    const progress = windowProgress(series.totals);
    inserted += progress.inserted;
    if (remaining !== undefined) {
      remaining -= progress.done;
      // A window that finished nothing would repeat forever: the cluster is gone.
      if (remaining <= 0 || progress.done === 0) return;
    }
  }
}

/** When each ramped client stops: at its clientStop, or at the end of the phase. */
function clientStopOffset(events: PlannedEvent[], start: PlannedEvent, name: string): number | undefined {
  return events.find((e) => e.atS >= start.atS && e.action.kind === 'client-stop' && e.action.name === name)?.atS;
}

export async function runPhase(ctx: CellContext, phase: RunPhasePlan): Promise<void> {
  const record = emptyPhase(phase.name);
  ctx.phases.push(record);
  ctx.report({ step: `${phase.name}: measuring before`, nextEvent: undefined });
  for (const m of phase.measure) await fire(ctx, record, measurementEvent(m, 0, 'before'));

  const originMs = await scenario.readClock();
  const startedAt = Date.now();
  const endsAt = phase.durationS === undefined ? undefined : startedAt + phase.durationS * 1000;
  const due = (event: PlannedEvent) => startedAt + event.atS * 1000;
  ctx.report({ step: phase.name, phaseStartedAt: originMs, phaseDurationS: phase.durationS });

  const pending = [...phase.events];
  const showNext = () => ctx.report({ nextEvent: pending[0] && { label: pending[0].label, atS: pending[0].atS } });
  showNext();
  const clients = new Map<string, { done: Promise<void>; record: PhaseRecord }>();
  // The first failure stops every other part of the phase; the parts' own promises never reject,
  // so nothing is left rejected and unobserved while the rest still runs.
  let failure: unknown;
  let stopAll = () => {};
  const track = (part: Promise<void>) => part.catch((err) => {
    failure ??= err;
    stopAll();
  });

  const handle = async (event: PlannedEvent) => {
    const a = event.action;
    const fired = await fire(ctx, record, event);
    if (a.kind === 'client-stop') {
      // The client's last window was sized to end now, but YCSB starts up first: it ends a few
      // seconds late, and the event says when it really did (its last sample, same clock).
      const client = clients.get(a.name);
      await client?.done;
      fired.completedAt = client?.record.samples.at(-1)?.time ?? fired.requestedAt;
    }
    if (a.kind === 'client-start') {
      const extra = emptyPhase(clientPhaseName(phase.name, a.client.name));
      ctx.phases.push(extra);
      const stopS = clientStopOffset(phase.events, event, a.client.name);
      const ycsb = { ...phase.ycsb, threads: a.client.threads ?? phase.ycsb.threads, target: a.client.target ?? phase.ycsb.target };
      const untilMs = stopS === undefined ? endsAt : startedAt + stopS * 1000;
      const done = track(runClient(ctx, { record: extra, ycsb, originMs, untilMs, windowS: phase.windowS, label: extra.name }));
      clients.set(a.client.name, { done, record: extra });
    }
  };

  const lane = async (events: PlannedEvent[]) => {
    for (const event of events) {
      const wait = due(event) - Date.now();
      // A durable timer that an abort cuts short.
      if (wait > 0 && (await condition(ctx.aborted, wait))) return;
      if (ctx.aborted()) return;
      pending.splice(pending.indexOf(event), 1);
      // Behind schedule past the phase's end (a resize that ran long): the phase is over.
      if (endsAt !== undefined && Date.now() >= endsAt) continue;
      await handle(event);
      showNext();
    }
  };

  const lanes = new Map<string, PlannedEvent[]>();
  for (const event of phase.events) lanes.set(LANE[event.action.kind], [...(lanes.get(LANE[event.action.kind]) ?? []), event]);

  await CancellationScope.cancellable(async () => {
    const scope = CancellationScope.current();
    stopAll = () => scope.cancel();
    const main = runClient(ctx, { record, ycsb: phase.ycsb, originMs, untilMs: endsAt, operations: phase.operations, windowS: phase.windowS, label: phase.name });
    await Promise.all([main, ...[...lanes.values()].map(lane)].map(track));
    await Promise.all([...clients.values()].map((c) => c.done));
  });
  if (failure !== undefined) throw failure;

  if (ctx.aborted()) return;
  ctx.report({ step: `${phase.name}: measuring after`, nextEvent: undefined });
  const endS = (Date.now() - startedAt) / 1000;
  for (const m of phase.measure) await fire(ctx, record, measurementEvent(m, endS, 'after'));
}
