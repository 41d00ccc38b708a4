/**
 * Finding and following runs as a user does (`fragbench --version | runs [--json] | runs show |
 * follow`), against a Temporal server of this file's own: a run whose results are recorded is
 * listed completed only once its workflow has ended (`finishing` while it still runs), and says
 * so when no server could be asked; `runs show` gives the status, the UI link of the server used
 * and each cell's verdict; `follow` re-attaches the live line and the summary to a running run
 * (its workflow served by a worker in this process over the workflow tests' mocked activities)
 * and prints a finished run's summary at once.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunRecord } from '../../core/run-record';
import { hostAndPort } from '../../worker/connection';
import { createWorker } from '../../worker/worker';
import { fragbench, printed, scratchEnv, startFragbench } from '../support/cli';
import { mockActivities, plannedRun, runPhasePlan } from '../support/mock-activities';
import { localTemporal } from '../support/temporal';

jest.setTimeout(120_000);

const FIXTURE = path.join(__dirname, '../report/fixtures/runs/fx-quickstart');
const RUN = path.basename(FIXTURE);
const fixtureRun = JSON.parse(readFileSync(path.join(FIXTURE, 'run.json'), 'utf8')) as RunRecord;
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-runs-'));
const base = scratchEnv(scratch);
/** Nothing listens on port 1: no server to ask. */
const noServer = { ...base, TEMPORAL_ADDRESS: '127.0.0.1:1' };
let temporal: TestWorkflowEnvironment;
let env: Record<string, string>;

beforeAll(async () => {
  cpSync(FIXTURE, path.join(base.FRAGBENCH_RESULTS_DIR, RUN), { recursive: true });
  temporal = await localTemporal();
  env = { ...base, TEMPORAL_ADDRESS: temporal.address };
});

afterAll(async () => {
  await temporal?.teardown();
  rmSync(scratch, { recursive: true, force: true });
});

interface ListedRun {
  runId: string;
  workflowId: string;
  status: string;
  recordedStatus: string;
  workflowStatus: string;
  cells: number;
  report: string | null;
}

test('--version prints the version of package.json', async () => {
  const { version } = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
  const result = await fragbench(['--version'], base);
  expect([result.code, result.stdout.trim()]).toEqual([0, version]);
});

test('with no server to ask, runs lists what the results store says and says that it could not check', async () => {
  const [table, json] = await Promise.all([fragbench(['runs'], noServer), fragbench(['runs', '--json'], noServer)]);
  expect(table.code).toBe(0);
  expect(
    table.stdout
      .trim()
      .split('\n')[1]
      .split(/\s{2,}/)
      .slice(0, 3),
  ).toEqual([RUN, fixtureRun.scenario, 'completed']);
  for (const result of [table, json])
    expect(result.stderr).toMatch(/statuses are the results store's alone \(no Temporal server answered at 127\.0\.0\.1:1\)/);
  const listed = JSON.parse(json.stdout) as ListedRun[];
  expect(listed).toEqual([
    expect.objectContaining({
      runId: RUN,
      workflowId: RUN,
      status: 'completed',
      recordedStatus: 'completed',
      workflowStatus: 'not checked',
      cells: 1,
      report: null,
    }),
  ]);
});

describe('a run whose results are recorded but whose workflow still runs', () => {
  const queue = `fb-cli-runs-${randomUUID()}`;
  beforeAll(async () => {
    // The recorded run's workflow, left running: no worker polls its queue (as a run's cleanup still going on).
    await temporal.client.workflow.start('scenarioWorkflow', { taskQueue: queue, workflowId: RUN, args: [{ scenario: {} }] });
  });

  test('is listed finishing, and completed once its workflow has ended', async () => {
    const running = JSON.parse((await fragbench(['runs', '--json'], env)).stdout) as ListedRun[];
    expect(running[0]).toMatchObject({ runId: RUN, status: 'finishing', recordedStatus: 'completed', workflowStatus: 'RUNNING' });
    const table = await fragbench(['runs'], env);
    expect(table.stderr).toBe('');
    expect(
      table.stdout
        .trim()
        .split('\n')[1]
        .split(/\s{2,}/)[2],
    ).toBe('finishing');

    const show = await fragbench(['runs', 'show', RUN], env);
    expect(show.code).toBe(0);
    const { port } = hostAndPort(temporal.address);
    expect(show.stdout).toMatch(/^status\s+finishing$/m);
    expect(show.stdout).toMatch(new RegExp(`^workflow\\s+${RUN}: RUNNING on ${temporal.address} namespace default`, 'm'));
    // The UI of the server used: a dev server's is 1000 above its port.
    expect(show.stdout).toMatch(new RegExp(`^UI\\s+http://127\\.0\\.0\\.1:${port! + 1000}/namespaces/default/workflows/${RUN}$`, 'm'));
    expect(show.stdout).toMatch(/^report\s+not written yet \(fragbench report fx-quickstart writes it\)$/m);
    // Each cell with its verdict column (this older run was never judged).
    expect(show.stdout).toMatch(/^c01-redis-a\s+recorded\s+not checked\s+151\.1\s/m);

    const elsewhere = await fragbench(['runs', 'show', RUN], { ...env, TEMPORAL_UI_URL: 'https://temporal.example.com/' });
    expect(elsewhere.stdout).toMatch(new RegExp(`^UI\\s+https://temporal\\.example\\.com/namespaces/default/workflows/${RUN}$`, 'm'));

    await temporal.client.workflow.getHandle(RUN).terminate('the test ended it');
    const ended = JSON.parse((await fragbench(['runs', '--json'], env)).stdout) as ListedRun[];
    expect(ended[0]).toMatchObject({ status: 'completed', workflowStatus: 'TERMINATED' });
    const shown = JSON.parse((await fragbench(['runs', 'show', RUN, '--json'], env)).stdout) as ListedRun & {
      cells: { cellId: string; verdict: null }[];
    };
    expect(shown).toMatchObject({ status: 'completed', workflowStatus: 'TERMINATED', cells: [{ cellId: 'c01-redis-a', verdict: null }] });
  });
});

describe('follow', () => {
  const queue = `fb-cli-follow-${randomUUID()}`;

  test('re-attaches to a running run: its live lines, then its summary; a finished run prints its summary at once', async () => {
    const { activities } = mockActivities(plannedRun([runPhasePlan({ durationS: 8 })], 'followed'), { clientOk: 42 });
    const worker = await createWorker({ connection: temporal.nativeConnection, namespace: 'default', taskQueue: queue, activities });
    const workflowId = `followed-${randomUUID().slice(0, 8)}`;
    await worker.runUntil(async () => {
      await temporal.client.workflow.start('scenarioWorkflow', { taskQueue: queue, workflowId, args: [{ scenario: {} }] });
      const following = startFragbench(['follow', workflowId], env);
      await printed(following, new RegExp(`^following ${workflowId} \\(running\\): http://`, 'm'));
      expect(await following.exited).toBe(0);
      const out = following.stdout();
      // A live line of the run phase with the client's own seconds.
      expect(out).toMatch(/^\[1\/1 c1\] run t=\d+s ok 42\/s failed 0\/s READ 100us/m);
      expect(out).toMatch(/^c1\s+completed\s/m);
      expect(out).toContain('report: /nonexistent/index.html');
    });
    const again = await fragbench(['follow', workflowId], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^following ${workflowId} \\(ended: COMPLETED\\)`, 'm'));
    expect(again.stdout).toMatch(/^c1\s+completed\s/m);
  });

  test('a run the server does not have: refused, naming it', async () => {
    const result = await fragbench(['follow', 'no-such-run'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no workflow "no-such-run" on ${temporal.address} namespace default`);
  });
});
