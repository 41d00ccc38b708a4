/**
 * bench:faults runs everything (dev server, worker, fleet, results) under a state root, a
 * results directory and a dev server port of its own, so it never touches a user's. Imported first: the paths modules
 * read these variables when they load.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const BENCH_STATE_DIR = mkdtempSync(path.join(tmpdir(), 'fb-faults-state-'));
export const BENCH_RESULTS_DIR = mkdtempSync(path.join(tmpdir(), 'fb-faults-results-'));
export const BENCH_TASK_QUEUE = 'fb-faults';
/** Its own dev server port (UI 1000 above), so that a user's dev server on 7233 is never the one killed. */
export const BENCH_DEV_PORT = '7433';

process.env.FRAGBENCH_STATE_DIR = BENCH_STATE_DIR;
process.env.FRAGBENCH_RESULTS_DIR = BENCH_RESULTS_DIR;
process.env.FRAGBENCH_TASK_QUEUE = BENCH_TASK_QUEUE;
process.env.FRAGBENCH_DEV_PORT = BENCH_DEV_PORT;
delete process.env.TEMPORAL_ADDRESS;
delete process.env.FRAGBENCH_DB_STATE_DIR;
