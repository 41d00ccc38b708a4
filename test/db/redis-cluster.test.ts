/**
 * Redis Cluster adapter against real redis-server processes in namespaces of a bridged LAN.
 * The steps build on each other (form, add, remove, flush), so they run in order on one cluster.
 */
import { readFileSync } from 'node:fs';
import { runHost } from '../../platform/command';
import { capOf } from '../../platform/cpu-cap';
import { waitFor } from '../../platform/wait';
import { execFor } from '../../services/exec/transports';
import { RedisClusterAdapter } from '../../services/databases/redis/redis-cluster';
import { isMaster, parseClusterNodes } from '../../services/databases/redis/cluster-nodes';
import type { ResizeTiming } from '../../activities/contracts';
import { killResizePartWay } from '../support/kill-resize';
import { adapterOnLan, crashMember } from '../support/lan-fleet';

jest.setTimeout(120_000);

const lan = adapterOnLan('a', 5, (inventory) => new RedisClusterAdapter(inventory));
const node = lan.node;

/** Slots per master address, as tla1's redis sees them. */
async function slotsByMaster(): Promise<Map<string, number>> {
  const n = node('tla1');
  const { stdout } = await execFor(n.exec).run(['redis-cli', '-h', n.overlayAddress, 'CLUSTER', 'NODES']);
  return new Map(
    parseClusterNodes(stdout)
      .filter(isMaster)
      .map((l) => [l.address, l.slots]),
  );
}

/** Keys held by all masters together. */
async function keyCount(): Promise<number> {
  const client = execFor(node('tla1').exec);
  let total = 0;
  for (const address of (await slotsByMaster()).keys()) {
    const [h, p] = address.split(':');
    total += Number((await client.run(['redis-cli', '-h', h, '-p', p, 'DBSIZE'])).stdout.trim());
  }
  return total;
}

function expectOrdered(t: ResizeTiming): void {
  expect(t.requestedAt).toBeLessThanOrEqual(t.acceptedAt);
  expect(t.acceptedAt).toBeLessThanOrEqual(t.completedAt);
}

/** 0.4 of a core for each server once it serves (0.5 while it starts): the steps here need far less. */
const CPUS = 0.4;

/** The server process in `member`'s CPU cap group, and the group's cap. */
function capped(member: string): { cpus: number; comms: string[] } | undefined {
  const group = capOf(lan.adapter.cpuCap.groupOf(member));
  return group && { cpus: group.cpus, comms: group.pids.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim()) };
}

test('forms a 3-master cluster that reports healthy, each server under its CPU cap', async () => {
  for (const name of ['tla1', 'tla2', 'tla3']) await lan.adapter.install(node(name));
  lan.adapter.useCpuCap(CPUS, ['tla1', 'tla2', 'tla3', 'tla4', 'tla5'].map(node));
  const info = await lan.adapter.formCluster(['tla1', 'tla2', 'tla3'].map(node), {});
  for (const member of ['tla1', 'tla2', 'tla3']) expect(capped(member)).toEqual({ cpus: CPUS, comms: ['redis-server'] });
  expect(capped('tla4')).toBeUndefined();
  expect(info.members).toEqual(['tla1', 'tla2', 'tla3']);
  expect(info.version).toMatch(/^7\./);
  const status = await lan.adapter.status();
  expect(status.healthy).toBe(true);
  expect(status.members.sort()).toEqual(['tla1', 'tla2', 'tla3']);
  expect([...(await slotsByMaster()).values()].filter((s) => s > 0)).toHaveLength(3);
});

test('adds a 4th node and gives it slots; its server is capped as the others', async () => {
  const timing = await lan.adapter.addNode(node('tla4'));
  expect(timing.node).toBe('tla4');
  expect(capped('tla4')).toEqual({ cpus: CPUS, comms: ['redis-server'] });
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
  expect(status).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']) as unknown, healthy: true });
  expect(status.members).toHaveLength(3);
});

test('flush empties every master', async () => {
  const client = execFor(node('tla1').exec);
  const host = node('tla1').overlayAddress;
  for (let i = 0; i < 50; i++) await client.run(['redis-cli', '-c', '-h', host, 'SET', `user${i}`, 'x']);
  expect(await keyCount()).toBe(50);
  await lan.adapter.flush();
  expect(await keyCount()).toBe(0);
});

test('refuses to remove a node that is not a member and leaves the cluster as it was', async () => {
  await expect(lan.adapter.removeNode(node('tla5'))).rejects.toThrow(/tla5 is not a member of the Redis cluster/);
  expect(await lan.adapter.status()).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']) as unknown, healthy: true });
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

test('a member whose server is SIGKILLed is found dead, and restarted it rejoins as itself', async () => {
  const victim = node('tla3');
  const shell = execFor(victim.exec);
  const myId = async () => (await shell.run(['redis-cli', '-h', victim.overlayAddress, 'CLUSTER', 'MYID'])).stdout.trim();
  const idBefore = await myId();
  expect(await lan.adapter.deadMembers()).toEqual([]);
  await crashMember(lan.adapter, 'tla3');
  await lan.adapter.restartMember('tla3');
  expect(await lan.adapter.deadMembers()).toEqual([]);
  expect(await myId()).toBe(idBefore);
  // Restarted under the same cap, the dead process gone from its group.
  expect(capped('tla3')).toEqual({ cpus: CPUS, comms: ['redis-server'] });
  await waitFor(async () => ((await lan.adapter.status()).healthy ? true : undefined), {
    what: 'the cluster to be healthy again',
    timeoutMs: 30_000,
  });
});

describe('a resize whose caller dies part-way (a killed worker) is finished when asked again', () => {
  const KEYS = 3000;
  const masterAddress = (name: string) => `${node(name).overlayAddress}:6379`;

  /** Starts the resize in a child process and SIGKILLs it once `partWay` holds for the node's slot count. */
  function killPartWay(kind: 'add' | 'remove', name: string, partWay: (slots: number) => boolean, pauseBefore?: string): Promise<number> {
    return killResizePartWay({ inventory: lan.fleet.inventory, database: 'redis', kind, node: name, pauseBefore }, async () => {
      const slots = (await slotsByMaster()).get(masterAddress(name));
      return slots !== undefined && partWay(slots) ? slots : undefined;
    });
  }

  /** redis-cli processes left in the LAN: the killed caller's must have died with it. */
  async function redisCli(): Promise<unknown[]> {
    return (await lan.fleet.processes()).filter((p) => p.comm === 'redis-cli');
  }

  beforeAll(async () => {
    const lines = Array.from({ length: KEYS }, (_, i) => `SET user${i} ${'x'.repeat(100)}`).join('\n');
    await execFor(node('tla1').exec).run(['redis-cli', '-c', '-h', node('tla1').overlayAddress], { input: `${lines}\n`, timeoutMs: 60_000 });
    expect(await keyCount()).toBe(KEYS);
  });

  test('add: the node keeps what it was given, the half-moved slot is settled, the rebalance completes', async () => {
    const before = Date.now();
    const slotsAtKill = await killPartWay('add', 'tla5', (slots) => slots > 0);
    expect(slotsAtKill).toBeLessThan(16384 / 4 - 100);
    expect(await redisCli()).toEqual([]);
    const timing = await lan.adapter.addNode(node('tla5'));
    // The timing is the resize's, from the first request on.
    expect(timing.requestedAt).toBeGreaterThanOrEqual(before);
    expect(timing.requestedAt).toBeLessThan(timing.acceptedAt);
    expectOrdered(timing);
    const slots = await slotsByMaster();
    expect([...slots.values()].filter((s) => s > 0)).toHaveLength(4);
    expect(slots.get(masterAddress('tla5'))).toBeGreaterThan(16384 / 4 - 100);
    expect((await lan.adapter.status()).healthy).toBe(true);
    expect(await keyCount()).toBe(KEYS);
  });

  test('remove: the rest of its slots move away, then it leaves', async () => {
    const slotsAtKill = await killPartWay('remove', 'tla5', (slots) => slots < 16384 / 4 - 100);
    expect(slotsAtKill).toBeGreaterThan(0);
    expect(await redisCli()).toEqual([]);
    // Another resize is refused while this one is unfinished.
    await expect(lan.adapter.addNode(node('tla2'))).rejects.toThrow(/the remove of tla5 was interrupted and is unfinished/);
    const timing = await lan.adapter.removeNode(node('tla5'));
    expectOrdered(timing);
    const slots = await slotsByMaster();
    expect(slots.has(masterAddress('tla5'))).toBe(false);
    expect([...slots.values()].reduce((a, b) => a + b, 0)).toBe(16384);
    expect(await lan.adapter.status()).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']) as unknown, healthy: true });
    expect(await keyCount()).toBe(KEYS);
  });

  test('add killed once the node joined, before the rebalance: the rebalance runs', async () => {
    expect(await killPartWay('add', 'tla2', (slots) => slots === 0, 'rebalance')).toBe(0);
    expect((await slotsByMaster()).get(masterAddress('tla2'))).toBe(0);
    expect(await redisCli()).toEqual([]);
    expectOrdered(await lan.adapter.addNode(node('tla2')));
    expect((await slotsByMaster()).get(masterAddress('tla2'))).toBeGreaterThan(16384 / 4 - 100);
    expect((await lan.adapter.status()).healthy).toBe(true);
    expect(await keyCount()).toBe(KEYS);
  });

  test('remove killed once the node gave all its slots away, before del-node: it leaves', async () => {
    expect(await killPartWay('remove', 'tla2', (slots) => slots === 0, 'del-node')).toBe(0);
    expect(await redisCli()).toEqual([]);
    expectOrdered(await lan.adapter.removeNode(node('tla2')));
    expect((await slotsByMaster()).has(masterAddress('tla2'))).toBe(false);
    const status = await lan.adapter.status();
    expect(status).toEqual({ members: expect.arrayContaining(['tla1', 'tla3', 'tla4']) as unknown, healthy: true });
    expect(status.members).toHaveLength(3);
    expect(await keyCount()).toBe(KEYS);
  });
});

test('stop leaves no redis process and no CPU cap group', async () => {
  await lan.adapter.stop();
  expect((await lan.fleet.processes()).filter((p) => p.comm.startsWith('redis'))).toEqual([]);
  for (const member of ['tla1', 'tla2', 'tla3', 'tla4', 'tla5']) expect(capped(member)).toBeUndefined();
  expect(await lan.adapter.status()).toEqual({ members: [], healthy: false });
});
