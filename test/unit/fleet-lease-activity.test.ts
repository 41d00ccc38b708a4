/**
 * Holding the local fleet, split in two: the service (operations/fleet/fleet-lease.ts) takes the
 * lease and throws the domain's errors; the activity (activities/fleet-lease.ts) turns a busy
 * fleet into a non-retryable failure and leaves bad input as InputError for the worker's
 * interceptor. Runs against a private state root: no fleet is brought up (the lease is refused,
 * or the run asks for an existing fleet that is not there, before anything starts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { FleetLease } from '../../core/fleet-lease';

const root = mkdtempSync(path.join(tmpdir(), 'fb-lease-'));
const leaseFile = path.join(root, 'run-lease.json');
// The lease and fleet paths are read when their modules load: point them here first.
process.env.FRAGBENCH_STATE_DIR = root;
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the state directory is set, which an import would precede */
const activity = require('../../activities/fleet-lease') as typeof import('../../activities/fleet-lease');
const service = require('../../operations/fleet/fleet-lease') as typeof import('../../operations/fleet/fleet-lease');
/* eslint-enable @typescript-eslint/no-require-imports */

const other: FleetLease = { runId: 'fb-other-run', topology: 'fhc-4', since: 1_700_000_000_000, broughtUp: false };
const input = { runId: 'fb-this-run', scenarioFile: 'scenarios/quickstart.yaml', mode: 'existing' as const };

afterEach(() => rmSync(leaseFile, { force: true }));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('a fleet another live run holds fails the activity at once, naming that run, and its lease stays', async () => {
  writeFileSync(leaseFile, JSON.stringify(other));
  const failure = await activity.acquireFleet(input).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'FleetBusy', nonRetryable: true });
  expect((failure as Error).message).toContain('fb-other-run');
  expect(JSON.parse(readFileSync(leaseFile, 'utf8'))).toEqual(other);
});

test('the service takes over a lease whose run has ended, and gives it back when the run cannot start', async () => {
  writeFileSync(leaseFile, JSON.stringify(other));
  const asked: string[] = [];
  const runIsLive = (runId: string) => (asked.push(runId), Promise.resolve(false));
  // No fleet is up and the run wants an existing one: bad input, named, not a Temporal failure.
  const error = await service.acquireFleet(input, { runIsLive }).catch((err: unknown) => err);
  expect(error).toMatchObject({ name: 'InputError', field: 'fleet' });
  expect((error as Error).message).toContain('fragbench fleet up');
  expect(asked).toEqual(['fb-other-run']);
  // The stale lease was replaced by this run's, then given back on the failure.
  expect(() => readFileSync(leaseFile)).toThrow(/ENOENT/);
});

test('the activity passes bad input on unchanged, for the worker to make non-retryable', async () => {
  const error = await activity.acquireFleet(input).catch((err: unknown) => err);
  expect(error).not.toBeInstanceOf(ApplicationFailure);
  expect(error).toMatchObject({ name: 'InputError', field: 'fleet' });
});
