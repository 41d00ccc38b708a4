/** The database activities reject bad input by field before any adapter runs a command. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addNode, clusterStatus, removeNode, startCluster } from '../../activities/database';
import { InputError } from '../../core/errors';
import type { FleetRef } from '../../core/fleet-ref';
import type { DatabaseName } from '../../activities/contracts';
import { scratchStateDir, vmNode } from '../support/recording-exec';

const stateDir = scratchStateDir();
let fleet: FleetRef;

beforeAll(() => {
  const dir = stateDir();
  const client = { ...vmNode('client', '198.18.202.9'), role: 'client' as const };
  const inventory = {
    schemaVersion: 1,
    name: 'acts',
    source: 'file',
    nodes: [vmNode('d1', '198.18.202.1'), client],
    links: [],
    clientNode: 'client',
    shaping: 'tc',
  };
  writeFileSync(join(dir, 'inventory.json'), JSON.stringify(inventory));
  fleet = { kind: 'file', path: join(dir, 'inventory.json') };
});

async function inputError(work: Promise<unknown>): Promise<InputError> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return err as InputError;
}

test('an unknown node is named by its field', async () => {
  const err = await inputError(startCluster({ fleet, database: 'redis', nodes: ['d1', 'nope'] }));
  expect(err.field).toBe('nodes[1]');
  expect(err.message).toMatch(/no node "nope" in fleet acts; its nodes are d1, client/);
  expect((await inputError(addNode({ fleet, database: 'cassandra', node: 'nope' }))).field).toBe('node');
});

test('databases run on data nodes only', async () => {
  const err = await inputError(removeNode({ fleet, database: 'mongodb', node: 'client' }));
  expect(err.message).toMatch(/"client" is a client node; databases run on data nodes/);
});

test('an unknown database is refused', async () => {
  const err = await inputError(clusterStatus({ fleet, database: 'dynamo' as DatabaseName }));
  expect(err.field).toBe('database');
  expect(err.message).toMatch(/unknown database "dynamo"; use one of redis, cassandra, mongodb, mysql, riak, couchdb/);
});

test('no nodes at all is refused', async () => {
  expect((await inputError(startCluster({ fleet, database: 'mysql', nodes: [] }))).field).toBe('nodes');
});

test('status of a database never started on the fleet is empty, not an error', async () => {
  expect(await clusterStatus({ fleet, database: 'mysql' })).toEqual({ members: [], healthy: false });
});
