/**
 * Classifiers: which role a process counts as. The sampler takes any `ProcessClassifier`, so a
 * cloud back end (one VM per node, no namespaces) can supply its own; this file holds the rules
 * every back end shares: what a program is. Where it runs is the back end's part (`local-fleet.ts`).
 */
import { basename } from 'node:path';
import { dbRole, ycsbRole, type ProcessInfo, type Role } from '../../core/telemetry';
import { TOOL_JVM_MAINS } from '../../services/databases/cassandra/config';

/** Main classes of the YCSB client: this project's wrapper and YCSB's own. */
const YCSB_MAIN_CLASSES = ['fragbench.ycsb.Main', 'site.ycsb.Client'];
/** Database servers by kernel command name (Cassandra runs as `java`, told apart from YCSB by its argv). */
const DATABASE_PROGRAMS = new Set(['redis-server', 'java', 'mongod', 'mysqld', 'ndbd', 'ndbmtd', 'ndb_mgmd']);
/** The fleet's daemons by command name, for when the fleet state is missing or a PID was restarted. */
const DAEMON_ROLES: Record<string, Role> = {
  'fb-wan': 'emulator',
  'wireguard-go': 'wireguard',
  'boringtun-cli': 'wireguard',
  tincd: 'tinc',
  temporal: 'temporal',
};

export function isYcsbClient(p: ProcessInfo): boolean {
  return p.argv.some((arg) => YCSB_MAIN_CLASSES.includes(arg));
}

/**
 * Rules by program alone: the tool's daemons by name, YCSB by main class, the tool's commands
 * that run as JVMs on a node (counted as the worker's), a database server by name on a database node. `nodeOf` says which node a process runs on (undefined: not a node).
 */
export function classifyByProgram(
  p: ProcessInfo,
  nodeOf: (p: ProcessInfo) => string | undefined,
  isDataNode: (node: string) => boolean,
): Role | undefined {
  // Kernel command names are cut at 15 characters; argv[0] is whole, so check both.
  const daemon = DAEMON_ROLES[p.comm] ?? DAEMON_ROLES[basename(p.argv[0] ?? '')];
  if (daemon) return daemon;
  const node = nodeOf(p);
  if (isYcsbClient(p)) return ycsbRole(node ?? 'host');
  // The adapter's own JVMs on a node (nodetool, CQL, the ring watcher) are the tool's work, not the database's.
  if (p.comm === 'java' && p.argv.some((arg) => TOOL_JVM_MAINS.includes(arg))) return 'worker';
  if (node !== undefined && isDataNode(node) && DATABASE_PROGRAMS.has(p.comm)) return dbRole(node);
  return undefined;
}
