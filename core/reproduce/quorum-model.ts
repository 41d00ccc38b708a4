/**
 * What round trips alone make a quorum operation cost, for a cluster where every member holds a
 * replica of every key (members <= replication factor): the client sends to a coordinator, which
 * answers once it and the nearest members it needs for a quorum have. Drivers spread coordinators
 * over the members in turn (YCSB's Cassandra binding: round robin within one data centre), so the
 * mean operation is the mean over coordinators. Processing time, queueing and the overlay's own
 * cost are left out: the model says what the network alone explains.
 */
import { InputError } from '../errors';
import { CONFIGURED_RTT, REPLICATION_FACTOR, unorderedPair } from './figures';
import { NotObserved, type RepetitionFigures } from './observe';

/** The model's assumptions, as the comparison lines state them (every cluster modelled here runs replication 3). */
export const QUORUM_MODEL_ASSUMPTIONS = 'every member a replica, QUORUM of 3, coordinators in turn';

export interface QuorumCluster {
  client: string;
  members: string[];
  replicationFactor: number;
}

/** Replicas a QUORUM operation waits for: a majority of the replication factor (Cassandra counts it from the factor, not from the live members). */
export function quorumOf(replicationFactor: number): number {
  return Math.floor(replicationFactor / 2) + 1;
}

/** The mean operation's round trips, ms, with `rttMs(a, b)` the configured round trip between two nodes. */
export function quorumOperationMs(cluster: QuorumCluster, rttMs: (a: string, b: string) => number): number {
  const { client, members, replicationFactor } = cluster;
  const quorum = quorumOf(replicationFactor);
  if (members.length === 0) throw new InputError('members', 'the quorum model needs at least one member');
  if (members.length > replicationFactor)
    throw new InputError(
      'members',
      `${members.length} members with a replication factor of ${replicationFactor}: not every member holds every key, so which ones answer depends on the ring; the model covers clusters of at most ${replicationFactor} members`,
    );
  if (members.length < quorum)
    throw new InputError('members', `${members.length} members cannot make a quorum of ${quorum} (replication factor ${replicationFactor})`);
  const perCoordinator = members.map((coordinator) => {
    // The coordinator's own replica counts: it waits for the quorum's other members, nearest first.
    const others = members
      .filter((m) => m !== coordinator)
      .map((m) => rttMs(coordinator, m))
      .sort((a, b) => a - b);
    return rttMs(client, coordinator) + (quorum > 1 ? others[quorum - 2] : 0);
  });
  return perCoordinator.reduce((a, b) => a + b, 0) / perCoordinator.length;
}

/**
 * The model for one measured phase of a repetition: its cell's replication factor and the round
 * trips its probes found configured (configuration, read whatever the phase's verdict). Not
 * observed when the cell ran other than QUORUM reads and writes or a pair was never probed.
 */
export function modelledOperationMs(
  r: RepetitionFigures,
  at: { database: string; cell: string | RegExp; phase: string },
  client: string,
  members: string[],
): number {
  const [factor] = r.all({ database: at.database, cell: at.cell, phase: 'cluster', measure: REPLICATION_FACTOR });
  if (!factor) throw new NotObserved(`not measured: ${at.database} replication factor`);
  if (factor.text !== 'QUORUM reads, QUORUM writes')
    throw new NotObserved(`the quorum model needs QUORUM reads and writes; the cell ran ${factor.text}`);
  const rttMs = (a: string, b: string) => {
    const pair = unorderedPair(a, b);
    const [rtt] = r.all({ database: at.database, cell: at.cell, phase: at.phase, measure: CONFIGURED_RTT, pair });
    if (!rtt) throw new NotObserved(`no probe of ${pair} in ${at.phase}`);
    return rtt.value;
  };
  return quorumOperationMs({ client, members, replicationFactor: factor.value }, rttMs);
}
