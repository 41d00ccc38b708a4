/**
 * `fragbench runs [--json]`, `runs show <run>` and `follow <run>`: the recorded runs, one run's
 * status, cells and report, and a run followed again from the terminal. Statuses combine the
 * results store with the run's workflow (cli/run-status.ts).
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { CellRecord, RunRecord } from '../core/run-record';
import { InputError } from '../core/errors';
import { ResultsStore } from '../services/results/results-store';
import { describeTarget, temporalSettings, workflowUiLink, connectClient, type TemporalSettings } from '../worker/connection';
import { runIdFor, type RunSummary } from '../workflows/definitions';
import { locateRun } from './run-location';
import { followRun, summaryOfFailure, summaryTable, type SummaryRow } from './run-follow';
import { listedStatus, reachTemporal, unreachableNote, workflowIdOf, workflowState, workflowText, type WorkflowState } from './run-status';
import { textTable } from './text-table';

const say = (line: string) => console.log(line);
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The workflows' states for the runs, or why they could not be asked. */
async function statesOf(runs: RunRecord[], settings: TemporalSettings): Promise<{ states: Map<string, WorkflowState>; unreachable?: string }> {
  const states = new Map<string, WorkflowState>();
  if (runs.length === 0) return { states };
  const reached = await reachTemporal(settings);
  if ('unreachable' in reached) return { states, unreachable: reached.unreachable };
  await Promise.all(runs.map(async (run) => states.set(run.runId, await workflowState(reached.client, workflowIdOf(run)))));
  return { states };
}

/** A run as `runs --json` and `runs show --json` give it. */
function runJson(store: ResultsStore, run: RunRecord, state: WorkflowState | undefined) {
  const report = store.reportFile(run.runId);
  return {
    runId: run.runId,
    workflowId: workflowIdOf(run),
    scenario: run.scenario,
    experiment: run.experiment,
    status: listedStatus(run, state),
    recordedStatus: run.status,
    workflowStatus: workflowText(state),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    cells: run.cellIds.length,
    lossSeed: run.lossSeed ?? null,
    report: existsSync(report) ? report : null,
  };
}

async function listRuns(opts: { json?: boolean }): Promise<void> {
  const store = new ResultsStore();
  const runs = await store.listRuns();
  if (runs.length === 0 && !opts.json) {
    say(`no runs under ${store.root}`);
    return;
  }
  const { states, unreachable } = await statesOf(runs, temporalSettings());
  if (unreachable) console.error(unreachableNote(unreachable));
  if (opts.json) {
    say(
      JSON.stringify(
        runs.map((r) => runJson(store, r, states.get(r.runId))),
        null,
        2,
      ),
    );
    return;
  }
  const header = ['RUN', 'SCENARIO', 'STATUS', 'STARTED (UTC)', 'CELLS', 'LOSS SEED'];
  const rows = runs.map((r) => [
    r.runId,
    r.scenario,
    listedStatus(r, states.get(r.runId)),
    new Date(r.startedAt).toISOString().slice(0, 19).replace('T', ' '),
    String(r.cellIds.length),
    r.lossSeed === undefined ? '-' : String(r.lossSeed),
  ]);
  say(textTable([header, ...rows]));
}

/**
 * A run named on the command line: a run id or run directory in the store, or the id of its
 * workflow (a run started from the UI with an id that is not a directory name).
 */
async function findRun(arg: string): Promise<{ store: ResultsStore; run: RunRecord }> {
  const { store, runId } = locateRun(arg);
  if (await store.hasRun(runId)) return { store, run: await store.readRun(runId) };
  const byWorkflow = (await store.listRuns()).find((r) => r.workflowId === arg);
  if (byWorkflow) return { store, run: byWorkflow };
  return { store, run: await store.readRun(runIdFor(arg)) };
}

/** Each cell's status as the ended workflow returned it, where it returned a summary. */
async function endedCellStatuses(client: Client, workflowId: string): Promise<Map<string, string>> {
  let summary: RunSummary | undefined;
  try {
    summary = (await client.workflow.getHandle(workflowId).result()) as RunSummary;
  } catch (err) {
    summary = summaryOfFailure(err);
  }
  return new Map((summary?.cells ?? []).map((c) => [c.cellId, c.status]));
}

function cellRows(run: RunRecord, cells: CellRecord[], statuses: Map<string, string>, running: boolean): SummaryRow[] {
  return run.cellIds.map((cellId) => {
    const record = cells.find((c) => c.cellId === cellId);
    const status = statuses.get(cellId) ?? (record ? 'recorded' : running ? 'to come' : 'not recorded');
    return { cellId, status, summary: record?.summary };
  });
}

async function showRun(arg: string, opts: { json?: boolean }): Promise<void> {
  const { store, run } = await findRun(arg);
  const cells = await store.readCells(run);
  const settings = temporalSettings();
  const reached = await reachTemporal(settings);
  const client = 'client' in reached ? reached.client : undefined;
  const state = client ? await workflowState(client, workflowIdOf(run)) : undefined;
  const statuses = client && state?.kind === 'ended' ? await endedCellStatuses(client, workflowIdOf(run)) : new Map<string, string>();
  const rows = cellRows(run, cells, statuses, state?.kind === 'running' || run.status === 'running');
  if (opts.json) {
    const cellJson = rows.map((r) => ({
      cellId: r.cellId,
      status: r.status,
      coordinates: cells.find((c) => c.cellId === r.cellId)?.coordinates ?? null,
      verdict: r.summary?.verdict?.verdict ?? null,
      summary: r.summary ?? null,
    }));
    say(JSON.stringify({ ...runJson(store, run, state), cells: cellJson }, null, 2));
    return;
  }
  const report = store.reportFile(run.runId);
  const workflow = !client
    ? `not checked (${'unreachable' in reached ? reached.unreachable : ''})`
    : `${workflowText(state)} on ${describeTarget(settings)}`;
  say(
    textTable([
      ['run', run.runId],
      ['scenario', `${run.scenario} (experiment: ${run.experiment})`],
      ['status', listedStatus(run, state)],
      ['workflow', `${workflowIdOf(run)}: ${workflow}`],
      ['UI', workflowUiLink(settings, workflowIdOf(run))],
      ['started', iso(run.startedAt) ?? '-'],
      ['finished', iso(run.finishedAt) ?? '-'],
      ['report', existsSync(report) ? report : `not written yet (fragbench report ${run.runId} writes it)`],
    ]),
  );
  say(`\n${summaryTable(rows)}`);
}

/** Follows a run again: the live lines while it runs, then its summary; Ctrl-C leaves it running. */
async function followCommand(arg: string): Promise<void> {
  const settings = temporalSettings();
  // A run id from the store when there is one (its workflow may have another id), else the argument as given.
  const workflowId = await findRun(arg).then(
    ({ run }) => workflowIdOf(run),
    () => arg,
  );
  const client = await connectClient(settings);
  const state = await workflowState(client, workflowId);
  if (state.kind === 'not found') {
    throw new InputError('run', `no workflow "${workflowId}" on ${describeTarget(settings)}; list the recorded runs with \`fragbench runs\``);
  }
  say(`following ${workflowId} (${state.kind === 'running' ? 'running' : `ended: ${state.status}`}): ${workflowUiLink(settings, workflowId)}`);
  process.exitCode = (await followRun(client, client.workflow.getHandle(workflowId), 'detach', state.kind === 'ended')).code;
}

export function registerRunsCommands(program: Command): void {
  const runs = program
    .command('runs')
    .description(
      'list the recorded runs, newest first; a run is completed once its workflow has ended (asked of the Temporal server when one answers)',
    )
    .option('--json', 'the runs as JSON: ids, scenario, status (recorded and the workflow’s), times, cells, report path')
    // `runs show <run> --json` is show's option, not the listing's (main.ts enables the same above).
    .enablePositionalOptions()
    .action(listRuns);

  runs
    .command('show')
    .argument('<run>', 'a run id (see `fragbench runs`), a run directory, or the run’s workflow id')
    .option('--json', 'the same as JSON')
    .description('one run: its status, its workflow and UI link, where its report is, and each cell with its verdict')
    .action(showRun);

  program
    .command('follow')
    .argument('<run>', 'a run id or workflow id')
    .description('follow a running (or finished) run again: a live line per second, then its summary; Ctrl-C leaves the run running')
    .action(followCommand);
}
