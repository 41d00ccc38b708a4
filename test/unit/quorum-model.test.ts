/**
 * The quorum model (core/reproduce/quorum-model.ts) on synthetic round trips: the mean over
 * coordinators of the client's trip to one and its trips to the nearest members a quorum needs,
 * and refusals where the model does not hold.
 */
import { quorumOf, quorumOperationMs } from '../../core/reproduce/quorum-model';

const rtt = (table: Record<string, number>) => (a: string, b: string) => table[`${a}-${b}`] ?? table[`${b}-${a}`];

test('a quorum is a majority of the replication factor, whatever the number of members', () => {
  expect([1, 2, 3, 4, 5].map(quorumOf)).toEqual([1, 2, 2, 3, 3]);
});

test('each coordinator waits for its nearest other member; the mean is over the coordinators', () => {
  const trips = rtt({ 'c-a': 10, 'c-b': 20, 'c-d': 30, 'a-b': 100, 'a-d': 5, 'b-d': 50 });
  // a: 10 + 5, b: 20 + 50, d: 30 + 5.
  expect(quorumOperationMs({ client: 'c', members: ['a', 'b', 'd'], replicationFactor: 3 }, trips)).toBeCloseTo((15 + 70 + 35) / 3, 9);
  // Two members at a replication factor of 3: the quorum of 2 is both, whichever coordinates.
  expect(quorumOperationMs({ client: 'c', members: ['a', 'b'], replicationFactor: 3 }, trips)).toBeCloseTo((110 + 120) / 2, 9);
  // A factor of 1: the coordinator answers alone.
  expect(quorumOperationMs({ client: 'c', members: ['a'], replicationFactor: 1 }, trips)).toBe(10);
  // A factor of 5 on five members: each waits for its second-nearest other.
  const five = rtt({
    'c-1': 1,
    'c-2': 1,
    'c-3': 1,
    'c-4': 1,
    'c-5': 1,
    '1-2': 1,
    '1-3': 2,
    '1-4': 3,
    '1-5': 4,
    '2-3': 5,
    '2-4': 6,
    '2-5': 7,
    '3-4': 8,
    '3-5': 9,
    '4-5': 10,
  });
  // 1: others 1,2,3,4 -> 2; 2: 1,5,6,7 -> 5; 3: 2,5,8,9 -> 5; 4: 3,6,8,10 -> 6; 5: 4,7,9,10 -> 7.
  expect(quorumOperationMs({ client: 'c', members: ['1', '2', '3', '4', '5'], replicationFactor: 5 }, five)).toBeCloseTo(
    1 + (2 + 5 + 5 + 6 + 7) / 5,
    9,
  );
});

test('refused where it does not hold: more members than replicas, or too few for a quorum', () => {
  const trips = () => 1;
  expect(() => quorumOperationMs({ client: 'c', members: ['a', 'b', 'd', 'e'], replicationFactor: 3 }, trips)).toThrow(
    /4 members with a replication factor of 3: not every member holds every key/,
  );
  expect(() => quorumOperationMs({ client: 'c', members: ['a'], replicationFactor: 3 }, trips)).toThrow(/1 members cannot make a quorum of 2/);
  expect(() => quorumOperationMs({ client: 'c', members: [], replicationFactor: 3 }, trips)).toThrow(/at least one member/);
});
