/**
 * A recorded run's status as a reader needs it. The results store says what was recorded; the
 * run's workflow says whether the run has ended: the store says `completed` as soon as the report
 * is written, while the workflow still gives the fleet back. The workflow is asked whenever a
 * Temporal server answers; where none does, the store's word is all there is and the caller says so.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { RunRecord } from '../core/run-record';
import { connectClient, hostAndPort, type TemporalSettings } from '../worker/connection';
import { answers } from '../worker/dev-server';

/** What the run's workflow says; absent where it could not be asked. */
export type WorkflowState =
  | { kind: 'running' }
  /** COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, as Temporal names them. */
  | { kind: 'ended'; status: string }
  /** No workflow of that id on this server (run on another server, or recorded without one). */
  | { kind: 'not found' };

/** The workflow a run record belongs to: older records carry none, and the run id stands in. */
export const workflowIdOf = (run: RunRecord): string => run.workflowId ?? run.runId;

/** How long a listing waits for a server before it lists what the store says. */
const PROBE_MS = 1_000;

/**
 * A client of the configured server, or why there is none. A server that does not even take a
 * TCP connection is given up on within a second, so that `runs` stays quick without one.
 */
export async function reachTemporal(settings: TemporalSettings): Promise<{ client: Client } | { unreachable: string }> {
  const { host, port } = hostAndPort(settings.address);
  if (port !== undefined && !(await answers(host.replace(/^\[|\]$/g, ''), port, PROBE_MS))) {
    return { unreachable: `no Temporal server answered at ${settings.address}` };
  }
  try {
    return { client: await connectClient(settings) };
  } catch (err) {
    return { unreachable: (err as Error).message };
  }
}

export async function workflowState(client: Client, workflowId: string): Promise<WorkflowState> {
  try {
    const { status } = await client.workflow.getHandle(workflowId).describe();
    return status.name === 'RUNNING' ? { kind: 'running' } : { kind: 'ended', status: status.name };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { kind: 'not found' };
    throw err;
  }
}

/**
 * The status a run is listed with: `finishing` while its results are complete but its workflow
 * still cleans up; the store's status once the workflow has ended (or the workflow's, where the
 * store never heard the end: a terminated run); the store's alone where the workflow is unknown.
 */
export function listedStatus(run: RunRecord, state: WorkflowState | undefined): string {
  if (state?.kind === 'running') return run.status === 'running' ? 'running' : 'finishing';
  if (state?.kind === 'ended' && run.status === 'running') return state.status.toLowerCase();
  return run.status;
}

/** The workflow's side for a listing: its status name, `not found`, or `not checked`. */
export function workflowText(state: WorkflowState | undefined): string {
  if (!state) return 'not checked';
  if (state.kind === 'not found') return 'not found';
  return state.kind === 'running' ? 'RUNNING' : state.status;
}

/** The line a listing prints (on stderr) when it could not ask the workflows. */
export function unreachableNote(why: string): string {
  return `fragbench: statuses are the results store's alone (${why}): a run listed completed may still be cleaning up. Point TEMPORAL_ADDRESS (or a temporal.toml profile) at its server to check.`;
}
