/**
 * Commands that run scenarios: `dev` (local Temporal + a worker), `worker`, `run`, `cancel`,
 * `abort`, and `quickstart` (the README's main command). A scenario is validated in full before
 * anything starts; a followed run is cancelled (and so cleaned up) on Ctrl-C.
 */
import type { Command } from 'commander';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { runIsLiveVia } from '../operations/fleet/fleet-lease';
import { loadScenario, readScenarioFile } from '../operations/scenario/scenario-loader';
import { fleetBusyMessage } from '../core/fleet-lease';
import { formatPlanView } from '../core/plan-view';
import { liveLeaseOfAnother } from '../infra/local/lease';
import type { PlanOptions } from '../core/scenario-plan';
import { fleetOverride, planOptions, scenarioPath, scenarioPlan } from './validate';
import { connectClient, LOCAL_ADDRESS, describeTarget, temporalSettings, workflowUiLink, type TemporalSettings } from '../worker/connection';
import { stopDevServer, UI_ADDRESS } from '../worker/dev-server';
import { DevServerKeeper, DevSupervisor } from '../worker/dev-supervisor';
import { statePaths } from '../platform/paths';
import { abortSignal, type ScenarioInput } from '../workflows/definitions';
import { positiveNumber } from './options';
import { followRun } from './run-follow';

const QUICKSTART_SCENARIO = 'scenarios/quickstart.yaml';

/** The worker and its activities load only for the commands that run one (require: tsx runs the CLI as CommonJS). */
function loadWorker(): typeof import('../worker/worker') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bin/ registers tsx for require only: import() would reach Node's ESM loader, which cannot load .ts
  return require('../worker/worker') as typeof import('../worker/worker');
}

function workflowIdFor(scenario: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${scenario}-${stamp}`;
}

interface FleetChoice {
  /** Leave a fleet the run brings up running at the end. */
  keepFleet?: boolean;
  /** Require the local fleet up already (`fleet: existing`). */
  existingFleet?: boolean;
  /** Wait for a run that holds the fleet instead of being refused. */
  wait?: boolean;
  /** Run on this Pulumi stack's inventory instead of the scenario's fleet. */
  stack?: string;
}

/**
 * Validates (against the scenario's topology; the workflow brings the fleet up), refuses at once
 * while another live run holds the fleet, then starts the scenario workflow.
 */
export async function startRun(client: Client, settings: TemporalSettings, scenarioFile: string, options: PlanOptions, fleet: FleetChoice = {}) {
  const { value, plan, view } = await scenarioPlan(scenarioFile, options, fleetOverride(fleet));
  const holder = await liveLeaseOfAnother('', runIsLiveVia(client));
  if (holder && !fleet.wait) throw new Error(`${fleetBusyMessage(holder)}; or queue behind it with --wait`);
  if (holder) console.log(`${fleetBusyMessage(holder)}: this run waits for it`);
  const input: ScenarioInput = {
    scenario: value,
    options,
    keepFleet: fleet.keepFleet,
    fleet: fleet.existingFleet ? 'existing' : 'auto',
    waitForFleet: fleet.wait,
  };
  const handle = await client.workflow.start('scenarioWorkflow', {
    taskQueue: settings.taskQueue,
    workflowId: workflowIdFor(plan.scenario),
    args: [input],
  });
  console.log(formatPlanView(view));
  console.log(`started run ${handle.workflowId}: ${workflowUiLink(settings, handle.workflowId)}`);
  return handle;
}

/** Follows a run this command started; Ctrl-C cancels it (and so cleans up). Returns an exit code. */
async function followToEnd(client: Client, handle: WorkflowHandle): Promise<number> {
  return (await followRun(client, handle, 'cancel')).code;
}

/**
 * With no server at the local default address, `run` offers what the quickstart does: start the
 * dev server and run a worker in this process for the run. It asks on a terminal; elsewhere the
 * error names `--local`.
 */
async function connectOrOfferLocal(settings: TemporalSettings): Promise<Client | 'local'> {
  try {
    return await connectClient(settings);
  } catch (err) {
    if (settings.address !== LOCAL_ADDRESS) throw err;
    if (!process.stdin.isTTY) throw new Error(`${(err as Error).message}; or run again with --local, which starts both for this run`, { cause: err });
    const readline = await import('node:readline/promises');
    const prompt = readline.createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question(`No Temporal server at ${LOCAL_ADDRESS}. Start the local dev server and a worker for this run? [Y/n] `);
    prompt.close();
    if (/^n/i.test(answer.trim())) throw err;
    return 'local';
  }
}

async function runCommand(scenarioArg: string, opts: { follow?: boolean; dryRun?: boolean; timeScale?: number; local?: boolean } & FleetChoice) {
  const file = scenarioPath(scenarioArg);
  const options = planOptions(opts);
  if (opts.dryRun) {
    console.log(formatPlanView((await scenarioPlan(file, options, fleetOverride(opts))).view));
    return;
  }
  const settings = temporalSettings();
  const client = opts.local ? 'local' : await connectOrOfferLocal(settings);
  if (client === 'local') {
    await runWithLocalWorker(file, options, opts);
    return;
  }
  const handle = await startRun(client, settings, file, options, opts);
  if (!opts.follow) {
    console.log(
      `follow it with: fragbench follow ${handle.workflowId} (or in the UI); stop it with: fragbench abort ${handle.workflowId} (keeps results) / fragbench cancel ${handle.workflowId}`,
    );
    return;
  }
  process.exitCode = await followToEnd(client, handle);
}

async function quickstart(opts: { timeScale?: number }) {
  const options = planOptions(opts);
  await loadScenario(readScenarioFile(QUICKSTART_SCENARIO), 'offline', options);
  await runWithLocalWorker(QUICKSTART_SCENARIO, options);
}

/** The local dev server (started if none answers) and a worker in this process, for one followed run. */
async function runWithLocalWorker(scenarioFile: string, options: PlanOptions, fleet: FleetChoice = {}) {
  await withLocalWorker(async (client, settings) => {
    // The run brings its fleet up first and takes it down last (workflows/scenario.ts).
    const handle = await startRun(client, settings, scenarioFile, options, fleet);
    process.exitCode = await followToEnd(client, handle);
    console.log(`Temporal UI: ${workflowUiLink(settings, handle.workflowId)} (stop the dev server with \`fragbench dev --stop\`)`);
  });
}

/**
 * The local dev server (started if none answers) and a worker in this process while `body` runs
 * followed runs through the client; the worker stops after it.
 */
export async function withLocalWorker(body: (client: Client, settings: TemporalSettings) => Promise<void>): Promise<void> {
  // The in-process worker must outlive a Ctrl-C long enough to run the run's cleanup.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded here, not at the top, in the CommonJS the whole CLI runs as (see loadWorker)
  const { DefaultLogger, Runtime } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  // The live lines say what the worker does; its own log would bury them.
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('ERROR') });
  // The dev server is kept running for the run (restarted on its history if it dies); this worker is this process.
  const server = new DevServerKeeper((err) => console.error(`fragbench: the Temporal dev server could not be restarted: ${err.message}`));
  await server.start();
  const settings = temporalSettings();
  const { createWorker } = loadWorker();
  const worker = await createWorker({ settings });
  const workerDone = worker.run();
  console.log(`worker polling ${describeTarget(settings)}`);
  try {
    await body(await connectClient(settings), settings);
  } finally {
    server.stop();
    worker.shutdown();
    await workerDone;
  }
}

async function signalRun(workflowId: string, how: 'cancel' | 'abort') {
  const settings = temporalSettings();
  const client = await connectClient(settings);
  const handle = client.workflow.getHandle(workflowId);
  if (how === 'cancel') await handle.cancel();
  else await handle.signal(abortSignal, 'requested from the CLI');
  console.log(`${how} sent to ${workflowId}`);
}

export function registerRunCommands(program: Command): void {
  program
    .command('dev')
    .description(
      `start a local Temporal dev server if none answers on ${LOCAL_ADDRESS} (UI ${UI_ADDRESS}; FRAGBENCH_DEV_PORT moves both), then run a worker; both are restarted if they die`,
    )
    .option('--stop', 'stop the dev server this project started, and exit')
    .action(async (opts: { stop?: boolean }) => {
      if (opts.stop) {
        console.log((await stopDevServer()) ? 'dev server stopped' : 'no dev server of ours was running');
        return;
      }
      const supervisor = new DevSupervisor();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void supervisor.stop());
      await supervisor.start();
      console.log(
        `Temporal UI: ${UI_ADDRESS} (the server and the worker are restarted if they die; deaths in ${statePaths.devSupervision('faults.jsonl')})`,
      );
      await supervisor.finished();
    });

  program
    .command('worker')
    .description(
      'run a worker on the server the Temporal settings name (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_CLIENT_CERT_PATH/_KEY_PATH, a temporal.toml profile) and FRAGBENCH_TASK_QUEUE',
    )
    .action(async () => {
      await loadWorker().runWorker();
    });

  program
    .command('run <scenario>')
    .description('validate a scenario, then start it as a workflow that brings its fleet up, runs it, reports and takes the fleet down')
    .option('-f, --follow', 'print a live line per second and the summary at the end; Ctrl-C cancels the run')
    .option('--time-scale <factor>', 'shrink every interval, e.g. 0.1 to rehearse ten times faster', positiveNumber)
    .option('--dry-run', 'validate and print the plan; start nothing')
    .option('--keep-fleet', 'leave the fleet the run brings up running at the end, for inspection')
    .option('--existing-fleet', 'run on the local fleet already up (fragbench fleet up); do not bring one up')
    .option('--wait', 'if another run holds the fleet, wait for it instead of being refused')
    .option(
      '--stack <name>',
      "run on this Pulumi stack's inventory (its `pulumi up` output) instead of the scenario's fleet; the file is not changed",
    )
    .option(
      '--local',
      'start the local Temporal dev server if none answers and run a worker in this process for the run (as the quickstart does); implies --follow',
    )
    .action(runCommand);

  program
    .command('cancel <run>')
    .description('cancel a run now: load stops, links are restored, the cluster is stopped')
    .action((run: string) => signalRun(run, 'cancel'));

  program
    .command('abort <run>')
    .description('stop a run gracefully: its clients stop, no further event or cell starts, what ran is kept')
    .action((run: string) => signalRun(run, 'abort'));

  program
    .command('quickstart')
    .description('the local demo: dev server + worker, a small local fleet, Redis Cluster, YCSB through latency epochs, a resize and a link cut')
    .option('--time-scale <factor>', 'shrink every interval', positiveNumber)
    .action(quickstart);
}
