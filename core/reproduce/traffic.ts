/**
 * SPEC.md §4.2, traffic per node pair: the WireGuard byte counters of every pair read just before
 * and just after each epoch, per workload and latency scale. Epochs here are bounded by time, not
 * by an operation count, so the figure compared across scales is bytes per operation.
 */
import { epochPhases, type Reproduction } from './experiment';
import { EPOCH_CASSANDRA, epochParts, LATENCY_WORKLOADS } from './latency';

const SCALES = [0.2, 1.0];
const SECONDS = 20;
const epochs = epochPhases(LATENCY_WORKLOADS, SCALES, SECONDS, { measure: ['traffic'] });

export const traffic: Reproduction = {
  id: 'traffic',
  title: 'Traffic per node pair and normalized transferred data',
  source: 'SPEC.md §4.2',
  publishedSetup:
    "the latency epochs' fleet (8 data nodes, client at Singapore); bytes per node pair per workload and latency scale for 100,000 operations, normalized to 5X",
  scaling: {
    sites: `fhc-8dc; Redis on all 8 sites, Cassandra on ${EPOCH_CASSANDRA.sites.length} (${EPOCH_CASSANDRA.sites.join(', ')})`,
    records: '1,000 records of 10 x 100 bytes',
    durations: `${SECONDS} s per workload (A, C, F, E) at scales 0.2 and 1.0; bytes per operation instead of bytes per 100,000 operations`,
    threads: `Redis 8, Cassandra ${EPOCH_CASSANDRA.threads}, as the latency reproduction`,
    why: 'The same load as the latency reproduction, which leaves the host mostly idle; counters are read between epochs, not during them.',
  },
  notRunHere: ['workloads B and D, scales 0.4 to 0.8: time budget', 'MongoDB and MySQL Cluster: not runnable on this host'],
  defaultRepeat: 1,
  parts: epochParts('reproduce-traffic', 'traffic per node pair (reproduction, scaled to one host)', epochs),
};
