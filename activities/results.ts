/**
 * The results activities: the engine records a run's start, each finished cell, and the run's
 * end through these; the end also completes the summaries that need the whole matrix and
 * renders the report. Every write is atomic and every step may be retried.
 */
import { InputError } from '../core/errors';
import type { CellRecord, PhaseRecord, RunRecord } from '../core/run-record';
import { latestPerSecond, totalsFromSamples } from '../core/samples';
import type { RecordedEvent } from '../core/events';
import type { TelemetrySample } from '../core/telemetry';
import { phaseVerdict, type RttProbe } from '../core/verdict';
import { runReference } from '../report/build-report';
import { normalizeCells, summarizeCell } from '../report/summary';
import { writeReport } from '../report/write-report';
import type { ResultsActivities } from './contracts';
import { ResultsStore, checkPathSegment, defaultResultsDir } from '../services/results/results-store';

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

function checkRecord(record: RunRecord): void {
  checkPathSegment(record.runId, 'record.runId');
  record.cellIds.forEach((id, i) => checkPathSegment(id, `record.cellIds[${i}]`));
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
 * samples (one per second), and totals made from them where no client's summary came back.
 */
async function withStreams(results: ResultsStore, runId: string, cellId: string, phaseIndex: number, phase: PhaseRecord): Promise<PhaseRecord> {
  const streamed = await results.readSampleStream(runId, cellId, phaseIndex);
  const telemetry = await results.readStream<TelemetrySample>(runId, cellId, phaseIndex, 'telemetry');
  const probes = await results.readStream<RttProbe>(runId, cellId, phaseIndex, 'probes');
  const faults = await results.readStream<RecordedEvent>(runId, cellId, phaseIndex, 'faults');
  const samples = latestPerSecond([...streamed, ...phase.samples]);
  const events = [...phase.events, ...faults].sort((x, y) => x.requestedAt - y.requestedAt);
  const joined: PhaseRecord = { ...phase, samples, events };
  if (samples.length > 0) joined.totals = phase.totals ?? totalsFromSamples(samples);
  // A phase that was monitored is judged; a setup phase (flush, load) never is.
  if (telemetry.length > 0 || probes.length > 0) {
    Object.assign(joined, { telemetry, probes, verdict: phaseVerdict({ phase: phase.name, warmup: phase.warmup, telemetry, probes, samples }) });
  }
  return joined;
}

/** root: the results directory; by default $FRAGBENCH_RESULTS_DIR or ./results, read at each call. */
export function createResultsActivities(root?: string): ResultsActivities {
  const store = () => new ResultsStore(root ?? defaultResultsDir());

  return {
    async recordRunStart({ record }) {
      checkRecord(record);
      const results = store();
      if (await results.hasRun(record.runId)) {
        const existing = await results.readRun(record.runId);
        // A retried start rewrites its own record; another run's results are never overwritten.
        if (existing.startedAt !== record.startedAt) {
          throw new InputError('record.runId', `run "${record.runId}" already exists in ${results.root} (started ${new Date(existing.startedAt).toISOString()}): choose another runId`);
        }
      }
      return { dir: await results.writeRun({ ...record, status: 'running' }) };
    },

    async recordSamples({ runId, cellId, phaseIndex, samples }) {
      await store().appendStream(runId, cellId, phaseIndex, 'samples', samples);
    },

    async recordCell({ runId, cell, reference }) {
      checkPathSegment(runId, 'runId');
      checkPathSegment(cell.cellId, 'cell.cellId');
      const results = store();
      return oneAtATime(runId, async () => {
        const run = await results.readRun(runId);
        const phases = await Promise.all(cell.phases.map((phase, i) => withStreams(results, runId, cell.cellId, i, phase)));
        const summary = summarizeCell(phases, reference);
        const whole: CellRecord = { ...cell, phases, summary };
        await results.writeCell(runId, whole);
        const cellIds = run.cellIds.includes(cell.cellId) ? run.cellIds : [...run.cellIds, cell.cellId];
        await results.writeRun({ ...run, cellIds, ...clusterFacts(run, whole) });
        return summary;
      });
    },

    async finishRun({ runId, status, finishedAt }) {
      checkPathSegment(runId, 'runId');
      const results = store();
      await oneAtATime(runId, async () => {
        const run = await results.readRun(runId);
        const cells = await results.readCells(run);
        const normalized = normalizeCells(cells, runReference(run, cells));
        for (const [i, cell] of normalized.entries()) {
          if (JSON.stringify(cell.summary) !== JSON.stringify(cells[i].summary)) await results.writeCell(runId, cell);
        }
        // Every cell's record holds its samples now.
        for (const cellId of run.cellIds) await results.removeStreams(runId, cellId);
        await results.writeRun({ ...run, status, finishedAt });
      });
      const { reportPath } = await writeReport(results, runId, { png: 'auto' });
      return { reportPath };
    },
  };
}

/** The activities as the worker registers them. */
export const resultsActivities: ResultsActivities = createResultsActivities();
