/**
 * What `database.options` may hold for each database, so that a scenario's options are checked
 * before a run starts (an adapter reads them only when it forms its cluster, minutes into a run).
 * Each adapter reads exactly these keys (services/databases/*); add a key here when an adapter
 * learns one.
 */
import type { DatabaseName } from './database';
import { InputError } from './errors';

type OptionValue = string | number | boolean;

interface OptionRule {
  /** What a valid value is, as the error says it. */
  expects: string;
  valid: (value: OptionValue) => boolean;
}

const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER): OptionRule => ({
  expects: max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`,
  valid: (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
});
const yesNo: OptionRule = { expects: 'true or false', valid: (v) => typeof v === 'boolean' };
const oneOf = (...values: string[]): OptionRule => ({
  expects: `one of ${values.join(', ')}`,
  valid: (v) => typeof v === 'string' && values.includes(v),
});

const CASSANDRA_CONSISTENCY = oneOf('ANY', 'ONE', 'TWO', 'THREE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'EACH_QUORUM', 'LOCAL_ONE');

export const DATABASE_OPTIONS: Record<DatabaseName, Record<string, OptionRule>> = {
  redis: {
    port: wholeNumber(1, 65535),
    /** cluster-node-timeout: how long a master is unreachable before its replica may take over. */
    clusterNodeTimeoutMs: wholeNumber(100),
    /** WAIT-based writes: each write waits for this many replicas (0: none). */
    waitReplicas: wholeNumber(0),
    waitTimeoutMs: wholeNumber(1),
  },
  cassandra: {
    heapMb: wholeNumber(1),
    numTokens: wholeNumber(1),
    ringDelayMs: wholeNumber(1),
    fieldCount: wholeNumber(1),
    speedUps: yesNo,
    readConsistency: CASSANDRA_CONSISTENCY,
    writeConsistency: CASSANDRA_CONSISTENCY,
    allowBelowSystemReplication: yesNo,
  },
  mongodb: {
    readPreference: oneOf('primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'),
    writeConcern: {
      expects: '"majority" or a whole number >= 0',
      valid: (v) => v === 'majority' || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
    },
  },
  mysql: { fieldCount: wholeNumber(1) },
  riak: {},
  couchdb: { shards: wholeNumber(1, 64) },
};

/** Names a user may reach for that another setting holds: the error says which. */
const ELSEWHERE: Partial<Record<DatabaseName, Record<string, string>>> = {
  redis: {
    replicasPerMaster: 'replicas per master are set by database.replication (copies of each key: replicas per master + 1)',
    replicas: 'replicas per master are set by database.replication (copies of each key: replicas per master + 1)',
  },
  cassandra: { replicationFactor: 'the replication factor is database.replication' },
};

/**
 * Every problem with `options` for `database`, each naming its field under `where`; with the
 * cell's `replication`, also the options that cannot hold with it.
 */
export function databaseOptionProblems(
  database: DatabaseName,
  options: Record<string, OptionValue> | undefined,
  where: string,
  replication?: number,
): InputError[] {
  const rules = DATABASE_OPTIONS[database];
  const known = Object.keys(rules);
  const problems = Object.entries(options ?? {}).flatMap(([key, value]) => {
    const rule = rules[key];
    if (!rule) {
      const elsewhere = ELSEWHERE[database]?.[key];
      if (elsewhere) return [new InputError(`${where}.${key}`, `is not an option of ${database}: ${elsewhere}`)];
      const offer = known.length ? `${database} takes ${known.join(', ')}` : `${database} takes none`;
      return [new InputError(`${where}.${key}`, `is not an option of ${database}; ${offer}`)];
    }
    return rule.valid(value) ? [] : [new InputError(`${where}.${key}`, `must be ${rule.expects}, got ${JSON.stringify(value)}`)];
  });
  const wait = options?.waitReplicas;
  if (database === 'redis' && typeof wait === 'number' && wait > 0 && wait > (replication ?? 1) - 1) {
    problems.push(
      new InputError(
        `${where}.waitReplicas`,
        `is ${wait} but each master has ${(replication ?? 1) - 1} replica(s) (database.replication ${replication ?? 1}): every write would fail; raise database.replication or lower waitReplicas`,
      ),
    );
  }
  return problems;
}
