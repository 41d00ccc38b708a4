/**
 * Runs found in Temporal's list as the UI's filter finds them: on a server of this file's own
 * with the run's search attributes registered (as `fragbench dev` registers them), a run (its
 * activities the workflow tests' mocks) is labelled with its scenario, databases and fleets once
 * planned and its verdict at its end, and listed by a visibility query on each; its memo holds the
 * scenario's description. On a server without them (the other workflow tests' own), runs go on
 * unlabelled.
 */
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createWorker } from '../../worker/worker';
import { waitFor } from '../../platform/wait';
import { SEARCH_ATTRIBUTES, type RunSummary } from '../../workflows/definitions';
import { mockActivities, plannedRun, runPhasePlan } from '../support/mock-activities';
import { localTemporal } from '../support/temporal';

jest.setTimeout(120_000);

let labelled: TestWorkflowEnvironment;
beforeAll(async () => {
  labelled = await localTemporal(Object.values(SEARCH_ATTRIBUTES));
});
afterAll(async () => {
  await labelled?.teardown();
});

async function runOn(env: TestWorkflowEnvironment, scenario: string) {
  const { activities } = mockActivities(plannedRun([runPhasePlan({ durationS: 1 })], scenario), { verdict: 'client-bound' });
  const taskQueue = `wf-labels-${randomUUID().slice(0, 8)}`;
  const worker = await createWorker({ connection: env.nativeConnection, namespace: 'default', taskQueue, activities });
  const workflowId = `${scenario}-${randomUUID().slice(0, 8)}`;
  const summary = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('scenarioWorkflow', { taskQueue, workflowId, args: [{ scenario: {} }] });
    return (await handle.result()) as RunSummary;
  });
  return { summary, workflowId };
}

/** The workflow ids a visibility query lists, once it lists `atLeast` (visibility lags a little). */
function listed(env: TestWorkflowEnvironment, query: string, atLeast = 1): Promise<string[]> {
  return waitFor(
    async () => {
      const ids: string[] = [];
      for await (const wf of env.client.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.length >= atLeast ? ids : undefined;
    },
    { what: `${atLeast} run(s) listed by ${query}`, timeoutMs: 15_000, intervalMs: 250 },
  );
}

test('a run is listed by its scenario, database, fleet and verdict, and its memo holds its description', async () => {
  const scenario = `labelled-${randomUUID().slice(0, 6)}`;
  const { summary, workflowId } = await runOn(labelled, scenario);
  expect(summary.status).toBe('completed');
  expect(await listed(labelled, `FragbenchScenario = '${scenario}'`)).toEqual([workflowId]);
  const all = `FragbenchScenario = '${scenario}' AND FragbenchDatabase = 'redis' AND FragbenchTopology = 'fhc-4' AND FragbenchVerdict = 'client-bound'`;
  expect(await listed(labelled, all)).toEqual([workflowId]);
  expect(await listed(labelled, `FragbenchScenario = '${scenario}' AND FragbenchDatabase = 'cassandra'`, 0)).toEqual([]);
  const described = await labelled.client.workflow.getHandle(workflowId).describe();
  expect(described.memo).toEqual({ description: `the ${scenario} scenario of a workflow test` });
  expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.database)).toEqual(['redis']);
});

test('on a server without the attributes, a run goes on unlabelled', async () => {
  const bare = await localTemporal();
  try {
    const { summary, workflowId } = await runOn(bare, `bare-${randomUUID().slice(0, 6)}`);
    expect(summary.status).toBe('completed');
    const described = await bare.client.workflow.getHandle(workflowId).describe();
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTES.scenario)).toBeUndefined();
  } finally {
    await bare.teardown();
  }
});
