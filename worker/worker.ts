/**
 * The one worker: every activity group and the scenario workflows on one task queue. Workflows
 * are bundled once per process and the bundle reused by every worker it creates; a worker that
 * `fragbench dev` starts takes the bundle dev wrote (BUNDLE_FILE_VARIABLE), so that a worker
 * started again after a death polls at once instead of bundling first.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { connectionOptions, connectOrExplain, describeTarget, temporalSettings, type TemporalSettings } from './connection';
import { finalErrorInterceptor } from './final-errors';

/** The file of a bundle written by `writeWorkflowBundle`, for the worker processes started with it. */
export const BUNDLE_FILE_VARIABLE = 'FRAGBENCH_WORKFLOW_BUNDLE';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflows bundled (2-3 s the first time), then the same bundle for every later worker. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietBundler });
  return bundle;
}

/** Bundles the workflows once and writes the code to `file`, for workers started with BUNDLE_FILE_VARIABLE set to it. */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await workflowBundle();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, code);
}

/** The bundle of this process's worker: the file it was started with, or its own. */
async function bundleOption(): Promise<{ codePath: string } | WorkflowBundleWithSourceMap> {
  const file = process.env[BUNDLE_FILE_VARIABLE];
  return file ? { codePath: file } : workflowBundle();
}

const quiet = () => undefined;
const quietBundler = { trace: quiet, debug: quiet, info: quiet, warn: console.warn, error: console.error, log: quiet };

export interface WorkerOptions {
  settings?: TemporalSettings;
  /** An open connection to reuse (tests); otherwise one is opened from `settings`. */
  connection?: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Activities to register instead of the real ones (workflow tests mock them). */
  activities?: object;
}

export async function createWorker(options: WorkerOptions = {}): Promise<Worker> {
  const settings = options.settings ?? temporalSettings();
  const connection = options.connection ?? (await connectOrExplain(settings, () => NativeConnection.connect(connectionOptions(settings))));
  // Loaded here, not at the top: a process that only bundles or connects needs none of them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bin/ registers tsx for require only: import() would reach Node's ESM loader, which cannot load .ts
  const activities = options.activities ?? (require('../activities') as Record<string, unknown>);
  return Worker.create({
    connection,
    namespace: options.namespace ?? settings.namespace,
    taskQueue: options.taskQueue ?? settings.taskQueue,
    workflowBundle: await bundleOption(),
    activities,
    interceptors: { activity: [finalErrorInterceptor] },
    // ycsbRun heartbeats its latest per-second sample: pass each on, so live views see every second
    // (by default the SDK forwards one heartbeat per 0.8 x heartbeat timeout).
    maxHeartbeatThrottleInterval: '1s',
  });
}

/** `fragbench worker`: runs until SIGINT/SIGTERM, finishing the activities it holds. */
export async function runWorker(settings: TemporalSettings = temporalSettings()): Promise<void> {
  const worker = await createWorker({ settings });
  console.log(`fragbench worker: polling ${describeTarget(settings)}`);
  await worker.run();
}
