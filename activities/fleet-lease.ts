/**
 * The scenario workflow's first and last steps (operations/fleet/fleet-lease.ts): what makes them
 * activities is that a held fleet's run is asked about through this worker's Temporal client, the
 * fleet's bring-up heartbeats line by line, and a busy fleet fails at once (not retried: the
 * other run will not end within a retry's wait).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AcquireFleetInput, FleetLeaseActivities, HeldFleet } from '../core/fleet-lease';
import { FleetBusyError, type RunIsLive } from '../infra/local/lease';
import * as lease from '../operations/fleet/fleet-lease';

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Outside a worker (tests) nothing can say a lease's run ended: the service treats it as live. */
function runIsLive(): RunIsLive | undefined {
  let client;
  try {
    client = activityContext()?.client;
  } catch {
    client = undefined;
  }
  return client && lease.runIsLiveVia(client);
}

export async function acquireFleet(input: AcquireFleetInput): Promise<HeldFleet> {
  try {
    return await lease.acquireFleet(input, { runIsLive: runIsLive(), onProgress: (line) => activityContext()?.heartbeat(line) });
  } catch (err) {
    if (err instanceof FleetBusyError) throw ApplicationFailure.create({ type: 'FleetBusy', message: err.message, nonRetryable: true });
    throw err;
  }
}

export const releaseFleet = lease.releaseFleet;

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({ acquireFleet, releaseFleet }) satisfies FleetLeaseActivities;
