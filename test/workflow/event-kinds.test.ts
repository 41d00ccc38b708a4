/**
 * A kind registered from a test runs through the real workflow logic: the workflows bundled with
 * the toy `note` kind registered (test/support/workflows-with-note.ts) fire it on its durable
 * timer in its lane, through the real injector over mocked fleet activities, and record it with
 * its label; the progress query shows the label while it is next (the other activities are the
 * workflow tests' mocks, test/support/mock-activities.ts).
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { injectEventInto, type EventTargets, type InjectEventInput } from '../../activities/scenario';
import { registerEventKind } from '../../core/event-kinds/registry';
import type { EventAction } from '../../core/scenario';
import { progressQuery, type RunProgress, type RunSummary } from '../../workflows/definitions';
import { mockActivities, plannedRun, runPhasePlan, sleep } from '../support/mock-activities';
import { note } from '../support/note-event-kind';
import { localTemporal } from '../support/temporal';

jest.setTimeout(120_000);

// The activities run in this process: the injector looks the kind up here.
registerEventKind(note);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await localTemporal();
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

const prepared = () => plannedRun([runPhasePlan({ durationS: 3, events: [noteAt(1, 'sydney is slow')] })]);

test('the workflow fires a registered kind through the injector and records it with its label', async () => {
  const fleetCalls: string[] = [];
  const targets = new Proxy({}, { get: (_, name) => () => Promise.resolve(void fleetCalls.push(String(name))) }) as EventTargets;
  const { activities: mocked, recorded } = mockActivities(prepared());
  const activities = { ...mocked, injectEvent: (input: InjectEventInput) => injectEventInto(targets, input) };
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
  const [run] = recorded.cells[0].phases;
  expect(run.events).toEqual([
    expect.objectContaining({ kind: 'note', label: 'note: sydney is slow', scheduledOffsetS: 1, detail: { text: 'sydney is slow' } }),
  ]);
  expect([...nextLabels]).toContain('note: sydney is slow');
});
