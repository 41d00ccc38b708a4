/** A Temporal server of a test's own: the dev server binary on a free port, gone at teardown. */
import { TestWorkflowEnvironment, type DevServerConfig } from '@temporalio/testing';
import { withRetries } from '../../platform/retry';
import { temporalBinary } from '../../worker/dev-server';

/**
 * The SDK gives the server a fixed 5 s to answer and kills it if it has not (sdk-core
 * ephemeral_server): once in a CI run a cold start took longer. Three tries, each a fresh server.
 */
const TRIES = 3;

/** `temporal server start-dev` through the SDK's test environment (DESIGN.md: the real binary, not a download). */
export async function localTemporal(searchAttributes?: DevServerConfig['searchAttributes']): Promise<TestWorkflowEnvironment> {
  const path = await temporalBinary();
  return withRetries(
    TRIES,
    () =>
      TestWorkflowEnvironment.createLocal({
        server: { executable: { type: 'existing-path', path }, ...(searchAttributes ? { searchAttributes } : {}) },
      }),
    (err) => /did not start within/.test(String(err)),
    (failed) => console.error(`the test Temporal server did not answer within the SDK's 5 s (try ${failed} of ${TRIES}); starting another`),
  );
}
