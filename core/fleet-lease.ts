/**
 * A run holds the host's local fleet for its whole length: one lease file names the run, its
 * topology and since when. The scenario workflow takes it first and gives it back last.
 */

/** How the run gets its local fleet: `auto` brings the scenario's topology up unless it is already up (and then leaves it up); `existing` requires it up. */
export type FleetMode = 'auto' | 'existing';

export interface FleetLease {
  /** The run (workflow id) that holds the fleet. */
  runId: string;
  /** Topology name the run runs on. */
  topology: string;
  /** Epoch ms the lease was taken. */
  since: number;
  /** Whether this run brought the fleet up (and so takes it down at the end, unless kept). */
  broughtUp: boolean;
}

export interface AcquireFleetInput {
  runId: string;
  scenario?: unknown;
  scenarioFile?: string;
  mode?: FleetMode;
  options?: { timeScale?: number };
}

/** What a run holds; `topology` is absent for fleets that are not local (a cloud stack, an inventory file). */
export interface HeldFleet {
  topology?: string;
  broughtUp: boolean;
}

export interface ReleaseFleetInput {
  runId: string;
  /** Take the fleet down if this run brought it up (false: the run was asked to keep it). */
  tearDown: boolean;
}

export interface FleetLeaseActivities {
  acquireFleet(input: AcquireFleetInput): Promise<HeldFleet>;
  releaseFleet(input: ReleaseFleetInput): Promise<void>;
}

/** The message a refused run gets, the same from the CLI and from the workflow. */
export function fleetBusyMessage(lease: FleetLease): string {
  return `fleet busy: run ${lease.runId} on ${lease.topology} since ${new Date(lease.since).toISOString()} (wait for it, or cancel it: fragbench cancel ${lease.runId})`;
}
