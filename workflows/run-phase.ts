/**
 * A run phase: each YCSB client runs as one activity (one process) for the whole phase while the
 * timeline's events fire on durable timers. Events run in lanes by what they touch (cluster
 * membership, network, clients, measurements): each lane fires its events in order, so a slow
 * removal delays the next resize but never a link cut. Offsets count from the phase's origin, a
 * time read on the activity host; samples are stored by the client activities as they arrive.
 */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { YcsbSettings } from '../activities/contracts';
import type { RecordedEvent } from '../core/events';
import type { PhaseRecord } from '../core/run-record';
import type { EventAction, Measurement, PlannedEvent, PlannedPhase } from '../core/scenario';
import { clientPhaseName } from '../core/scenario';
import { eventKindOf, eventKinds } from '../core/event-kinds/registry';
import type { Sample } from '../core/samples';
import { checkOptions, clientOptions, eventOptions, load, monitor, scenario } from './activities';
import { emptyPhase } from './phase-record';
import type { CellProgress } from './definitions';
import type { CellPlan } from '../core/scenario';

type RunPhasePlan = Extract<PlannedPhase, { kind: 'run' }>;

/** What a phase needs from its cell. */
export interface CellContext {
  runId: string;
  cell: CellPlan;
  progress: CellProgress;
  /** True once the run was asked to stop gracefully: clients stop, no new event starts (bound: a durable condition takes it as is). */
  aborted: () => boolean;
  /** Every phase record of the cell, in order (the index is the phase's place in the store). */
  phases: PhaseRecord[];
  report(update: Partial<CellProgress>): void;
  /** Shows the newest samples in the progress. */
  showSamples(samples: Sample[]): void;
}

/** YCSB's operation count when a client is bounded by time only (it must be an int). */
const UNBOUNDED_OPERATIONS = 2_000_000_000;
/** How long `waitForResizes` may keep a phase's workload running past its duration. */
const RESIZE_WAIT_LIMIT_S = 30 * 60;

const movesData = (action: EventAction) => eventKindOf(action).resize !== undefined;

/** Runs `event` and adds what it returned to `record`. */
async function fire(ctx: CellContext, record: PhaseRecord, event: PlannedEvent): Promise<RecordedEvent> {
  const { cell } = ctx;
  ctx.report({ running: [...(ctx.progress.running ?? []), event.label] });
  const done = await scenario.injectEvent
    .executeWithOptions(eventOptions(event.action, event.label), [{ fleet: cell.fleet, database: cell.database, event }])
    .finally(() => ctx.report({ running: ctx.progress.running?.filter((label) => label !== event.label) }));
  record.events.push(done.event);
  if (done.rtt) record.rtt.push(done.rtt);
  if (done.traffic) record.traffic.push(done.traffic);
  if (done.resize) record.resizes.push(done.resize);
  const last = ctx.progress.lastEvent;
  // Lanes finish out of order (a resize ends after later cuts): the live view never goes back.
  if (!last || done.event.requestedAt >= last.requestedAt) ctx.report({ lastEvent: { label: event.label, requestedAt: done.event.requestedAt } });
  return done.event;
}

/** A phase's `measure: [rtt]` taken before or after its workload: the measuring kind with its defaults. */
function measurementEvent(m: Measurement, atS: number, when: string): PlannedEvent {
  const kind = eventKinds().find((k) => k.measures === m)!;
  const action = kind.toAction({}) as EventAction;
  return { atS, label: `${kind.label(action)} ${when}`, path: 'measure', action };
}

interface ClientRun {
  record: PhaseRecord;
  ycsb: YcsbSettings;
  /** Host-clock origin of the phase. */
  originMs: number;
  /** Host-clock time the client stops; none = when its operations are done. */
  untilMs?: number;
  operations?: number;
  label: string;
}

/**
 * One YCSB client for its whole time: a single activity, retried from its stored samples if the
 * worker dies. Stopping it early (abort, resizes done) cancels it; what it stored is kept.
 */
async function runClient(ctx: CellContext, run: ClientRun, stopping: () => boolean): Promise<number | undefined> {
  const { cell } = ctx;
  const settings: YcsbSettings = { ...run.ycsb, operationCount: run.operations ?? UNBOUNDED_OPERATIONS };
  try {
    const result = await load.ycsbRun.executeWithOptions(clientOptions(run.label, run.originMs, run.untilMs), [
      {
        fleet: cell.fleet,
        database: cell.database,
        settings,
        label: run.label,
        sink: { runId: ctx.runId, cellId: cell.cellId, phaseIndex: ctx.phases.indexOf(run.record) },
        originMs: run.originMs,
        untilMs: run.untilMs,
      },
    ]);
    // Its restarts are in the phase's faults stream already: recording the cell joins them in.
    run.record.totals = result.totals;
    ctx.showSamples(result.latest);
    return result.latest.at(-1)?.time;
  } catch (err) {
    if (!(isCancellation(err) && stopping())) throw err;
    return undefined;
  }
}

/** When each ramped client stops: at its clientStop, or at the end of the phase. */
function clientStopOffset(events: PlannedEvent[], start: PlannedEvent, name: string): number | undefined {
  return events.find((e) => e.atS >= start.atS && eventKindOf(e.action).stopsClient?.(e.action) === name)?.atS;
}

export async function runPhase(ctx: CellContext, phase: RunPhasePlan): Promise<void> {
  const record = emptyPhase(phase.name, phase.warmup);
  ctx.phases.push(record);
  ctx.report({ step: `${phase.name}: measuring before`, nextEvent: undefined });
  for (const m of phase.measure) await fire(ctx, record, measurementEvent(m, 0, 'before'));

  const originMs = await scenario.readClock();
  const startedAt = Date.now();
  const endsAt = phase.durationS === undefined ? undefined : startedAt + phase.durationS * 1000;
  const hostTime = (workflowMs: number) => originMs + (workflowMs - startedAt);
  const due = (event: PlannedEvent) => startedAt + event.atS * 1000;
  ctx.report({ step: phase.name, phaseStartedAt: originMs, phaseDurationS: phase.durationS });

  const pending = [...phase.events];
  const showNext = () => ctx.report({ nextEvent: pending[0] && { label: pending[0].label, atS: pending[0].atS } });
  showNext();
  const clients = new Map<string, { done: Promise<void>; lastSampleAt?: number }>();
  /** The phases of the clients ramped into this one: a checked phase checks their histories with its own. */
  const rampedPhases: PhaseRecord[] = [];
  const resizing = new Set<PlannedEvent>();
  let workloadEndS: number | undefined;
  // The first failure stops every other part of the phase; the parts' own promises never reject,
  // so nothing is left rejected and unobserved while the rest still runs.
  let failure: unknown;
  let stopAll = () => {};
  const track = (part: Promise<void>) =>
    part.catch((err) => {
      failure ??= err;
      stopAll();
    });

  // Clients run in a scope of their own (made below, inside the phase's): stopping them early
  // (abort, the resizes they waited for are done) cancels only them, never a resize or a link
  // change under way; a failure elsewhere cancels the phase's scope, and so them too.
  let clientScope: CancellationScope | undefined;
  let clientsStopping = false;
  const stopClients = () => {
    clientsStopping = true;
    clientScope?.cancel();
  };
  const startClient = (run: ClientRun) => clientScope!.run(() => runClient(ctx, run, () => clientsStopping));

  const handle = async (event: PlannedEvent) => {
    const a = event.action;
    const kind = eventKindOf(a);
    if (movesData(a)) resizing.add(event);
    const fired = await fire(ctx, record, event).finally(() => resizing.delete(event));
    if (movesData(a) && workloadEndS !== undefined) markStillMoving(record, fired, workloadEndS);
    const stopped = kind.stopsClient?.(a);
    if (stopped !== undefined) {
      // The client was given this stop time; it ends within a second of it. The event says when
      // it really did (its last sample, same clock).
      const client = clients.get(stopped);
      await client?.done;
      fired.completedAt = client?.lastSampleAt ?? fired.requestedAt;
    }
    const started = kind.startsClient?.(a);
    if (started) {
      const extra = emptyPhase(clientPhaseName(phase.name, started.name), phase.warmup);
      ctx.phases.push(extra);
      rampedPhases.push(extra);
      const stopS = clientStopOffset(phase.events, event, started.name);
      const ycsb = { ...phase.ycsb, threads: started.threads ?? phase.ycsb.threads, target: started.target ?? phase.ycsb.target };
      const untilMs = stopS === undefined ? (endsAt === undefined ? undefined : hostTime(endsAt)) : originMs + stopS * 1000;
      const client: { done: Promise<void>; lastSampleAt?: number } = { done: Promise.resolve() };
      client.done = track(startClient({ record: extra, ycsb, originMs, untilMs, label: extra.name }).then((at) => void (client.lastSampleAt = at)));
      clients.set(started.name, client);
    }
  };

  const lane = async (events: PlannedEvent[]) => {
    for (const event of events) {
      const wait = due(event) - Date.now();
      // A durable timer that an abort cuts short.
      if (wait > 0 && (await condition(ctx.aborted, wait))) return;
      if (ctx.aborted()) return;
      pending.splice(pending.indexOf(event), 1);
      showNext();
      // Behind schedule past the phase's end (a resize that ran long): the phase is over.
      if (endsAt !== undefined && Date.now() >= endsAt) continue;
      await handle(event);
    }
  };

  const lanes = new Map<string, PlannedEvent[]>();
  for (const event of phase.events) {
    const name = eventKindOf(event.action).lane;
    lanes.set(name, [...(lanes.get(name) ?? []), event]);
  }

  // With waitForResizes the main client runs on past the duration until no resize is moving data.
  const waitsForResizes = phase.waitForResizes && endsAt !== undefined;
  const mainUntil = endsAt === undefined ? undefined : hostTime(endsAt) + (waitsForResizes ? RESIZE_WAIT_LIMIT_S * 1000 : 0);
  const stopper = async () => {
    const stopping = () => ctx.aborted() || clientsStopping;
    if (waitsForResizes) {
      // A durable timer to the phase's end (nothing else need wake the workflow then), and from
      // there until no resize is moving: resizes only start before the end, so none will start.
      const untilEnd = endsAt - Date.now();
      if (untilEnd <= 0 || !(await condition(stopping, untilEnd))) await condition(() => stopping() || resizing.size === 0);
    } else {
      await condition(stopping);
    }
    if (!clientsStopping) stopClients();
  };

  // Telemetry and probes for as long as any client runs; stopped (cancelled) once they are done.
  const monitorScope = new CancellationScope();
  const sink = { runId: ctx.runId, cellId: ctx.cell.cellId, phaseIndex: ctx.phases.indexOf(record) };
  // Never rejects: a monitor that failed for good (a write the disk refused) stops the phase, like any other part.
  const monitoring = monitorScope
    .run(() => monitor.monitorPhase({ fleet: ctx.cell.fleet, sink, nodes: ctx.cell.nodes, originMs, database: ctx.cell.database }))
    .catch((err) => {
      if (isCancellation(err)) return;
      failure ??= err;
      stopAll();
    });

  await CancellationScope.cancellable(async () => {
    const scope = CancellationScope.current();
    stopAll = () => scope.cancel();
    clientScope = new CancellationScope();
    const main = startClient({ record, ycsb: phase.ycsb, originMs, untilMs: mainUntil, operations: phase.operations, label: phase.name })
      // Resizes requested before this and still running are marked as they finish.
      .then(() => void (workloadEndS = (Date.now() - startedAt) / 1000));
    // Tracked like every part: cancelled with the phase, it must not be a rejection nobody awaits yet.
    const stop = track(stopper());
    await Promise.all([main, ...[...lanes.values()].map(lane)].map(track));
    await Promise.all([...clients.values()].map((c) => c.done));
    clientsStopping = true;
    await stop;
  }).finally(() => monitorScope.cancel());
  await monitoring;
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrown as it was caught (the check narrows unknown to {})
  if (failure !== undefined) throw failure;

  if (ctx.aborted()) return;
  if (phase.ycsb.check) {
    ctx.report({ step: `${phase.name}: checking consistency`, nextEvent: undefined });
    record.consistency = await load.checkConsistency.executeWithOptions(checkOptions, [
      {
        fleet: ctx.cell.fleet,
        database: ctx.cell.database,
        runId: ctx.runId,
        cellId: ctx.cell.cellId,
        phaseIndexes: [record, ...rampedPhases].map((p) => ctx.phases.indexOf(p)),
        originMs,
        settings: phase.ycsb,
      },
    ]);
  }
  ctx.report({ step: `${phase.name}: measuring after`, nextEvent: undefined });
  const endS = (Date.now() - startedAt) / 1000;
  for (const m of phase.measure) await fire(ctx, record, measurementEvent(m, endS, 'after'));
}

/**
 * A resize that completed after the phase's workload ended: its record says so, so no table
 * reads its settle time as complete within the phase.
 */
function markStillMoving(record: PhaseRecord, event: RecordedEvent, workloadEndS: number): void {
  const endS = Math.round(workloadEndS);
  event.detail = { ...event.detail, stillMovingAtPhaseEndS: endS };
  const resize = record.resizes.at(-1);
  if (resize && resize.requestedAt === event.requestedAt) resize.stillMovingAtPhaseEndS = endS;
}
