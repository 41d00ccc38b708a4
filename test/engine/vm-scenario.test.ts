/**
 * A scenario end to end through the cloud code path on VM-shaped local nodes (infra/vmlocal): the
 * fragmented stack's steps build the fleet (SSH via the jump host, cloud-init's packages, the mesh
 * scripts), then `fragbench run` on its inventory file runs Redis Cluster installed by the
 * adapter's apt step, YCSB shipped with its Java to the client node and run there, a node removed
 * (resize), a link cut and restored by the tc back end, and the report; then the nodes go and
 * nothing is left. About 90 s on a warm image, a third of it the client's Java install.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { findNode, type InventoryNode } from '../../core/inventory';
import { listNamespaces } from '../../infra/local/namespaces';
import { VM_PREFIX } from '../../infra/vmlocal/addresses';
import { operatorSshPath, vmFleetDown, vmFleetPaths } from '../../infra/vmlocal/fleet';
import { NO_NETEM, vmStackUp, type VmStack } from '../../infra/vmlocal/stack';
import { SshExec } from '../../services/exec/transports';
import { stopDevServer } from '../../worker/dev-server';
import { writeThreeSitesScenario, writeThreeSitesTopology } from '../support/small-topology';

jest.setTimeout(400_000);

const CLI = path.join(__dirname, '../../bin/fragbench.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-vm-scenario-'));
const pathBefore = process.env.PATH;
let stack: VmStack;

beforeAll(async () => {
  process.env.PATH = `${operatorSshPath()}:${pathBefore ?? ''}`;
  const topology = writeThreeSitesTopology(path.join(scratch, 'vm-e2e.yaml'), 'vm-e2e');
  stack = await vmStackUp('vm-e2e', topology);
});

afterAll(async () => {
  await vmFleetDown();
  await stopDevServer();
  process.env.PATH = pathBefore;
  rmSync(scratch, { recursive: true, force: true });
});

test('fleet built, Redis resized, link cut, report produced on VM-shaped nodes; nodes removed, nothing left', async () => {
  const inventoryFile = path.join(scratch, 'inventory.json');
  writeFileSync(inventoryFile, JSON.stringify(stack.inventory, null, 2));
  const scenario = writeThreeSitesScenario(path.join(scratch, 'vm.yaml'), {
    name: 'vm-e2e',
    experiment: 'Does the cloud code path run a scenario on VM-shaped nodes?',
    fleet: { inventoryFile },
    run: { duration: 20, waitForResizes: true, events: [{ at: 3, remove: 'cow' }, { at: 8, cut: 'ant-bee/0' }, { at: 14, restore: 'ant-bee/0' }] },
  });
  const results = path.join(scratch, 'results');
  const run = spawnSync(process.execPath, [CLI, 'run', scenario, '--local'], {
    env: { ...process.env, FRAGBENCH_RESULTS_DIR: results },
    encoding: 'utf8',
    timeout: 300_000,
  });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
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
  const desk = new SshExec(findNode(stack.inventory, 'desk').exec as Extract<InventoryNode['exec'], { transport: 'ssh' }>);
  const shipped = await desk.run(['sh', '-c', 'ls -a /opt/fragbench/ycsb; java -version 2>&1 | head -1']);
  expect(shipped.stdout).toMatch(/\.fragbench-shipped-[0-9a-f]{12}/);
  expect(shipped.stdout).toMatch(/openjdk version "17/);

  await vmFleetDown();
  expect((await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX))).toEqual([]);
  expect(existsSync(vmFleetPaths.dir())).toBe(false);
});
