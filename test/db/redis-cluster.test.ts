/**
 * Redis Cluster adapter against real redis-server processes in namespaces of a bridged LAN.
 * The steps build on each other (form, add, remove, flush), so they run in order on one cluster.
 */
import { runHost } from '../../activities/exec/run';
import { execFor } from '../../activities/exec/transports';
import { RedisClusterAdapter } from '../../activities/databases/redis/redis-cluster';
import { isMaster, parseClusterNodes } from '../../activities/databases/redis/cluster-nodes';
import type { ResizeTiming } from '../../activities/contracts';
import { adapterOnLan } from '../support/lan-fleet';

jest.setTimeout(120_000);

const lan = adapterOnLan('a', 5, (inventory) => new RedisClusterAdapter(inventory));
const node = lan.node;

/** Slots per master address, as tla1's redis sees them. */
async function slotsByMaster(): Promise<Map<string, number>> {
  const n = node('tla1');
  const { stdout } = await execFor(n.exec).run(['redis-cli', '-h', n.overlayAddress, 'CLUSTER', 'NODES']);
  return new Map(parseClusterNodes(stdout).filter(isMaster).map((l) => [l.address, l.slots]));
}

function expectOrdered(t: ResizeTiming): void {
  expect(t.requestedAt).toBeLessThanOrEqual(t.acceptedAt);
  expect(t.acceptedAt).toBeLessThanOrEqual(t.completedAt);
}


test('forms a 3-master cluster that reports healthy', async () => {
  for (const name of ['tla1', 'tla2', 'tla3']) await lan.adapter.install(node(name));
  const info = await lan.adapter.formCluster(['tla1', 'tla2', 'tla3'].map(node), {});
  expect(info.members).toEqual(['tla1', 'tla2', 'tla3']);
  expect(info.version).toMatch(/^7\./);
  const status = await lan.adapter.status();
  expect(status.healthy).toBe(true);
  expect(status.members.sort()).toEqual(['tla1', 'tla2', 'tla3']);
  expect([...(await slotsByMaster()).values()].filter((s) => s > 0)).toHaveLength(3);
});

test('adds a 4th node and gives it slots', async () => {
  const timing = await lan.adapter.addNode(node('tla4'));
  expect(timing.node).toBe('tla4');
  expectOrdered(timing);
  const slots = await slotsByMaster();
  expect(slots.get(`${node('tla4').overlayAddress}:6379`)).toBeGreaterThan(0);
  expect([...slots.values()].filter((s) => s > 0)).toHaveLength(4);
  expect((await lan.adapter.status()).healthy).toBe(true);
});

test('removes a node: its slots move away and it leaves', async () => {
  const timing = await lan.adapter.removeNode(node('tla2'));
  expectOrdered(timing);
  expect(timing.acceptedAt).toBeLessThan(timing.completedAt);
  const slots = await slotsByMaster();
  expect(slots.has(`${node('tla2').overlayAddress}:6379`)).toBe(false);
  expect([...slots.values()].reduce((a, b) => a + b, 0)).toBe(16384);
  const status = await lan.adapter.status();
  expect(status).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']), healthy: true });
  expect(status.members).toHaveLength(3);
});

test('flush empties every master', async () => {
  const client = execFor(node('tla1').exec);
  const host = node('tla1').overlayAddress;
  for (let i = 0; i < 50; i++) await client.run(['redis-cli', '-c', '-h', host, 'SET', `user${i}`, 'x']);
  const keys = async () => {
    let total = 0;
    for (const address of (await slotsByMaster()).keys()) {
      const [h, p] = address.split(':');
      total += Number((await client.run(['redis-cli', '-h', h, '-p', p, 'DBSIZE'])).stdout.trim());
    }
    return total;
  };
  expect(await keys()).toBe(50);
  await lan.adapter.flush();
  expect(await keys()).toBe(0);
});

test('refuses to remove a node that is not a member and leaves the cluster as it was', async () => {
  await expect(lan.adapter.removeNode(node('tla5'))).rejects.toThrow(/tla5 is not a member of the Redis cluster/);
  expect(await lan.adapter.status()).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']), healthy: true });
});

test('a node whose port is taken fails with its name and the tail of its log', async () => {
  const squatter = execFor(node('tla5').exec);
  const address = node('tla5').overlayAddress;
  const pid = await squatter.spawnDetached(['redis-server', '--bind', address, '--port', '6379', '--save', ''], '/dev/null');
  try {
    await expect(lan.adapter.addNode(node('tla5'))).rejects.toThrow(/redis on tla5 \(fb-tla5\) failed to start[\s\S]*Address already in use/);
    expect((await lan.adapter.status()).members).toHaveLength(3);
  } finally {
    await runHost(['kill', String(pid)]);
  }
});

test('stop leaves no redis process', async () => {
  await lan.adapter.stop();
  expect((await lan.fleet.processes()).filter((p) => p.comm.startsWith('redis'))).toEqual([]);
  expect(await lan.adapter.status()).toEqual({ members: [], healthy: false });
});
