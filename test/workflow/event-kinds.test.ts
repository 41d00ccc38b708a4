/**
 * A kind registered from a test runs through the real workflow logic: the workflows bundled with
 * the toy `note` kind registered (test/support/workflows-with-note.ts) fire it on its durable
 * timer in its lane, through the real injector over mocked fleet activities, and record it with
 * its label; the progress query shows the label while it is next.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { injectEventInto, type EventTargets, type InjectEventInput } from '../../activities/scenario';
import type { PreparedRun } from '../../operations/scenario/scenario-loader';
import type { PhaseClientInput, PhaseClientResult } from '../../services/ycsb/phase-client';
import { registerEventKind } from '../../core/event-kinds/registry';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { YCSB_DEFAULTS, type EventAction, type PlannedPhase } from '../../core/scenario';
import { temporalBinary } from '../../worker/dev-server';
import { progressQuery, type RunProgress, type RunSummary } from '../../workflows/definitions';
import { note } from '../support/note-event-kind';

jest.setTimeout(120_000);

// The activities run in this process: the injector looks the kind up here.
registerEventKind(note);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: await temporalBinary() } } });
});
afterAll(async () => {
  await env?.teardown();
});

const noteAt = (atS: number, text: string) => ({
  atS,
  label: `note: ${text}`,
  path: `e${atS}`,
  action: { kind: 'note', text } as unknown as EventAction,
});

function prepared(): PreparedRun {
  const phases: PlannedPhase[] = [
    {
      kind: 'run',
      name: 'run',
      durationS: 3,
      ycsb: { ...YCSB_DEFAULTS },
      warmup: false,
      waitForResizes: false,
      measure: [],
      events: [noteAt(1, 'sydney is slow')],
    },
  ];
  const cell = {
    cellId: 'c1',
    coordinates: {},
    fleet: { kind: 'local' as const },
    database: 'redis' as const,
    nodes: ['a', 'b', 'c'],
    client: 'client',
    settings: {},
    phases,
  };
  const record = {
    runId: 'r',
    scenario: 's',
    experiment: 'notes',
    startedAt: 0,
    status: 'running',
    settings: {},
    nonDefaultSettings: {},
    versions: {},
    cellIds: ['c1'],
  } as unknown as RunRecord;
  return { plan: { scenario: 's', experiment: 'notes', timeScale: 1, cells: [cell] }, record };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the workflow fires a registered kind through the injector and records it with its label', async () => {
  const fleetCalls: string[] = [];
  const targets = new Proxy({}, { get: (_, name) => () => Promise.resolve(void fleetCalls.push(String(name))) }) as EventTargets;
  const cells: Omit<CellRecord, 'summary'>[] = [];
  const nothing = () => Promise.resolve();
  const activities = {
    ...Object.fromEntries(['releaseFleet', 'stopCluster', 'flushDatabase', 'recordSamples'].map((name) => [name, nothing])),
    acquireFleet: () => Promise.resolve({ topology: 'fhc-4', broughtUp: false }),
    prepareRun: () => Promise.resolve(prepared()),
    recordRunStart: () => Promise.resolve({ dir: '/nonexistent' }),
    resetNetwork: () => Promise.resolve({ appliedAt: Date.now() }),
    startCluster: () => Promise.resolve({ database: 'redis', version: '7', members: [], nonDefaultSettings: {}, formedInMs: 1 }),
    readClock: () => Promise.resolve(Date.now()),
    recordCell({ cell }: { cell: Omit<CellRecord, 'summary'> }) {
      cells.push(cell);
      return Promise.resolve({ throughputOpsPerS: 0, okOps: 0, failedOps: 0, errorPercent: 0, avgLatencyUs: {}, zeroSeconds: 0, settleSeconds: {} });
    },
    finishRun: () => Promise.resolve({ reportPath: '/nonexistent/index.html' }),
    async ycsbRun(input: PhaseClientInput): Promise<PhaseClientResult> {
      const ctx = Context.current();
      while (input.untilMs !== undefined && Date.now() < input.untilMs) {
        ctx.heartbeat();
        await sleep(100);
      }
      return { totals: { runtimeMs: 1000, throughputOpsPerS: 0, ops: {} }, seconds: 1, restarts: [], latest: [] };
    },
    async monitorPhase(): Promise<void> {
      const ctx = Context.current();
      for (;;) {
        ctx.heartbeat();
        await Promise.race([sleep(100), ctx.cancelled]);
      }
    },
    injectEvent: (input: InjectEventInput) => injectEventInto(targets, input),
  };
  const taskQueue = `wf-kinds-${randomUUID().slice(0, 8)}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../support/workflows-with-note'),
    logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
  });
  const worker = await Worker.create({ connection: env.nativeConnection, namespace: 'default', taskQueue, workflowBundle, activities });
  const nextLabels = new Set<string>();
  const summary = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('scenarioWorkflow', {
      taskQueue,
      workflowId: `wf-${randomUUID().slice(0, 8)}`,
      args: [{ scenario: {} }],
    });
    const result = handle.result() as Promise<RunSummary>;
    let closed = false;
    void result.finally(() => (closed = true)).catch(() => undefined);
    while (!closed) {
      const progress = (await handle.query(progressQuery).catch(() => undefined)) as RunProgress | undefined;
      for (const label of [progress?.cell?.nextEvent?.label, progress?.cell?.lastEvent?.label]) if (label) nextLabels.add(label);
      await sleep(100);
    }
    return result;
  });
  expect(summary.status).toBe('completed');
  expect(fleetCalls).toEqual([]);
  const [run] = cells[0].phases;
  expect(run.events).toEqual([
    expect.objectContaining({ kind: 'note', label: 'note: sydney is slow', scheduledOffsetS: 1, detail: { text: 'sydney is slow' } }),
  ]);
  expect([...nextLabels]).toContain('note: sydney is slow');
});
