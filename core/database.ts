/**
 * A database adapter: how fragbench installs, forms, resizes and empties one database on a fleet.
 * One implementation per database in services/databases/. Adapters keep what they started
 * (members, PIDs) in the fleet's state so that any later activity can stop it.
 */
import type { InventoryNode } from './inventory';

/** What the YCSB client needs: the binding class and its properties (hosts, timeouts...). */
export interface YcsbBinding {
  /** Fully qualified site.ycsb.DB subclass in the project's ycsb/ module. */
  dbClass: string;
  properties: Record<string, string>;
}

export interface DatabaseAdapter {
  readonly name: DatabaseName;
  /** On a VM: install from the vendor's repository. Locally: check the binaries are there. */
  install(node: InventoryNode): Promise<void>;
  /**
   * Caps each node's server at `cpus` cores from the next formation on (none: no cap), before
   * formCluster; refused where the nodes do not share this host.
   */
  useCpuCap(cpus: number | undefined, nodes: InventoryNode[]): void;
  /** Starts the database on every node and forms one cluster of them. */
  formCluster(nodes: InventoryNode[], settings: ClusterSettings): Promise<ClusterInfo>;
  addNode(node: InventoryNode): Promise<ResizeTiming>;
  removeNode(node: InventoryNode): Promise<ResizeTiming>;
  status(): Promise<{ members: string[]; healthy: boolean }>;
  /**
   * Empties the data (YCSB's flush phase), keeping the cluster formed. Databases with a fixed
   * schema (Cassandra, MySQL) recreate their table when given a field count other than its own.
   */
  flush(options?: { fieldCount?: number }): Promise<void>;
  /** Stops every process of this database the fleet runs; idempotent. */
  stop(): Promise<void>;
  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding;
  /** Members whose server process is gone though the cluster still counts them (a crash, an OOM kill). */
  deadMembers(): Promise<string[]>;
  /**
   * Starts a dead member's server again on its own directory (configuration and data kept), so
   * that it rejoins as the same member; resolves once it serves.
   */
  restartMember(node: string): Promise<void>;
  /**
   * Crashes a member on purpose (SIGKILL to its server), as a scenario's `kill` event asks: the
   * member stays in the cluster, down, and is not restarted by supervision until `restartMember`.
   */
  killMember(node: string): Promise<void>;
}

export type DatabaseName = 'redis' | 'cassandra' | 'mongodb' | 'mysql' | 'riak' | 'couchdb';

/**
 * Databases whose adapters run only on VM fleets (Ubuntu, vendor packages) and have never run on
 * this project's machines: no package is reachable here, so only their command sequences are
 * tested (against the vendors' documentation). A local fleet refuses them at planning time.
 */
export const VM_ONLY_NOT_EXECUTED_HERE: readonly DatabaseName[] = ['riak', 'couchdb'];

export interface ResizeTiming {
  node: string;
  requestedAt: number;
  /** The cluster confirmed the request. */
  acceptedAt: number;
  /** Data moved and the node serving (or gone), as the database's adapter defines it. */
  completedAt: number;
  /** Set when the phase's workload ended (this many seconds into it) before the resize completed. */
  stillMovingAtPhaseEndS?: number;
}

export interface ClusterSettings {
  /** Replication factor / replicas, where the database has one. */
  replication?: number;
  /** Database-specific settings; non-default ones are recorded with the results. */
  options?: Record<string, string | number | boolean>;
  /**
   * CPU cores each node's server may use (a cgroup cap): a small VM's CPU on a node that shares
   * this host's cores. Local fleets only; recorded with the results.
   */
  cpusPerNode?: number;
}

export interface ClusterInfo {
  database: DatabaseName;
  version: string;
  members: string[];
  /** Settings that differ from the database's defaults (e.g. Cassandra's ring_delay_ms), labelled in results. */
  nonDefaultSettings: Record<string, string>;
  /**
   * The settings that decide what the database keeps and what a read sees (replicas, consistency
   * levels, write concern, failover timeout), defaults included: recorded with each cell.
   */
  consistency?: Record<string, string>;
  formedInMs: number;
}
