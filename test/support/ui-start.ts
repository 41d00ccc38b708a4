/** Starting the scenario workflow the way the Temporal UI's Start Workflow form does: one `json/plain` payload. */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

export async function startAsTheUiDoes(env: TestWorkflowEnvironment, input: object, taskQueue: string, prefix = 'ui-start'): Promise<WorkflowHandle> {
  const workflowId = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.client.workflowService.startWorkflowExecution({
    namespace: 'default',
    workflowId,
    workflowType: { name: 'scenarioWorkflow' },
    taskQueue: { name: taskQueue },
    input: { payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(input)) }] },
    identity: 'temporal-ui-start-form',
    requestId: randomUUID(),
  });
  return env.client.workflow.getHandle(workflowId);
}
