/**
 * `fragbench results verify <run>`: reads a stored run, cell records and any streams still on
 * disk (a cell whose run died before recording it), and checks each phase (core/verify-run.ts).
 */
import type { ResultsStore, PhaseStream } from '../services/results/results-store';
import type { RecordedEvent } from '../core/events';
import type { Sample } from '../core/samples';
import { checkPhase, problemsOf, type PhaseCheck } from '../core/verify-run';

const STREAMS: PhaseStream[] = ['samples', 'telemetry', 'probes', 'faults', 'paths', 'consistency'];

export interface RunVerification {
  runId: string;
  status: string;
  checks: PhaseCheck[];
  problems: string[];
}

async function streamedChecks(store: ResultsStore, runId: string, cellId: string): Promise<PhaseCheck[]> {
  const checks: PhaseCheck[] = [];
  for (const phaseIndex of await store.streamedPhases(runId, cellId)) {
    const samples = await store.readStreamLines<Sample>(runId, cellId, phaseIndex, 'samples');
    const faults = await store.readStream<RecordedEvent>(runId, cellId, phaseIndex, 'faults');
    const check = checkPhase(cellId, `phase ${phaseIndex} (streamed, not recorded)`, samples.records, faults);
    for (const stream of STREAMS) {
      const { unparsable } = await store.readStreamLines(runId, cellId, phaseIndex, stream);
      check.unparsableLines.push(...unparsable.map((u) => ({ stream, ...u })));
    }
    checks.push(check);
  }
  return checks;
}

export async function verifyStoredRun(store: ResultsStore, runId: string): Promise<RunVerification> {
  const run = await store.readRun(runId);
  const checks: PhaseCheck[] = [];
  const problems: string[] = [];
  for (const cellId of run.cellIds) {
    const record = await store.readCell(runId, cellId).catch(() => undefined);
    if (record) {
      for (const phase of record.phases) {
        if (phase.samples.length > 0) checks.push(checkPhase(cellId, phase.name, phase.samples, phase.events));
      }
    } else if (run.status === 'completed') {
      problems.push(`${cellId}: the run completed but this cell's record is missing`);
    }
    checks.push(...(await streamedChecks(store, runId, cellId)));
  }
  problems.push(...checks.flatMap(problemsOf));
  return { runId, status: run.status, checks, problems };
}

export function formatVerification(v: RunVerification): string {
  const lines = [`run ${v.runId} (${v.status})`];
  for (const c of v.checks) {
    const gaps = c.gaps.map((g) => `${g.afterS + 1}-${g.beforeS - 1} s${g.explainedBy ? ` (explained: ${g.explainedBy})` : ''}`);
    lines.push(`  ${c.cellId} ${c.phase}: ${c.seconds} s of samples${gaps.length ? `; gaps ${gaps.join(', ')}` : '; no gap'}`);
  }
  lines.push(v.problems.length === 0 ? 'verified: no gap, duplicate, bad value or corrupt line' : `${v.problems.length} problem(s):`);
  lines.push(...v.problems.map((p) => `  ${p}`));
  return lines.join('\n');
}
