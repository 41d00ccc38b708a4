/** Deviations and reasons not to compare that several reproductions state alike, written once. */
import type { Deviation, NotCompared } from './experiment';

type Reason = Omit<NotCompared, 'id'>;

/** The software this host runs: services/databases/cassandra/pom.xml, the distribution's redis-server, ycsb/pom.xml. */
export const VERSIONS_HERE = 'Cassandra 5.0.9, Redis 7.0, YCSB 0.17.0 with Jedis 5.1.5 and the DataStax 4.17 driver';

export function versionsDeviation(published: string): Deviation {
  return {
    what: 'software versions',
    published,
    ours: VERSIONS_HERE,
    why: 'The versions this host’s registries and Maven Central give; the older ones are not packaged for it. Closed-loop ratios over a WAN are set by round trips, which the versions do not change',
  };
}

export const MONGODB_MYSQL: Reason = {
  group: 'database not runnable here',
  reason: 'MongoDB and MySQL Cluster have no package on this host’s registries; their adapters run them only on VM fleets',
};

export const NOT_RUNNABLE: Reason = {
  group: 'database not runnable here',
  reason: 'MongoDB, MySQL Cluster, Riak and CouchDB have no package on this host’s registries; their adapters run them only on VM fleets',
};

export const OTHER_HARDWARE: Reason = {
  group: 'absolute value on other hardware',
  reason:
    'an absolute throughput of the published VMs (their cores, disks and network); here every node shares one 2-core host, so only ratios and orderings are compared',
};

/** A VM's cores or RAM: every local node shares the host's. */
export const VM_SIZE: Reason = {
  group: 'set-up not emulated here',
  reason: 'the effect of a VM’s cores or RAM: every node of a local fleet shares this host’s 2 cores and memory, so VM sizes cannot differ here',
};

export const RETRIES_HIDE_ERRORS: Reason = {
  group: 'set-up not emulated here',
  reason:
    'a share of failed operations: our client retries a failed operation once with a 10 s timeout (REPRODUCTION_YCSB), the published one ran YCSB’s defaults, so error shares are not the same measure',
};
