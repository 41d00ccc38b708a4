/**
 * Following a run from the terminal: one line per second from the run's `progress` query and the
 * running load window's latest heartbeat (the per-second sample ycsbRun reports), then the
 * summary table. Reads only; stopping a run is the caller's business.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { LoadProgress } from '../activities/load';
import type { ResizeSummary } from '../core/run-record';
import { sleep } from '../platform/wait';
import { verdictText } from '../report/validity';
import type { Sample } from '../core/samples';
import { progressQuery, type CellProgress, type CellResult, type RunProgress, type RunSummary } from '../workflows/definitions';

function isSample(value: unknown): value is Sample {
  return typeof value === 'object' && value !== null && 'okPerS' in value && 'time' in value;
}

/** ycsbRun heartbeats its progress with the latest sample (activities/load.ts LoadProgress). */
function latestOf(details: unknown): Sample | undefined {
  const latest = (details as Partial<LoadProgress> | undefined)?.latest;
  return isSample(latest) ? latest : undefined;
}

/** The newest sample a running ycsbRun has heartbeated, if the cell is in a load window. */
export async function liveSample(client: Client, cellWorkflowId: string): Promise<Sample | undefined> {
  const { raw } = await client.workflow.getHandle(cellWorkflowId).describe();
  const samples = (raw.pendingActivities ?? [])
    .filter((a) => a.activityType?.name === 'ycsbRun')
    .flatMap((a) => a.heartbeatDetails?.payloads ?? [])
    .map((p) => latestOf(defaultPayloadConverter.fromPayload(p)))
    .filter((s): s is Sample => s !== undefined);
  return samples.sort((a, b) => b.time - a.time)[0];
}

function latency(sample: Sample): string {
  return Object.entries(sample.ops)
    .filter(([, op]) => op?.latencyUs)
    .map(([type, op]) => `${type} ${Math.round(op.latencyUs!.avg)}us`)
    .join(' ');
}

/** One status line, e.g. `[1/2 c1-redis] run t=37s ok 1234/s failed 0/s READ 512us | last cut a-b/0 | next LSF 0.2 at 60s`. */
export function statusLine(progress: RunProgress, sample: Sample | undefined): string {
  const cell: CellProgress | undefined = progress.cell;
  const parts = [`[${progress.cellIndex ?? 0}/${progress.cellCount ?? '?'} ${cell?.cellId ?? '-'}]`, cell?.step ?? progress.status];
  if (sample) {
    const t = cell?.phaseStartedAt ? Math.round((sample.time - cell.phaseStartedAt) / 1000) : sample.elapsedS;
    parts.push(`t=${t}s ok ${sample.okPerS}/s failed ${sample.failedPerS}/s ${latency(sample)}`.trimEnd());
  }
  if (cell?.running?.length) parts.push(`| running: ${cell.running.join(', ')}`);
  if (cell?.lastEvent) parts.push(`| last: ${cell.lastEvent.label}`);
  if (cell?.nextEvent) parts.push(`| next: ${cell.nextEvent.label} at ${Math.round(cell.nextEvent.atS)}s`);
  return parts.join(' ');
}

/** Polls once a second until the workflow closes; prints a line whenever something changed. */
export async function follow(client: Client, handle: WorkflowHandle, print: (line: string) => void = console.log): Promise<RunSummary> {
  const result = handle.result() as Promise<RunSummary>;
  let closed = false;
  result.then(
    () => (closed = true),
    () => (closed = true),
  );
  let last = '';
  while (!closed) {
    const progress = (await handle.query(progressQuery).catch(() => undefined)) as RunProgress | undefined;
    if (progress) {
      const sample = progress.cellWorkflowId ? await liveSample(client, progress.cellWorkflowId).catch(() => undefined) : undefined;
      const line = statusLine(progress, sample ?? progress.cell?.latestSamples.at(-1));
      if (line !== last) print(line);
      last = line;
    }
    await Promise.race([result.catch(() => undefined), sleep(1_000)]);
  }
  return result;
}

const fixed = (n: number | undefined, digits: number) => (n === undefined ? '-' : n.toFixed(digits));

/** `remove seoul: accepted 1.4 s, completed 214 s (still moving when the phase ended at 120 s)` */
export function describeResize(r: ResizeSummary): string {
  const at = (s: number | undefined) => (s === undefined ? 'never' : `${s} s`);
  const still = r.stillMovingAtPhaseEndS === undefined ? '' : ` (still moving when the phase ended at ${r.stillMovingAtPhaseEndS} s)`;
  return `${r.label}: accepted ${at(r.acceptedAfterS)}, completed ${at(r.completedAfterS)}${still}`;
}

/**
 * The cells as a table: throughput, normalized throughput, failures, zero seconds, then each
 * resize's acceptance and completion and, separately, when throughput settled after it.
 */
export function summaryTable(cells: CellResult[]): string {
  const header = [
    'cell',
    'status',
    'validity',
    'ops/s',
    'normalized',
    'ok',
    'failed',
    'error %',
    'zero s',
    'resizes (after request)',
    'throughput settled s',
  ];
  const rows = cells.map((c) => {
    const s = c.summary;
    const settle = s
      ? Object.entries(s.settleSeconds)
          .map(([label, sec]) => `${label}: ${sec}`)
          .join(', ')
      : '';
    const resizes = (s?.resizes ?? []).map(describeResize).join('; ');
    return [
      c.cellId,
      c.status,
      s ? verdictText(s.verdict) : '-',
      fixed(s?.throughputOpsPerS, 1),
      fixed(s?.normalizedThroughput, 3),
      String(s?.okOps ?? '-'),
      String(s?.failedOps ?? '-'),
      fixed(s?.errorPercent, 2),
      String(s?.zeroSeconds ?? '-'),
      resizes || '-',
      settle || '-',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const failures = cells.filter((c) => c.error).map((c) => `${c.cellId}: ${c.error}`);
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ...failures].join('\n');
}
