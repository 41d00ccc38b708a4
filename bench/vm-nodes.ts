/**
 * What the VM-shaped local nodes (infra/vmlocal) cost in time, layer by layer: the image's build
 * (as its build recorded it: `scripts/build-vm-rootfs.ts` on a fresh machine), the nodes' start,
 * cloud-init's packages, the mesh scripts, and, outside the short mode, the Redis and Cassandra
 * installs by their adapters and the YCSB client's Java and jars shipped to the client node; then
 * the nodes' removal and a check that nothing is left.
 *
 *   npx tsx bench/vm-nodes.ts [--short]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { stringify } from 'yaml';
import { findNode, type InventoryNode } from '../core/inventory';
import { listNamespaces } from '../infra/local/namespaces';
import { VM_PREFIX } from '../infra/vmlocal/addresses';
import { operatorSshPath, vmFleetDown } from '../infra/vmlocal/fleet';
import { builtRootfsRecord } from '../infra/vmlocal/rootfs';
import { vmStackUp } from '../infra/vmlocal/stack';
import { CassandraAdapter } from '../services/databases/cassandra/cassandra';
import { RedisClusterAdapter } from '../services/databases/redis/redis-cluster';
import { ensureYcsbClient } from '../services/ycsb/client-install';
import { ycsbHome } from '../services/ycsb/command';
import { smallTopology } from '../test/support/small-topology';
import { runBenchmark, Targets } from './targets';

async function seconds(step: () => Promise<unknown>): Promise<string> {
  const started = Date.now();
  await step();
  return ((Date.now() - started) / 1000).toFixed(1);
}

async function main(): Promise<void> {
  const opts = new Command().option('--short', "CI's short mode: the nodes, packages and mesh only").parse().opts<{ short?: boolean }>();
  const image = builtRootfsRecord();
  if (!image) throw new Error("the VM-shaped nodes' image is not built; run scripts/setup.sh");
  console.log(
    `image: built in ${image.seconds?.toFixed(1) ?? '?'} s at ${image.builtAt} (debootstrap + ${image.packages} packages downloaded for the local repository)`,
  );
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-bench-vm-'));
  const topology = path.join(dir, 'vm-bench.yaml');
  writeFileSync(topology, stringify(smallTopology));
  process.env.PATH = `${operatorSshPath()}:${process.env.PATH ?? ''}`;
  try {
    const stack = await vmStackUp('vm-bench', topology);
    const n = stack.plan.nodes.length;
    console.log(
      `nodes: ${n} + jump host up, sshd answering through the jump host, in ${stack.seconds.nodes.toFixed(1)} s (${(stack.seconds.nodes / (n + 1)).toFixed(2)} s per node)`,
    );
    console.log(`cloud-init packages (wireguard-tools, tinc, iperf3) on ${n} nodes at once: ${stack.seconds.install.toFixed(1)} s`);
    console.log(`mesh scripts (WireGuard + tinc) on ${n} nodes at once: ${stack.seconds.mesh.toFixed(1)} s`);
    if (!opts.short) {
      const node = stack.inventory.nodes.find((x) => x.role === 'data') as InventoryNode;
      console.log(`Redis install on ${node.name} by its adapter: ${await seconds(() => new RedisClusterAdapter(stack.inventory).install(node))} s`);
      const cassandra = () => new CassandraAdapter(stack.inventory).install(node);
      console.log(`Cassandra install (its package and a JDK) on ${node.name} by its adapter: ${await seconds(cassandra)} s`);
      const client = findNode(stack.inventory, stack.inventory.clientNode).exec as Extract<InventoryNode['exec'], { transport: 'ssh' }>;
      console.log(
        `Java + YCSB client shipped to ${stack.inventory.clientNode}: ${await seconds(() => ensureYcsbClient(client, ycsbHome(client)))} s`,
      );
    }
  } finally {
    console.log(`down: ${await seconds(vmFleetDown)} s`);
    rmSync(dir, { recursive: true, force: true });
  }
  const left = (await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX));
  const targets = new Targets();
  targets.holds('namespaces left behind after down', left.length ? left.join(', ') : 'none', 'none', left.length === 0);
  targets.finish();
}

runBenchmark('vm-nodes', main);
