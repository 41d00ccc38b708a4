/**
 * The run lease on the local fleet (core/fleet-lease.ts): a file in the state root, created
 * exclusively, so two runs can never both believe they hold the fleet. A lease whose run has
 * ended without giving it back (its worker crashed and the run was terminated, or the Temporal
 * server that knew it is gone) is stale and is taken over.
 */
import { rmSync } from 'node:fs';
import { fleetBusyMessage, type FleetLease } from '../../core/fleet-lease';
import { createExclusive, readJson, writePrivate } from '../../platform/files';
import { statePaths } from '../../platform/paths';

export const LEASE_FILE = statePaths.runLease();

/** Says whether the run is still going (true), has ended (false). */
export type RunIsLive = (runId: string) => Promise<boolean>;

export class FleetBusyError extends Error {
  constructor(readonly lease: FleetLease) {
    super(fleetBusyMessage(lease));
    this.name = 'FleetBusyError';
  }
}

export function readLease(): FleetLease | undefined {
  return readJson<FleetLease>(LEASE_FILE);
}

/** The lease if a live run other than `runId` holds it. */
export async function liveLeaseOfAnother(runId: string, isLive: RunIsLive): Promise<FleetLease | undefined> {
  const lease = readLease();
  if (!lease || lease.runId === runId) return undefined;
  return (await isLive(lease.runId)) ? lease : undefined;
}

/**
 * Takes the lease for the run (again, after a retry of the same run); throws FleetBusyError when
 * a live run holds it. A stale lease is replaced.
 */
export async function takeLease(lease: FleetLease, isLive: RunIsLive): Promise<FleetLease> {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(LEASE_FILE, JSON.stringify(lease))) return lease;
    const held = readLease();
    if (held?.runId === lease.runId) return held;
    if (held && (await isLive(held.runId))) throw new FleetBusyError(held);
    rmSync(LEASE_FILE, { force: true });
  }
  throw new Error(`could not take the run lease ${LEASE_FILE}`);
}

export function updateLease(lease: FleetLease): void {
  writePrivate(LEASE_FILE, JSON.stringify(lease));
}

/** Gives the lease back if `runId` holds it; another run's lease is left alone. */
export function releaseLease(runId: string): boolean {
  if (readLease()?.runId !== runId) return false;
  rmSync(LEASE_FILE, { force: true });
  return true;
}
