/**
 * The scenario workflow's first and last steps: hold the host's local fleet for the run (bringing
 * the scenario's topology up when it is not) and give it back (taking down what the run brought up,
 * unless kept). The scenario is validated against its topology before anything starts.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { InputError } from '../core/errors';
import type { AcquireFleetInput, FleetLeaseActivities, HeldFleet, ReleaseFleetInput } from '../core/fleet-lease';
import { loadTopology } from '../core/load-topology';
import { fleetSpecs } from '../core/scenario-plan';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { FleetBusyError, readLease, releaseLease, takeLease, updateLease, type RunIsLive } from '../infra/local/lease';
import { readState } from '../infra/local/state';
import { loadScenario, readScenarioFile } from '../services/scenario/scenario-loader';

/** A run is live while its workflow runs; one the server no longer knows has ended. */
export function runIsLiveVia(client: Pick<import('@temporalio/client').Client, 'workflow'>): RunIsLive {
  return async (runId) => {
    try {
      const { status } = await client.workflow.getHandle(runId).describe();
      return status.name === 'RUNNING';
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') return false;
      throw err;
    }
  };
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** Outside a worker (tests, the CLI) nothing can say a lease's run ended: treat it as live. */
function runIsLive(): RunIsLive {
  const context = activityContext();
  let client;
  try {
    client = context?.client;
  } catch {
    client = undefined;
  }
  return client ? runIsLiveVia(client) : async () => true;
}

/** The one local topology a scenario runs on, or undefined when its fleets are not local. */
function localTopologyOf(scenario: ReturnType<typeof fleetSpecs>): string | undefined {
  const files = [...new Set(scenario.flatMap(({ spec }) => ('local' in spec ? [spec.local] : [])))];
  if (files.length > 1) {
    throw new InputError('fleet', `the cells use ${files.length} local topologies (${files.join(', ')}), but this host runs one local fleet at a time: split the scenario into one per topology`);
  }
  return files[0];
}

export async function acquireFleet(input: AcquireFleetInput): Promise<HeldFleet> {
  const value = input.scenario ?? (input.scenarioFile !== undefined ? readScenarioFile(input.scenarioFile) : undefined);
  if (value === undefined) throw new InputError('scenario', 'give the scenario inline (`scenario`) or a file (`scenarioFile`)');
  // Every check a scenario gets, against its topology, before anything starts.
  const { file } = await loadScenario(value, 'offline', input.options);
  const topologyFile = localTopologyOf(fleetSpecs(file));
  if (topologyFile === undefined) return { broughtUp: false };
  const topology = loadTopology(topologyFile).name;

  let lease;
  try {
    lease = await takeLease({ runId: input.runId, topology, since: Date.now(), broughtUp: false }, runIsLive());
  } catch (err) {
    if (err instanceof FleetBusyError) throw ApplicationFailure.create({ type: 'FleetBusy', message: err.message, nonRetryable: true });
    throw err;
  }
  try {
    const state = readState();
    if (state?.status === 'up') {
      if (state.plan.name !== topology) {
        throw new InputError('fleet.local', `the local fleet runs "${state.plan.name}", not "${topology}": take it down (\`fragbench fleet down\`) or run a scenario on ${state.plan.name}`);
      }
      return { topology, broughtUp: lease.broughtUp };
    }
    if (input.mode === 'existing') {
      throw new InputError('fleet', `no local fleet is up and the run was asked to use an existing one: \`fragbench fleet up ${topologyFile}\`, or start the run without fleet: existing`);
    }
    // A half-built fleet (a `fleet up` or an earlier attempt that died) is removed first.
    if (state) await fleetDown();
    const heartbeat = (line: string) => activityContext()?.heartbeat(line);
    await fleetUp(topologyFile, heartbeat);
    updateLease({ ...lease, broughtUp: true });
    return { topology, broughtUp: true };
  } catch (err) {
    if (!readLease()?.broughtUp) releaseLease(input.runId);
    throw err;
  }
}

export async function releaseFleet(input: ReleaseFleetInput): Promise<void> {
  const lease = readLease();
  if (lease?.runId !== input.runId) return;
  if (input.tearDown && lease.broughtUp) await fleetDown();
  releaseLease(input.runId);
}

export const fleetLeaseActivities: FleetLeaseActivities = { acquireFleet, releaseFleet };
