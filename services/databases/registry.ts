/** The one place that maps a database name to its adapter. */
import type { DatabaseAdapter, DatabaseName } from '../../core/database';
import { InputError } from '../../core/errors';
import type { Inventory } from '../../core/inventory';
import { CassandraAdapter } from './cassandra/cassandra';
import { CouchDbAdapter } from './couchdb/couchdb';
import { MongoReplicaSetAdapter } from './mongodb';
import { MysqlClusterAdapter } from './mysql/mysql-cluster';
import { defaultExecProvider, type ExecProvider } from './node-shell';
import { RedisClusterAdapter } from './redis/redis-cluster';
import { RiakAdapter } from './riak/riak';

const ADAPTERS: Record<DatabaseName, new (inventory: Inventory, execOf: ExecProvider) => DatabaseAdapter> = {
  redis: RedisClusterAdapter,
  cassandra: CassandraAdapter,
  mongodb: MongoReplicaSetAdapter,
  mysql: MysqlClusterAdapter,
  riak: RiakAdapter,
  couchdb: CouchDbAdapter,
};

export const DATABASES = Object.keys(ADAPTERS) as DatabaseName[];

export function adapterFor(database: DatabaseName, inventory: Inventory, execOf: ExecProvider = defaultExecProvider): DatabaseAdapter {
  const Adapter = ADAPTERS[database];
  if (!Adapter) throw new InputError('database', `unknown database "${database}"; use one of ${DATABASES.join(', ')}`);
  return new Adapter(inventory, execOf);
}
