/**
 * Holding the host's local fleet for a run: validate the scenario against its topology, take the
 * lease (core/fleet-lease.ts), and bring the topology up when it is not; giving it back takes down
 * what the run brought up, unless kept. A fleet-driving service: it calls infra/local. The
 * scenario workflow's first and last activities (activities/fleet-lease.ts) are these.
 */
import { InputError } from '../../core/errors';
import type { AcquireFleetInput, HeldFleet, ReleaseFleetInput } from '../../core/fleet-lease';
import { loadTopology } from '../../core/load-topology';
import { fleetSpecs } from '../../core/scenario-plan';
import type { StackChoice } from '../../core/stack';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { readLease, releaseLease, takeLease, updateLease, type RunIsLive } from '../../infra/local/lease';
import { readState } from '../../infra/local/state';
import { loadScenario, readScenarioFile } from '../scenario/scenario-loader';

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

/** The one local topology a scenario runs on and the stack it asks of it, or undefined when its fleets are not local. */
function localTopologyOf(scenario: ReturnType<typeof fleetSpecs>): { file: string; stack?: StackChoice } | undefined {
  const locals = scenario.flatMap(({ spec }) => ('local' in spec ? [spec] : []));
  const distinct = [...new Map(locals.map((spec) => [JSON.stringify([spec.local, spec.stack ?? {}]), spec])).values()];
  if (distinct.length > 1) {
    throw new InputError(
      'fleet',
      `the cells use ${distinct.length} local fleets (${distinct.map((s) => s.local + (s.stack ? ` with stack ${JSON.stringify(s.stack)}` : '')).join(', ')}), but this host runs one local fleet at a time: split the scenario into one per fleet`,
    );
  }
  return distinct[0] && { file: distinct[0].local, stack: distinct[0].stack };
}

export interface HoldOptions {
  /** Says whether the run named in an existing lease still goes; by default every run is live. */
  runIsLive?: RunIsLive;
  /** Each line of progress while the fleet comes up. */
  onProgress?: (line: string) => void;
}

/** Throws FleetBusyError (infra/local/lease.ts) when another live run holds the fleet. */
export async function acquireFleet(input: AcquireFleetInput, options: HoldOptions = {}): Promise<HeldFleet> {
  const value = input.scenario ?? (input.scenarioFile !== undefined ? readScenarioFile(input.scenarioFile) : undefined);
  if (value === undefined) throw new InputError('scenario', 'give the scenario inline (`scenario`) or a file (`scenarioFile`)');
  // Every check a scenario gets, against its topology, before anything starts.
  const { file } = await loadScenario(value, 'offline', input.options);
  const local = localTopologyOf(fleetSpecs(file));
  if (local === undefined) return { broughtUp: false };
  const topologyFile = local.file;
  const topology = loadTopology(topologyFile).name;

  const lease = await takeLease(
    { runId: input.runId, topology, since: Date.now(), broughtUp: false },
    options.runIsLive ?? (() => Promise.resolve(true)),
  );
  try {
    const state = readState();
    if (state?.status === 'up') {
      if (state.plan.name !== topology) {
        throw new InputError(
          'fleet.local',
          `the local fleet runs "${state.plan.name}", not "${topology}": take it down (\`fragbench fleet down\`) or run a scenario on ${state.plan.name}`,
        );
      }
      return { topology, broughtUp: lease.broughtUp };
    }
    if (input.mode === 'existing') {
      throw new InputError(
        'fleet',
        `no local fleet is up and the run was asked to use an existing one: \`fragbench fleet up ${topologyFile}\`, or start the run without fleet: existing`,
      );
    }
    // A half-built fleet (a `fleet up` or an earlier attempt that died) is removed first.
    if (state) await fleetDown();
    await fleetUp(topologyFile, options.onProgress, { stack: local.stack });
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
