/**
 * Following a run from the terminal: one line per second from the run's `progress` query (and
 * the running cell's own, which holds its latest seconds even where the run's view of them is
 * rationed), then the summary table. `run --follow`, `quickstart`, `reproduce` and `follow <run>`
 * all follow through `followRun`.
 */
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TerminatedFailure } from '@temporalio/common';
import type { ResizeSummary } from '../core/run-record';
import { sleep } from '../platform/wait';
import { verdictText } from '../report/validity';
import type { Sample } from '../core/samples';
import { progressQuery, type CellProgress, type CellResult, type RunProgress, type RunSummary } from '../workflows/definitions';
import { textTable } from './text-table';

/** The newest of a cell's latest seconds as its own `progress` query shows them (workflows/cell.ts). */
export async function liveSample(client: Client, cellWorkflowId: string): Promise<Sample | undefined> {
  const progress = (await client.workflow.getHandle(cellWorkflowId).query(progressQuery)) as CellProgress;
  return newestSample(progress.latestSamples);
}

function newestSample(samples: Sample[] | undefined): Sample | undefined {
  return [...(samples ?? [])].sort((a, b) => b.time - a.time)[0];
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
  // A query of a workflow that has ended waits for a worker to replay it, and none may be left:
  // every query gives way to the run's end.
  const unlessEnded = <T>(query: Promise<T>) => Promise.race([query.catch(() => undefined), result.then(noValue, noValue)]);
  let last = '';
  while (!closed) {
    const progress = (await unlessEnded(handle.query(progressQuery))) as RunProgress | undefined;
    if (progress) {
      const own = progress.cellWorkflowId ? await unlessEnded(liveSample(client, progress.cellWorkflowId)) : undefined;
      const line = statusLine(progress, own ?? newestSample(progress.cell?.latestSamples));
      if (line !== last) print(line);
      last = line;
    }
    await Promise.race([result.catch(() => undefined), sleep(1_000)]);
  }
  return result;
}

const noValue = () => undefined;

const fixed = (n: number | undefined, digits: number) => (n === undefined ? '-' : n.toFixed(digits));

/** `remove seoul: accepted 1.4 s, completed 214 s (still moving when the phase ended at 120 s)` */
export function describeResize(r: ResizeSummary): string {
  const at = (s: number | undefined) => (s === undefined ? 'never' : `${s} s`);
  const still = r.stillMovingAtPhaseEndS === undefined ? '' : ` (still moving when the phase ended at ${r.stillMovingAtPhaseEndS} s)`;
  return `${r.label}: accepted ${at(r.acceptedAfterS)}, completed ${at(r.completedAfterS)}${still}`;
}

/** A row of the summary: a cell as the run returned it, or as the results store holds it (`runs show`). */
export type SummaryRow = Pick<CellResult, 'cellId' | 'summary' | 'error'> & { status: string };

/**
 * The cells as a table: throughput, normalized throughput, failures, zero seconds, then each
 * resize's acceptance and completion and, separately, when throughput settled after it.
 */
export function summaryTable(cells: SummaryRow[]): string {
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
  const failures = cells.filter((c) => c.error).map((c) => `${c.cellId}: ${c.error}`);
  return [textTable([header, widths.map((w) => '-'.repeat(w)), ...rows]), ...failures].join('\n');
}

/** A failed run still has a summary: the workflow puts it in its failure's details. */
export function summaryOfFailure(err: unknown): RunSummary | undefined {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  return cause instanceof ApplicationFailure ? (cause.details?.[0] as RunSummary | undefined) : undefined;
}

/** How a run that left no summary ended: cancelled or terminated (its workflow's failure says). */
function endedWithoutSummary(err: unknown): string | undefined {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof CancelledFailure) return 'cancelled';
  if (cause instanceof TerminatedFailure) return 'terminated';
  return undefined;
}

function printSummary(summary: RunSummary): void {
  console.log(`\n${summaryTable(summary.cells)}`);
  if (summary.reportPath) console.log(`report: ${summary.reportPath}`);
}

/** What a followed run ended with: its exit code, and its summary where it left one (a cancelled run does not). */
export interface FollowedRun {
  code: number;
  summary?: RunSummary;
}

/**
 * What Ctrl-C does while following: `cancel` the run (the one the command started: its cleanup
 * restores links and stops the cluster, and following goes on until it closes), or `detach`
 * (a run followed again: it goes on without the terminal).
 */
export type OnInterrupt = 'cancel' | 'detach';

/**
 * Follows a run to its end (or prints at once how it ended, if it has), printing the live lines
 * and the summary. Returns the exit code: 0 completed, 1 otherwise, 130 after a Ctrl-C.
 */
export async function followRun(
  client: Client,
  handle: WorkflowHandle,
  onInterrupt: OnInterrupt = 'cancel',
  /** Known to have ended already: nothing to follow, and no query (it would wait for a worker to replay the run). */
  ended = false,
): Promise<FollowedRun> {
  let interrupted = false;
  const interrupt = () => {
    if (onInterrupt === 'detach') {
      console.log(`\ndetached; the run goes on (follow it again with: fragbench follow ${handle.workflowId})`);
      process.exit(130);
    }
    if (interrupted) process.exit(130);
    interrupted = true;
    console.log('\ncancelling the run: restoring links and stopping the cluster (Ctrl-C again to leave it to itself)');
    handle.cancel().catch((err: Error) => console.error(`cancel failed: ${err.message}`));
  };
  process.on('SIGINT', interrupt);
  try {
    const summary = ended ? ((await handle.result()) as RunSummary) : await follow(client, handle);
    printSummary(summary);
    return { code: summary.status === 'completed' ? 0 : 1, summary };
  } catch (err) {
    if (interrupted) {
      console.log('run cancelled; the fleet was cleaned up');
      return { code: 130 };
    }
    const summary = summaryOfFailure(err);
    if (summary) {
      printSummary(summary);
      return { code: 1, summary };
    }
    const ended = endedWithoutSummary(err);
    if (!ended) throw err;
    console.log(`run ${handle.workflowId} was ${ended}: it left no summary (what it recorded: fragbench runs show ${handle.workflowId})`);
    return { code: 1 };
  } finally {
    process.off('SIGINT', interrupt);
  }
}
