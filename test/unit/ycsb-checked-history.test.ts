/**
 * The YCSB client's checked history, end to end on this host without a fleet: a redis-server on
 * loopback (its own port and directory), the real client jar with CheckedDB around the Redis
 * binding writing its history to a file, the history streamed through the register check, and
 * the real ReadBack reading every key written back. Then the store is tampered with behind the
 * client's back (a key deleted, a value copied from another key) and the read-back must say so.
 * Needs the built client (bash scripts/build.d/ycsb.sh) and redis-server, as the db tests do.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { checkedBinding, readBackArgv, ycsbArgv } from '../../services/ycsb/command';
import { parseYcsbLine } from '../../services/ycsb/output';
import { mergeHistories, type ReadCounts } from '../../services/consistency/history-reader';
import { runReadBack } from '../../services/consistency/read-back';
import { maxOperationUs } from '../../services/consistency/check-phase';
import { RegisterChecker } from '../../core/consistency/register-check';
import type { PhaseConsistency } from '../../core/consistency/consistency';
import type { YcsbBinding } from '../../core/database';
import type { YcsbSettings } from '../../core/ycsb';
import { freePort, startRedis, type RedisProcess } from '../db/ycsb-redis-server';

const HOME = path.resolve(__dirname, '../../ycsb');
const JAR = path.join(HOME, 'target/fragbench-ycsb.jar');

const settings: YcsbSettings = {
  workload: 'a',
  recordCount: 300,
  operationCount: 4000,
  threads: 4,
  fieldCount: 3,
  fieldLength: 40,
  timeoutMs: 2000,
  retries: 0,
  target: 2000,
  check: true,
};

let redis: RedisProcess;
let dir: string;

const binding = (extra: Record<string, string> = {}): YcsbBinding => ({
  dbClass: 'fragbench.ycsb.RedisClient',
  properties: { 'redis.hosts': `127.0.0.1:${redis.port}`, 'redis.cluster': 'false', 'redis.timeoutMs': '2000', 'redis.maxAttempts': '1', ...extra },
});
const cli = (...args: string[]) => runHost(['redis-cli', '-p', String(redis.port), ...args]);

beforeAll(async () => {
  if (!existsSync(JAR)) throw new Error(`${JAR} is missing: run bash scripts/build.d/ycsb.sh`);
  dir = mkdtempSync(path.join(tmpdir(), 'fb-checked-history-'));
  redis = await startRedis({ port: await freePort() });
  await runHost(ycsbArgv('load', settings, binding(), HOME, false), { timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the checked workload with `client`'s history in `file`; returns the client's stderr lines. */
async function checkedRun(
  client: string,
  file: string,
  extra: Record<string, string> = {},
  operationCount = settings.operationCount,
): Promise<string[]> {
  const run = { ...settings, operationCount };
  const { stderr } = await runHost(ycsbArgv('run', run, checkedBinding(binding(extra), { file, client }), HOME, false), { timeoutMs: 90_000 });
  return stderr.split('\n');
}

/** The history through the check, then the keys read back by the real ReadBack; `between` runs before the read-back. */
async function check(files: string[], clients: string[], between?: (keys: string[]) => Promise<void>): Promise<PhaseConsistency> {
  const checker = new RegisterChecker({ originMs: Date.now() - 120_000, clients, maxOperationUs: maxOperationUs(settings) });
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  for await (const record of mergeHistories(files, counts)) checker.add(record);
  expect(counts.unparsable).toBe(0);
  const keys = checker.keysWritten();
  await between?.(keys);
  const read = await runReadBack(readBackArgv(binding(), HOME, 3), keys, (r) => checker.addFinal(r));
  // One record per key, besides the reader's own open and close.
  expect(read).toEqual({ records: keys.length + 2, unparsable: 0 });
  return checker.result();
}

test('a checked run on a healthy server: every write and read recorded, no anomaly, every key read back', async () => {
  const file = path.join(dir, '2.healthy.jsonl');
  const stderr = await checkedRun('healthy', file);
  // Its CPU at start and at exit: what checking costs is measured between the two.
  const cpu = Object.fromEntries(
    stderr
      .map(parseYcsbLine)
      .filter((l) => l.kind === 'cpu' || l.kind === 'cpu-ready')
      .map((l) => [l.kind, (l as { cpuMs: number }).cpuMs]),
  );
  expect(cpu.cpu).toBeGreaterThan(cpu['cpu-ready']);
  expect(cpu['cpu-ready']).toBeGreaterThan(0);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expect(JSON.parse(lines[0])).toMatchObject({ t: 'open', c: 'healthy' });
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ t: 'close', c: 'healthy' });
  // The file is in end-time order, as the checker's merge needs.
  const ends = lines.map((l) => (JSON.parse(l) as { e: number }).e);
  expect(ends).toEqual([...ends].sort((a, b) => a - b));

  const result = await check([file], ['healthy']);
  expect(result.totals.reads + result.totals.writes).toBe(settings.operationCount);
  expect(result.totals.writes).toBeGreaterThan(1000);
  expect(result.totals).toMatchObject({ stale: 0, corrupt: 0, lost: 0, unjudged: 0, failed: {} });
  const written = lines.map((l) => JSON.parse(l) as { t: string; k: string; f: string[] }).filter((r) => r.t === 'w');
  expect(result.readBack).toMatchObject({ keys: new Set(written.map((w) => w.k)).size, failed: 0, unverified: 0 });
  expect(result.verdict).toBe('no anomaly seen');
  // Values keep their length: the marker replaces the start of YCSB's random value.
  const last = written.at(-1)!;
  // Only redis-cli's newline comes off: YCSB's random characters include the space, which can end a value.
  const value = (await cli('HGET', last.k, last.f[0])).stdout.replace(/\n$/, '');
  expect(value).toMatch(/^fbw:healthy\.\d+\.[0-9a-f]{8};/);
  expect(value.length).toBe(settings.fieldLength);
}, 120_000);

test('a key deleted and a value copied from another key behind the client: lost writes and a corrupt value, found by the read-back', async () => {
  const file = path.join(dir, '3.tampered.jsonl');
  await checkedRun('tampered', file);
  let deleted = '';
  const result = await check([file], ['tampered'], async (keys) => {
    deleted = keys[0];
    const [donor, victim] = keys.slice(1, 3);
    await cli('DEL', deleted);
    // A field of the donor that a checked write wrote (the others still hold the load's values).
    const pairs = (await cli('HGETALL', donor)).stdout.trim().split('\n');
    const at = pairs.findIndex((v, i) => i % 2 === 1 && v.startsWith('fbw:'));
    await cli('HSET', victim, pairs[at - 1], pairs[at]);
  });
  expect(result.totals.lost).toBeGreaterThanOrEqual(1);
  expect(result.totals.corrupt).toBe(1);
  expect(result.verdict).toBe('corrupt reads');
  expect(result.examples.filter((e) => e.kind === 'lost').every((e) => e.key === deleted && e.got.startsWith('initial value'))).toBe(true);
  expect(result.examples.find((e) => e.kind === 'corrupt')?.why).toMatch(/another key or field/);
}, 120_000);

test('WAIT-based writes against a server without replicas: every write fails with cause replication, reads go on', async () => {
  const file = path.join(dir, '4.waiting.jsonl');
  // The tampering above left a corrupt value; this run starts from an empty store.
  await cli('FLUSHALL');
  // Redis times WAIT out on its 100 ms cron, whatever the timeout: a few hundred operations.
  const operations = 400;
  await checkedRun('waiting', file, { 'redis.waitReplicas': '1', 'redis.waitTimeoutMs': '5' }, operations);
  const checker = new RegisterChecker({ originMs: Date.now() - 120_000, clients: ['waiting'], maxOperationUs: maxOperationUs(settings) });
  for await (const record of mergeHistories([file], { records: 0, unparsable: 0 })) checker.add(record);
  const { totals } = checker.result();
  expect(totals.writes).toBe(0);
  expect(Object.keys(totals.failed)).toEqual(['replication']);
  expect(totals.failed.replication + totals.reads).toBe(operations);
  expect(totals.failed.replication).toBeGreaterThan(100);
  // The master applied them all the same: a value of a failed write is read without complaint.
  expect(totals).toMatchObject({ stale: 0, corrupt: 0 });
}, 120_000);
