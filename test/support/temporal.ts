/** A Temporal server of a test's own: the dev server binary on a free port, gone at teardown. */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporalBinary } from '../../worker/dev-server';

/** `temporal server start-dev` through the SDK's test environment (DESIGN.md: the real binary, not a download). */
export async function localTemporal(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: await temporalBinary() } } });
}
