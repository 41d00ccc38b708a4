/**
 * Cassandra adapter against real Cassandra 5.0 nodes (512 MB heap each) in namespaces of a
 * bridged LAN. One cluster for the whole file: form 3, join a 4th and decommission it (each
 * interrupted by killed callers, as a crashed worker would leave them), then the removals
 * Cassandra and the adapter refuse. Needs the jars of scripts/build.d/cassandra.sh.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execFor } from '../../services/exec/transports';
import { CassandraAdapter, KEYSPACE, TABLE } from '../../services/databases/cassandra/cassandra';
import { cqlArgv, logPath, nodetoolArgv } from '../../services/databases/cassandra/config';
import { parseNodetoolStatus } from '../../services/databases/cassandra/nodetool-status';
import type { Resize } from '../../services/databases/cluster-adapter';
import { nodeDir, StateFile } from '../../services/databases/state';
import type { ResizeTiming } from '../../activities/contracts';
import type { InventoryNode } from '../../core/inventory';
import { runHost } from '../../platform/command';
import { processArgv } from '../../platform/pid';
import { SERVER_ARCHIVE } from '../../services/databases/cassandra/class-archive';
import { waitFor } from '../../platform/wait';
import { killResizePartWay } from '../support/kill-resize';
import { adapterOnLan, crashMember } from '../support/lan-fleet';

// Formation takes 59-81 s beside CI's other lanes (three runs); in the CI of 6b78bf9 the host ran ~3x
// slower for stage 1's first ten minutes and it passed 180 s. Time is bench:db's figure, not these tests'.
jest.setTimeout(360_000);

const lan = adapterOnLan('b', 4, (inventory) => new CassandraAdapter(inventory));
const node = lan.node;
const LIB = `${__dirname}/../../.cache/cassandra/lib/*`;
/** Rows written before the resizes, counted after each. */
const ROWS = 200;

const dirOf = (name: string) => nodeDir(lan.fleet.inventory.name, 'cassandra', name);

/** Rows of a CQL query, run on tlb1 (the seed) with the adapter's own CQL tool. */
async function query(cql: string): Promise<string[]> {
  const seed = node('tlb1');
  const { stdout } = await execFor(seed.exec).run(cqlArgv(LIB, dirOf('tlb1'), seed.overlayAddress), { input: cql });
  return stdout.trim().split('\n').filter(Boolean);
}

/** `nodetool <args>` on `name` with the adapter's own tool; its output, whatever it exits with. */
async function nodetool(name: string, args: string[]): Promise<string> {
  return (await execFor(node(name).exec).run(nodetoolArgv(LIB, dirOf(name), args), { allowFailure: true })).stdout;
}

/** The node's own operation mode, as `nodetool netstats` prints it (NORMAL, LEAVING...). */
async function modeOf(name: string): Promise<string | undefined> {
  return /^Mode: (\S+)/m.exec(await nodetool(name, ['netstats']))?.[1];
}

/** What runs in `name`'s namespace: Cassandra servers, and anything else (a tool a killed caller left). */
async function processesIn(name: string): Promise<{ servers: number[]; others: string[][] }> {
  const { stdout } = await runHost(['ip', 'netns', 'pids', `fb-${name}`]);
  const live = stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .map((pid) => ({ pid, argv: processArgv(pid) ?? [] }))
    .filter((p) => p.argv.length > 0);
  const isServer = (argv: string[]) => argv.includes('org.apache.cassandra.service.CassandraDaemon');
  return { servers: live.filter((p) => isServer(p.argv)).map((p) => p.pid), others: live.filter((p) => !isServer(p.argv)).map((p) => p.argv) };
}

/**
 * `processesIn`, once the tools of a killed caller are gone (up to 10 s): they die by the kernel's
 * parent-death signal, which a JVM takes a moment to act on (CI once listed a killed caller's
 * nodetool a few milliseconds after its caller's exit).
 */
async function processesOnceToolsGone(name: string): Promise<Awaited<ReturnType<typeof processesIn>>> {
  let last = await processesIn(name);
  await waitFor(async () => ((last = await processesIn(name)).others.length === 0 ? true : undefined), {
    what: `no tool left in ${name}`,
    timeoutMs: 10_000,
  }).catch(() => undefined);
  return last;
}

/** One server JVM per member, none elsewhere, and nothing else left running. */
async function expectOneServerPerMember(members: string[]): Promise<void> {
  for (const name of ['tlb1', 'tlb2', 'tlb3', 'tlb4']) {
    const { servers, others } = await processesOnceToolsGone(name);
    expect({ name, servers: servers.length, others }).toEqual({ name, servers: members.includes(name) ? 1 : 0, others: [] });
  }
}

/** The resize the adapter has recorded as under way. */
const recordedResize = () => new StateFile<{ resizing?: Resize }>(lan.fleet.inventory.name, 'cassandra').read()?.resizing;

/** How many lines of `name`'s system.log match. */
function logCount(name: string, pattern: RegExp): number {
  const file = logPath(dirOf(name));
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => pattern.test(l)).length
    : 0;
}

/** An adapter whose commands are also written down, to see which ones a resumed resize sends. */
function recordingAdapter(): { adapter: CassandraAdapter; commands: string[][] } {
  const commands: string[][] = [];
  const adapter = new CassandraAdapter(lan.fleet.inventory, (n: InventoryNode) => {
    const exec = execFor(n.exec);
    return {
      where: exec.where,
      run: (argv, options) => (commands.push(argv), exec.run(argv, options)),
      spawnDetached: (argv, logFile, options) => (commands.push(argv), exec.spawnDetached(argv, logFile, options)),
    };
  });
  return { adapter, commands };
}

const resizeOf = (kind: 'add' | 'remove', name: string) => ({ inventory: lan.fleet.inventory, database: 'cassandra' as const, kind, node: name });

async function rowCount(): Promise<number> {
  return Number((await query(`SELECT COUNT(*) FROM ${KEYSPACE}.${TABLE}`))[0]);
}

/** The ring as `name` sees it, read as the adapter reads it: for a failed health check's message. */
async function ringAsSeenBy(name: string): Promise<string> {
  return parseNodetoolStatus(await nodetool(name, ['status']))
    .map((e) => `${e.up ? 'U' : 'D'}${e.state} ${e.address}`)
    .join(', ');
}

/**
 * The ring with exactly `members`, every one up and normal, within `timeoutMs`: a member's
 * failure detector can mark a busy peer down for a while on this 2-core host (CI saw the ring
 * unhealthy right after a refused decommission, twice, once for the whole of 30 s, with the lanes'
 * JVMs starting beside it), but one left leaving or gone never comes back to normal, however long
 * it is given. A ring still unhealthy at the end is printed as each member sees it.
 */
async function expectHealthyRing(members: string[], timeoutMs = 120_000): Promise<void> {
  let last = await lan.adapter.status();
  await waitFor(async () => ((last = await lan.adapter.status()).healthy ? true : undefined), {
    what: 'the ring to be all up and normal',
    timeoutMs,
    intervalMs: 1000,
  }).catch(() => undefined);
  const seen = last.healthy ? {} : Object.fromEntries(await Promise.all(members.map(async (m) => [m, await ringAsSeenBy(m)] as const)));
  expect({ members: [...last.members].sort(), healthy: last.healthy, seen }).toEqual({ members, healthy: true, seen: {} });
}

function expectOrdered(t: ResizeTiming): void {
  expect(t.requestedAt).toBeLessThanOrEqual(t.acceptedAt);
  expect(t.acceptedAt).toBeLessThanOrEqual(t.completedAt);
}

// How long formation takes is a benchmark figure (bench:db), not a test's: on a shared 2-core
// host it varies with everything else that runs. The test checks what was formed and that the
// time reported is the time it took.
test('forms a 3-node cluster with the ycsb keyspace and table, and reports how long it took', async () => {
  for (const name of ['tlb1', 'tlb2', 'tlb3', 'tlb4']) await lan.adapter.install(node(name));
  const started = Date.now();
  const info = await lan.adapter.formCluster(['tlb1', 'tlb2', 'tlb3'].map(node), { options: { fieldCount: 4 } });
  expect(info.formedInMs).toBeGreaterThan(0);
  expect(info.formedInMs).toBeLessThanOrEqual(Date.now() - started);
  expect(info.version).toMatch(/^5\.0\./);
  expect(info.members).toEqual(['tlb1', 'tlb2', 'tlb3']);
  expect(info.nonDefaultSettings).toMatchObject({
    'cassandra.ring_delay_ms': '5000',
    'cassandra.skip_wait_for_gossip_to_settle': '0',
    'cassandra.reset_bootstrap_progress': 'true',
    initial_token: expect.stringMatching(/^16 per member, evenly spaced/) as unknown,
  });
  expect(await lan.adapter.status()).toEqual({ members: expect.arrayContaining(['tlb1', 'tlb2', 'tlb3']) as unknown, healthy: true });
  // Each server maps setup's class-data archive: one that stopped matching (new jars, JDK or flags)
  // is ignored by the JVM without a word but for its log, and every start pays ~2 CPU s again.
  for (const name of ['tlb1', 'tlb2', 'tlb3']) {
    const [pid] = (await processesIn(name)).servers;
    expect({ name, mapsArchive: readFileSync(`/proc/${pid}/maps`, 'utf8').includes(SERVER_ARCHIVE) }).toEqual({ name, mapsArchive: true });
  }

  const [replication] = await query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = '${KEYSPACE}'`);
  expect(replication).toContain('datacenter1=3');
  const columns = await query(`SELECT column_name FROM system_schema.columns WHERE keyspace_name = '${KEYSPACE}' AND table_name = '${TABLE}'`);
  expect(columns.sort()).toEqual(['field0', 'field1', 'field2', 'field3', 'y_id']);
});

describe('a resize whose callers die part-way (killed workers) resumes from the ring and the node', () => {
  beforeAll(async () => {
    const rows = Array.from({ length: ROWS }, (_, i) => `INSERT INTO ${KEYSPACE}.${TABLE} (y_id, field0) VALUES ('user${i}', 'kept')`);
    await query(rows.join('\n;\n'));
    expect(await rowCount()).toBe(ROWS);
  });

  // One bootstrap, interrupted three times: the node dies with the first caller mid-stream, the
  // second caller dies as soon as it started the JVM again, the third while the ring has it joining.
  test('add: restarted on its directory, then adopted, it bootstraps once more and joins', async () => {
    const before = Date.now();
    await killResizePartWay(resizeOf('add', 'tlb4'), async () => {
      if (logCount('tlb4', /Session with \S+ is complete/) === 0) return undefined;
      // Some ranges have arrived, not all: the node dies before its caller does.
      for (const pid of (await processesIn('tlb4')).servers) process.kill(pid, 'SIGKILL');
      return true;
    });
    const firstKilledAt = Date.now();
    await expectOneServerPerMember(['tlb1', 'tlb2', 'tlb3']);

    await killResizePartWay(resizeOf('add', 'tlb4'), async () => (await processesIn('tlb4')).servers[0]);
    await expectOneServerPerMember(['tlb1', 'tlb2', 'tlb3', 'tlb4']);
    const { servers: relaunched } = await processesIn('tlb4');
    await killResizePartWay(resizeOf('add', 'tlb4'), () => (logCount('tlb4', /JOINING: sleeping/) >= 2 ? true : undefined));

    const { adapter, commands } = recordingAdapter();
    const timing = await adapter.addNode(node('tlb4'));
    expect(commands.filter((argv) => argv.includes('org.apache.cassandra.service.CassandraDaemon'))).toEqual([]);
    // The ring waits' tool was compiled once, at formation, not again for this adapter's waits.
    expect(commands.filter((argv) => argv.join(' ').includes('javac'))).toEqual([]);
    expect(commands.some((argv) => argv.some((arg) => arg.endsWith('/RingWatch.class')))).toBe(true);
    expect(timing.requestedAt).toBeGreaterThanOrEqual(before);
    // Accepted when the first caller saw it joining: kept through the three deaths.
    expect(timing.acceptedAt).toBeLessThan(firstKilledAt);
    expectOrdered(timing);
    expect(logCount('tlb4', /Detected previous bootstrap failure; retrying/)).toBe(1);
    expect(logCount('tlb4', /Bootstrap completed/)).toBe(1);
    await expectOneServerPerMember(['tlb1', 'tlb2', 'tlb3', 'tlb4']);
    expect((await processesIn('tlb4')).servers).toEqual(relaunched);
    const status = await lan.adapter.status();
    expect(status.healthy).toBe(true);
    expect(status.members.sort()).toEqual(['tlb1', 'tlb2', 'tlb3', 'tlb4']);
    expect(await rowCount()).toBe(ROWS);
    // Three JVM starts and a bootstrap: 59 s alone with the fleetless lane beside it; the lanes'
    // full load of CI stretches JVM starts severalfold, so its budget is the file's twice over.
  }, 360_000);

  test('remove: killed while leaving, it is not asked to decommission again and leaves once', async () => {
    const before = Date.now();
    // Killed once the node is leaving and the caller has recorded so.
    await killResizePartWay(resizeOf('remove', 'tlb4'), () =>
      logCount('tlb4', /LEAVING: sleeping/) > 0 && recordedResize()?.acceptedAt ? true : undefined,
    );
    const killedAt = Date.now();
    // The decommission goes on in the node's JVM; the killed caller's nodetool died with it.
    expect((await processesOnceToolsGone('tlb4')).others).toEqual([]);
    expect(['LEAVING', 'DECOMMISSIONED']).toContain(await modeOf('tlb4'));

    const { adapter, commands } = recordingAdapter();
    const timing = await adapter.removeNode(node('tlb4'));
    expect(commands.filter((argv) => argv.includes('decommission'))).toEqual([]);
    expect(timing.requestedAt).toBeGreaterThanOrEqual(before);
    expect(timing.acceptedAt).toBeLessThan(killedAt);
    expect(timing.acceptedAt).toBeLessThan(timing.completedAt);
    expectOrdered(timing);
    const status = await lan.adapter.status();
    expect(status.healthy).toBe(true);
    expect(status.members.sort()).toEqual(['tlb1', 'tlb2', 'tlb3']);
    await expectOneServerPerMember(['tlb1', 'tlb2', 'tlb3']);
    expect(await rowCount()).toBe(ROWS);
  });
});

test('a member whose JVM is SIGKILLed is found dead, and restarted it rejoins with its data', async () => {
  expect(await lan.adapter.deadMembers()).toEqual([]);
  await crashMember(lan.adapter, 'tlb2');
  await lan.adapter.restartMember('tlb2');
  expect(await lan.adapter.deadMembers()).toEqual([]);
  await expectHealthyRing(['tlb1', 'tlb2', 'tlb3']);
  expect(await query(`SELECT field0 FROM ${KEYSPACE}.${TABLE} WHERE y_id = 'user1'`)).toEqual(['kept']);
  expect(await rowCount()).toBe(ROWS);
});

test('Cassandra refuses to go below its system replication factor; the cluster stays as it was', async () => {
  await expect(lan.adapter.removeNode(node('tlb3'))).rejects.toThrow(
    /Cassandra refused to decommission tlb3: .*system_distributed.*the cluster is unchanged; set settings\.options\.allowBelowSystemReplication/,
  );
  await expectHealthyRing(['tlb1', 'tlb2', 'tlb3']);
});

test('the seed is never removed', async () => {
  await expect(lan.adapter.removeNode(node('tlb1'))).rejects.toThrow(/tlb1 is the Cassandra cluster's seed/);
  await expectHealthyRing(['tlb1', 'tlb2', 'tlb3']);
});

test('flush empties the table; stop leaves no process', async () => {
  await lan.adapter.flush();
  expect(await query(`SELECT y_id FROM ${KEYSPACE}.${TABLE}`)).toEqual([]);
  await lan.adapter.stop();
  expect(await lan.fleet.processes()).toEqual([]);
});
