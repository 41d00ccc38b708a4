/**
 * A scenario end to end through the cloud code path on VM-shaped local nodes (infra/vmlocal): the
 * fragmented stack's steps build the fleet (SSH via the jump host, cloud-init's packages, the mesh
 * scripts), then `fragbench run` on its inventory file runs Redis Cluster installed by the
 * adapter's apt step, YCSB shipped with its Java to the client node and run there, a node removed
 * (resize), a link cut and restored by the tc back end, and the report. On the same nodes,
 * Cassandra by its adapter: installed from the local repository's stand-in for Apache's package,
 * one node formed, a second joining and leaving, rows read through CQL. Then the nodes go and
 * nothing is left. On a warm image about 55 s for the Redis part, a third of it the client's Java
 * install, and 70 s for Cassandra's (installs 15, one node formed 14, join 16, leave 15).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ClusterInfo } from '../../core/database';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { findNode, type InventoryNode } from '../../core/inventory';
import { listNamespaces } from '../../infra/local/namespaces';
import { REPOSITORY_URL, VM_PREFIX } from '../../infra/vmlocal/addresses';
import { cassandraDeb } from '../../infra/vmlocal/cassandra-deb';
import { operatorSshPath, vmFleetDown, vmFleetPaths } from '../../infra/vmlocal/fleet';
import { NO_NETEM, vmStackUp, type VmStack } from '../../infra/vmlocal/stack';
import { CassandraAdapter, KEYSPACE, TABLE } from '../../services/databases/cassandra/cassandra';
import { cqlArgv, PACKAGE, PACKAGE_CLASSPATH } from '../../services/databases/cassandra/config';
import { NodeShell } from '../../services/databases/node-shell';
import { nodeDir } from '../../services/databases/state';
import { SshExec } from '../../services/exec/transports';
import { allDone } from '../../platform/wait';
import { stopDevServer } from '../../worker/dev-server';
import { writeThreeSitesScenario, writeThreeSitesTopology } from '../support/small-topology';

// A run of 20 s takes 50 s alone and up to 145 s beside CI's other lanes; in the CI of 6b78bf9 the
// host ran ~3x slower for stage 1's first ten minutes and the run was stopped at 300 s. Nothing here
// judges time, so the bounds leave room for that; a run still going at 600 s is a fault.
jest.setTimeout(700_000);

const CLI = path.join(__dirname, '../../bin/fragbench.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-vm-scenario-'));
const pathBefore = process.env.PATH;
let stack: VmStack;
let cassandra: CassandraAdapter | undefined;

const sshOf = (name: string) => new SshExec(findNode(stack.inventory, name).exec as Extract<InventoryNode['exec'], { transport: 'ssh' }>);

beforeAll(async () => {
  process.env.PATH = `${operatorSshPath()}:${pathBefore ?? ''}`;
  const topology = writeThreeSitesTopology(path.join(scratch, 'vm-e2e.yaml'), 'vm-e2e');
  stack = await vmStackUp('vm-e2e', topology);
});

afterAll(async () => {
  // Its state on this host; its processes and files go with the nodes.
  await cassandra?.stop().catch(() => undefined);
  await vmFleetDown();
  await stopDevServer();
  process.env.PATH = pathBefore;
  rmSync(scratch, { recursive: true, force: true });
});

test('fleet built, Redis resized, link cut, report produced on VM-shaped nodes', async () => {
  const inventoryFile = path.join(scratch, 'inventory.json');
  writeFileSync(inventoryFile, JSON.stringify(stack.inventory, null, 2));
  const scenario = writeThreeSitesScenario(path.join(scratch, 'vm.yaml'), {
    name: 'vm-e2e',
    experiment: 'Does the cloud code path run a scenario on VM-shaped nodes?',
    fleet: { inventoryFile },
    run: {
      duration: 20,
      waitForResizes: true,
      events: [
        { at: 3, remove: 'cow' },
        { at: 8, cut: 'ant-bee/0' },
        { at: 14, restore: 'ant-bee/0' },
      ],
    },
  });
  const results = path.join(scratch, 'results');
  const run = spawnSync(process.execPath, [CLI, 'run', scenario, '--local'], {
    env: { ...process.env, FRAGBENCH_RESULTS_DIR: results },
    encoding: 'utf8',
    timeout: 600_000,
  });
  // On a failure, what the run printed last says where it stood.
  const tail = (text: string | null) => (text ?? '').split('\n').slice(-15).join('\n');
  expect({ status: run.status, signal: run.signal, stdout: tail(run.stdout) }).toEqual({
    status: 0,
    signal: null,
    stdout: expect.any(String) as unknown,
  });
  const runId = /^started run (\S+):/m.exec(run.stdout)?.[1] as string;
  const record = JSON.parse(readFileSync(path.join(results, runId, 'run.json'), 'utf8')) as RunRecord;
  expect(record.status).toBe('completed');
  expect(record.inventory.shapingLimits).toEqual([NO_NETEM]);
  const [cellFile] = readdirSync(path.join(results, runId, 'cells')).filter((f) => f.endsWith('.json'));
  const cell = JSON.parse(readFileSync(path.join(results, runId, 'cells', cellFile), 'utf8')) as CellRecord;
  const runPhase = cell.phases.find((p) => p.name === 'run') as CellRecord['phases'][number];
  expect(runPhase.resizes.map((r) => [r.node, r.completedAt >= r.acceptedAt, r.stillMovingAtPhaseEndS])).toEqual([['cow', true, undefined]]);
  expect(runPhase.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['resize-remove', 'link-cut', 'link-restore']));
  expect(cell.summary.okOps).toBeGreaterThan(1000);
  // The report, saying what the tc back end did not apply here.
  const report = /^report: (.+)$/m.exec(run.stdout)?.[1] as string;
  expect(readFileSync(report, 'utf8')).toContain('Link shaping on this fleet: the kernel has no netem');

  // YCSB ran on the client VM, from the client and Java shipped there.
  const shipped = await sshOf('desk').run(['sh', '-c', 'ls -a /opt/fragbench/ycsb; java -version 2>&1 | head -1']);
  expect(shipped.stdout).toMatch(/\.fragbench-shipped-[0-9a-f]{12}/);
  expect(shipped.stdout).toMatch(/openjdk version "17/);
});

/** Rows of CQL statements run on `name` with the adapter's own CQL tool, from the installed package's jars. */
async function cql(name: string, statements: string[]): Promise<string[]> {
  const node = findNode(stack.inventory, name);
  const argv = cqlArgv(PACKAGE_CLASSPATH, nodeDir(stack.inventory.name, 'cassandra', name), node.overlayAddress);
  const rows = await new NodeShell(node, sshOf(name)).output(argv, { input: statements.join('\n;\n'), timeoutMs: 120_000 });
  return rows.split('\n').filter(Boolean);
}

const ROWS = 100;
const countRows = `SELECT COUNT(*) FROM ${KEYSPACE}.${TABLE}`;

/** Command lines of the Cassandra JVMs running on a node. */
async function cassandraJvms(name: string): Promise<string[]> {
  const { stdout } = await sshOf(name).run(['ps', '-e', '-o', 'args=']);
  return stdout.split('\n').filter((line) => line.includes('org.apache.cassandra.service.CassandraDaemon'));
}

test("Cassandra by its adapter's VM path: installed from the stand-in for Apache's package, one node, a second joins and leaves, rows kept", async () => {
  const took: string[] = [];
  const timed = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    const result = await step();
    took.push(`${what} ${((Date.now() - t) / 1000).toFixed(1)} s`);
    return result;
  };
  const started = Date.now();
  const adapter = new CassandraAdapter(stack.inventory);
  cassandra = adapter;
  await adapter.stop(); // state an earlier run that died left on this host
  const [ant, bee] = ['ant', 'bee'].map((n) => findNode(stack.inventory, n));
  // bee's install goes on while ant forms: it joins later.
  // Below three nodes (system_distributed's replication): its decommission needs --force.
  const settings = { options: { heapMb: 256, fieldCount: 1, allowBelowSystemReplication: true } };
  let info: ClusterInfo | undefined;
  await allDone([
    timed('install + form on ant', async () => {
      await adapter.install(ant);
      info = await adapter.formCluster([ant], settings);
    }),
    timed('install on bee', () => adapter.install(bee)),
  ]);
  const built = cassandraDeb();
  expect(info?.version).toBe(built?.version);
  const policy = (await sshOf('bee').run(['apt-cache', 'policy', PACKAGE.name])).stdout;
  expect(policy).toContain(`${new URL(REPOSITORY_URL).origin} ./ Packages`);
  expect(policy).toContain(`Installed: ${built?.version}`);
  const inserts = Array.from({ length: ROWS }, (_, i) => `INSERT INTO ${KEYSPACE}.${TABLE} (y_id, field0) VALUES ('user${i}', 'kept')`);
  expect(await timed('CQL', () => cql('ant', [...inserts, countRows]))).toEqual([String(ROWS)]);

  const joined = await timed('bee joins', () => adapter.addNode(bee));
  expect(joined.completedAt).toBeGreaterThanOrEqual(joined.acceptedAt);
  expect(await adapter.status()).toEqual({ members: expect.arrayContaining(['ant', 'bee']) as unknown, healthy: true });

  await timed('bee leaves', () => adapter.removeNode(bee));
  expect(await cassandraJvms('bee')).toEqual([]);
  const beeDir = nodeDir(stack.inventory.name, 'cassandra', 'bee');
  expect((await sshOf('bee').run(['test', '-e', beeDir], { allowFailure: true })).code).not.toBe(0);
  // One replica: the rows bee took over when it joined came back to ant when it left.
  expect(await timed('CQL', () => cql('ant', [countRows]))).toEqual([String(ROWS)]);

  await timed('stop', () => adapter.stop());
  expect(await cassandraJvms('ant')).toEqual([]);
  console.log(`Cassandra on VM-shaped nodes: ${((Date.now() - started) / 1000).toFixed(1)} s (${took.join(', ')})`);
});

test('nodes removed, nothing left', async () => {
  await vmFleetDown();
  expect((await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX))).toEqual([]);
  expect(existsSync(vmFleetPaths.dir())).toBe(false);
});
