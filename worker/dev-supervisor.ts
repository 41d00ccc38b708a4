/**
 * `fragbench dev` keeps the local Temporal dev server and one worker running for as long as it
 * runs. A part that dies is found at once (the worker is its child, the server too when `dev`
 * started it; an adopted server is checked by PID twice a second), written down with its cause
 * in the state root's dev-faults.jsonl, and started again: the server on its own history file, so
 * runs go on where they were; the worker as a new process. The activities the dead worker held
 * are failed by ID at once, so Temporal retries them on the new worker now, not when their
 * heartbeat timeout runs out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { diesWithCaller } from '../platform/command';
import { describeExit, readPidFile, writePidFile, type ManagedProcess, type ProcessExit } from '../platform/process';
import { statePaths } from '../platform/paths';
import { sleep } from '../platform/wait';
import { connectClient, temporalSettings, type TemporalSettings } from './connection';
import { BUNDLE_FILE_VARIABLE, writeWorkflowBundle } from './worker';
import { DEV_SERVER, ensureDevServer } from './dev-server';

export type SupervisedPart = 'temporal-server' | 'worker';

/** One death `dev` found, and what it did about it: a line of dev-faults.jsonl. */
export interface DevFault {
  part: SupervisedPart;
  pid: number;
  cause: string;
  /** Epoch ms. */
  detectedAt: number;
  restartedAt?: number;
  newPid?: number;
  /** Activities the dead worker held, failed so that they are retried at once. */
  activitiesFailed?: number;
  restartFailed?: string;
}

/** A worker that dies this soon after its start, this many times in a row, is not started again. */
const QUICK_DEATH_MS = 10_000;
const QUICK_DEATHS_TO_GIVE_UP = 5;
const SERVER_CHECK_MS = 500;
const BIN = path.resolve(__dirname, '../bin/fragbench.js');

/** The worker SDK's default identity, which the server reports as the last worker of an activity. */
export const workerIdentity = (pid: number) => `${pid}@${hostname()}`;

/** Fails, by ID, every started activity whose last worker was `identity`; returns how many. */
export async function failActivitiesOf(settings: TemporalSettings, identity: string, cause: string): Promise<number> {
  const client = await connectClient(settings);
  try {
    let failed = 0;
    for await (const run of client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
      const handle = client.workflow.getHandle(run.workflowId, run.runId);
      const { raw } = await handle.describe();
      for (const pending of raw.pendingActivities ?? []) {
        if (pending.lastWorkerIdentity !== identity || !pending.activityId) continue;
        const error = ApplicationFailure.retryable(`the worker running it (${identity}) died: ${cause}`, 'WorkerDied');
        // Completed or retried meanwhile: the server refuses, and there is nothing left to do.
        const done = await client.activity.fail({ workflowId: run.workflowId, runId: run.runId, activityId: pending.activityId }, error).then(
          () => true,
          () => false,
        );
        if (done) failed++;
      }
    }
    return failed;
  } finally {
    await client.connection.close();
  }
}

/** Writes a death down (dev-faults.jsonl) and says it on the terminal. */
function recordFault(fault: DevFault): void {
  const file = statePaths.devSupervision('faults.jsonl');
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, `${JSON.stringify(fault)}\n`);
  const after = fault.restartFailed
    ? `not restarted: ${fault.restartFailed}`
    : `restarted as pid ${fault.newPid} in ${(((fault.restartedAt ?? fault.detectedAt) - fault.detectedAt) / 1000).toFixed(1)} s`;
  const held = fault.activitiesFailed ? `; ${fault.activitiesFailed} of its activities handed back for retry` : '';
  console.log(`fragbench dev: the ${fault.part} (pid ${fault.pid}) died (${fault.cause}); ${after}${held}`);
}

/**
 * Keeps the local dev server running: one of ours that dies is started again on its history file.
 * `dev` and every command that runs a worker in its own process (`run --local`, `quickstart`) use it.
 */
export class DevServerKeeper {
  private server?: ManagedProcess;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Set while a restart runs: a worker that died meanwhile waits for it. */
  restarting?: Promise<void>;

  constructor(
    private readonly onGiveUp: (err: Error) => void,
    private readonly onStoppedByUser: () => void = () => undefined,
  ) {}

  /** Starts the server unless one answers, and watches it if it is ours. */
  async start(log?: (line: string) => void): Promise<void> {
    const { server } = await ensureDevServer(log);
    this.watch(server);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private watch(server: ManagedProcess | undefined): void {
    this.server = server;
    clearInterval(this.timer);
    if (!server) {
      console.log('fragbench: the Temporal server that answers was not started by fragbench; it is not supervised');
      return;
    }
    // A server this process started tells how it ended; an adopted one is watched by PID.
    void server.exited?.then((exit) => this.died(server, exit));
    this.timer = setInterval(() => {
      if (!server.exited && !server.isOurs()) void this.died(server);
    }, SERVER_CHECK_MS);
  }

  private died(server: ManagedProcess, exit?: ProcessExit): Promise<void> {
    if (this.stopped || this.server !== server) return Promise.resolve();
    // `fragbench dev --stop` removes the PID file before it stops the server: a wish, not a death.
    if (readPidFile(DEV_SERVER.pidFile) !== server.pid) {
      this.stop();
      this.onStoppedByUser();
      return Promise.resolve();
    }
    this.restarting ??= this.restart(server, exit).finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  private async restart(died: ManagedProcess, exit?: ProcessExit): Promise<void> {
    const detectedAt = Date.now();
    const cause = exit ? describeExit(exit) : 'gone (not a child of this process, so its exit status is unknown)';
    try {
      const { server } = await ensureDevServer(() => undefined);
      this.watch(server);
      recordFault({ part: 'temporal-server', pid: died.pid, cause, detectedAt, restartedAt: Date.now(), newPid: server?.pid });
    } catch (err) {
      recordFault({ part: 'temporal-server', pid: died.pid, cause, detectedAt, restartFailed: (err as Error).message });
      this.onGiveUp(err as Error);
    }
  }
}

export class DevSupervisor {
  private worker?: ChildProcess;
  private readonly server: DevServerKeeper;
  private stopping = false;
  private quickDeaths = 0;
  private readonly done: Promise<void>;
  private finish: (err?: Error) => void = () => undefined;

  constructor(private readonly settings: TemporalSettings = temporalSettings()) {
    this.done = new Promise((resolve, reject) => (this.finish = (err) => (err ? reject(err) : resolve())));
    // Whoever awaits `finished()` sees a failure; until then it is not an unhandled rejection.
    this.done.catch(() => undefined);
    this.server = new DevServerKeeper(
      (err) => this.finish(err),
      () => {
        console.log('fragbench dev: the dev server was stopped (fragbench dev --stop); stopping the worker');
        void this.stop();
      },
    );
  }

  /** Starts (or adopts) the server, bundles the workflows for every worker it will start, and starts the worker. */
  async start(): Promise<void> {
    await Promise.all([this.server.start(), writeWorkflowBundle(statePaths.devSupervision('workflows.js'))]);
    this.startWorker();
  }

  /** Resolves when `stop` ends the supervision; rejects when a part cannot be brought back. */
  finished(): Promise<void> {
    return this.done;
  }

  /** Stops the worker (letting it finish what it holds) and ends the supervision; the server keeps running. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.server.stop();
    const worker = this.worker;
    if (worker && worker.exitCode === null && worker.signalCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    rmSync(statePaths.devSupervision('worker.pid'), { force: true });
    rmSync(statePaths.devSupervision('workflows.js'), { force: true });
    this.finish();
  }

  // ------------------------------------------------------------------ the worker

  private startWorker(): void {
    const startedAt = Date.now();
    // Never left running unsupervised: it is told to stop (and finishes what it holds) if `dev` dies.
    const [program, ...args] = diesWithCaller([process.execPath, BIN, 'worker'], 'TERM');
    const worker = spawn(program, args, {
      stdio: 'inherit',
      env: { ...process.env, [BUNDLE_FILE_VARIABLE]: statePaths.devSupervision('workflows.js') },
    });
    this.worker = worker;
    if (worker.pid !== undefined) writePidFile(statePaths.devSupervision('worker.pid'), worker.pid);
    worker.once('exit', (code, signal) => void this.workerDied(worker, startedAt, { code, signal }));
  }

  private async workerDied(worker: ChildProcess, startedAt: number, exit: ProcessExit): Promise<void> {
    if (this.stopping) return;
    const detectedAt = Date.now();
    const pid = worker.pid ?? 0;
    const cause = describeExit(exit);
    this.quickDeaths = detectedAt - startedAt < QUICK_DEATH_MS ? this.quickDeaths + 1 : 0;
    if (this.quickDeaths >= QUICK_DEATHS_TO_GIVE_UP) {
      const reason = `it died within ${QUICK_DEATH_MS / 1000} s of its start ${QUICK_DEATHS_TO_GIVE_UP} times in a row (see its output above)`;
      recordFault({ part: 'worker', pid, cause, detectedAt, restartFailed: reason });
      this.finish(new Error(`the worker keeps dying: ${reason}`));
      return;
    }
    // A worker that could not connect while the server restarts is started again once it answers.
    await this.server.restarting;
    if (this.quickDeaths > 1) await sleep(1000 * this.quickDeaths);
    if (this.stopping) return;
    this.startWorker();
    const restartedAt = Date.now();
    const activitiesFailed = await failActivitiesOf(this.settings, workerIdentity(pid), cause).catch(() => 0);
    recordFault({ part: 'worker', pid, cause, detectedAt, restartedAt, newPid: this.worker?.pid, activitiesFailed });
  }
}
