/**
 * Recording a run as the engine runs it: its start, each phase's samples as they stream, each
 * finished cell (its phases joined with their streams, judged and summarized), and its end (the
 * summaries that need the whole matrix completed). Every write is atomic and every step may be
 * repeated, so a retried call leaves the same records. Rendering the report is not part of
 * recording: the report sits above the services and is written by whoever finishes the run.
 */
import { normalizeCells, summarizeCell, type ReferenceSummary } from '../../core/cell-summary';
import { runReference } from '../../core/cell-reference';
import { InputError } from '../../core/errors';
import type { RecordedEvent } from '../../core/events';
import type { CellRecord, CellSummary, PhaseRecord, RunRecord } from '../../core/run-record';
import { latestPerSecond, totalsFromSamples, type Sample } from '../../core/samples';
import type { TelemetrySample } from '../../core/telemetry';
import type { PathChange } from '../../core/overlay-path';
import type { ConsistencySecond } from '../../core/consistency/consistency';
import { phaseVerdict, withRunPhaseVerdicts, type RttProbe } from '../../core/verdict';
import { ResultsStore, checkPathSegment } from './results-store';

// run.json is read, changed and rewritten by recordCell and finishRun: one change at a time per run.
const pending = new Map<string, Promise<unknown>>();

function oneAtATime<T>(runId: string, work: () => Promise<T>): Promise<T> {
  const previous = pending.get(runId) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  pending.set(runId, next);
  return next.finally(() => {
    if (pending.get(runId) === next) pending.delete(runId);
  });
}

/** A cell's database flags and version join the run's, so every figure can show them. */
function clusterFacts(run: RunRecord, cell: CellRecord): Pick<RunRecord, 'nonDefaultSettings' | 'versions'> {
  if (!cell.cluster) return { nonDefaultSettings: run.nonDefaultSettings, versions: run.versions };
  const { database, version, nonDefaultSettings } = cell.cluster;
  const flags = Object.fromEntries(Object.entries(nonDefaultSettings).map(([k, v]) => [`${database}: ${k}`, v]));
  return {
    nonDefaultSettings: { ...run.nonDefaultSettings, ...flags },
    versions: { ...run.versions, [database]: version },
  };
}

/**
 * A phase as the workflow recorded it, joined with what its activities streamed to the store:
 * samples (one per second), and totals made from them where no client's summary came back; a
 * checked phase's consistency seconds.
 */
async function withStreams(results: ResultsStore, runId: string, cellId: string, phaseIndex: number, phase: PhaseRecord): Promise<PhaseRecord> {
  const streamed = await results.readSampleStream(runId, cellId, phaseIndex);
  const telemetry = await results.readStream<TelemetrySample>(runId, cellId, phaseIndex, 'telemetry');
  const probes = await results.readStream<RttProbe>(runId, cellId, phaseIndex, 'probes');
  const faults = await results.readStream<RecordedEvent>(runId, cellId, phaseIndex, 'faults');
  const paths = await results.readStream<PathChange>(runId, cellId, phaseIndex, 'paths');
  const samples = latestPerSecond([...streamed, ...phase.samples]);
  const events = [...phase.events, ...faults].sort((x, y) => x.requestedAt - y.requestedAt);
  const joined: PhaseRecord = { ...phase, samples, events, ...(paths.length > 0 ? { paths } : {}) };
  if (phase.consistency) {
    const seconds = await results.readStream<ConsistencySecond>(runId, cellId, phaseIndex, 'consistency');
    joined.consistency = { ...phase.consistency, seconds: seconds.length > 0 ? seconds : phase.consistency.seconds };
  }
  if (samples.length > 0) joined.totals = phase.totals ?? totalsFromSamples(samples);
  // A phase that was monitored is judged; a setup phase (flush, load) never is.
  if (telemetry.length > 0 || probes.length > 0) {
    Object.assign(joined, { telemetry, probes, verdict: phaseVerdict({ phase: phase.name, warmup: phase.warmup, telemetry, probes, samples }) });
  }
  return joined;
}

/** Creates the run's directory and writes run.json (status running); returns the directory. */
export async function recordRunStart(results: ResultsStore, record: RunRecord): Promise<string> {
  checkPathSegment(record.runId, 'record.runId');
  record.cellIds.forEach((id, i) => checkPathSegment(id, `record.cellIds[${i}]`));
  if (await results.hasRun(record.runId)) {
    const existing = await results.readRun(record.runId);
    // A retried start rewrites its own record; another run's results are never overwritten.
    if (existing.startedAt !== record.startedAt) {
      throw new InputError('record.runId', `run "${record.runId}" already exists in ${results.root} (started ${new Date(existing.startedAt).toISOString()}): choose another runId`);
    }
  }
  return results.writeRun({ ...record, status: 'running' });
}

/** Adds samples to a phase's stream; storing a second again replaces it. */
export async function recordSamples(results: ResultsStore, runId: string, cellId: string, phaseIndex: number, samples: Sample[]): Promise<void> {
  await results.appendStream(runId, cellId, phaseIndex, 'samples', samples);
}

/**
 * Writes one finished cell, its phases joined with their streams, and adds it to the run;
 * returns its summary (normalized against `reference`, the reference cell's, when given).
 */
export async function recordCell(results: ResultsStore, runId: string, cell: Omit<CellRecord, 'summary'>, reference?: ReferenceSummary): Promise<CellSummary> {
  checkPathSegment(runId, 'runId');
  checkPathSegment(cell.cellId, 'cell.cellId');
  return oneAtATime(runId, async () => {
    const run = await results.readRun(runId);
    const phases = withRunPhaseVerdicts(await Promise.all(cell.phases.map((phase, i) => withStreams(results, runId, cell.cellId, i, phase))));
    const summary = summarizeCell(phases, reference);
    const whole: CellRecord = { ...cell, phases, summary };
    await results.writeCell(runId, whole);
    const cellIds = run.cellIds.includes(cell.cellId) ? run.cellIds : [...run.cellIds, cell.cellId];
    await results.writeRun({ ...run, cellIds, ...clusterFacts(run, whole) });
    return summary;
  });
}

/**
 * Ends the run's records: every cell normalized against its reference cell (which may have
 * finished after it), the streams dropped (each cell's record holds its samples now), and the
 * run's status and end time written. The report is then the caller's to render.
 */
export async function finishRun(results: ResultsStore, runId: string, status: Exclude<RunRecord['status'], 'running'>, finishedAt: number): Promise<void> {
  checkPathSegment(runId, 'runId');
  await oneAtATime(runId, async () => {
    const run = await results.readRun(runId);
    const cells = await results.readCells(run);
    const normalized = normalizeCells(cells, runReference(run, cells));
    for (const [i, cell] of normalized.entries()) {
      if (JSON.stringify(cell.summary) !== JSON.stringify(cells[i].summary)) await results.writeCell(runId, cell);
    }
    for (const cellId of run.cellIds) await results.removeStreams(runId, cellId);
    await results.writeRun({ ...run, status, finishedAt });
  });
}
