// The emulator client against the real fb-wan binary on loopback (127.78.0.x; the Go tests use
// 127.77.x.x). Traffic through the relay is tested in test/netns/emulator.test.ts.
import { createServer, type Server } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { EmulatorClient, EmulatorError, startEmulator, type EmulatorConfig, type RunningEmulator } from '../../infra/local/emulator-client';

const shaping = { delayMs: 5, rateMbps: null, lossPercent: 0 };
const config = (host: number): EmulatorConfig => ({
  links: ['p-q/0', 'p-r/0'].map((id, i) => ({
    id,
    a: { listen: `127.78.${host}.1:${40001 + i}`, peer: `127.78.${host}.2:51820` },
    b: { listen: `127.78.${host}.3:${40001 + i}`, peer: `127.78.${host}.4:51820` },
    ab: shaping,
    ba: shaping,
  })),
});

const dir = mkdtempSync(path.join(tmpdir(), 'fb-emulator-client-'));
const file = (name: string) => path.join(dir, name);
let running: RunningEmulator | undefined;

beforeAll(async () => {
  await runHost(['bash', 'scripts/build.d/emulator.sh'], { timeoutMs: 300_000 });
  writeFileSync(file('links.json'), JSON.stringify(config(0)));
  running = await startEmulator({
    configPath: file('links.json'),
    controlPath: file('control.sock'),
    logPath: file('fb-wan.log'),
    realtimePriority: null,
    cpus: undefined,
  });
}, 300_000);

afterAll(async () => {
  if (running) await running.process.stop();
  rmSync(dir, { recursive: true, force: true });
});

const client = () => running!.client;

test('ping answers', async () => {
  await expect(client().ping()).resolves.toBeUndefined();
});

test('set changes only the given fields, and stats report them', async () => {
  await client().set({ link: 'p-q/0', dir: 'ab', delayMs: 12.5, rateMbps: 100 });
  await client().set({ link: 'p-q/0', dir: 'both', lossPercent: 1.5 });
  const [pq, pr] = await client().stats();
  expect(pq.id).toBe('p-q/0');
  expect(pq.ab).toMatchObject({ delayMs: 12.5, rateMbps: 100, lossPercent: 1.5, packets: 0, queued: 0 });
  expect(pq.ba).toMatchObject({ delayMs: 5, rateMbps: null, lossPercent: 1.5 });
  expect(pq.ab.drops).toEqual({ cut: 0, loss: 0, queue: 0, foreign: 0, send: 0 });
  expect(pr.ab).toMatchObject(shaping);

  await client().set({ link: 'p-q/0', dir: 'ab', rateMbps: null });
  expect((await client().stats())[0].ab).toMatchObject({ delayMs: 12.5, rateMbps: null });
});

test('jitter and seed are set, reported and cleared like loss', async () => {
  const picked = (await client().stats())[1].ab.seed;
  expect(Number.isSafeInteger(picked)).toBe(true);
  await client().set({ link: 'p-r/0', dir: 'ab', jitterMs: 2.5, seed: Number.MAX_SAFE_INTEGER });
  expect((await client().stats())[1].ab).toMatchObject({ jitterMs: 2.5, seed: Number.MAX_SAFE_INTEGER });
  await client().set({ link: 'p-r/0', dir: 'ab', jitterMs: 0 });
  expect((await client().stats())[1].ab).toMatchObject({ jitterMs: 0, seed: Number.MAX_SAFE_INTEGER });
  await expect(client().set({ link: 'p-r/0', dir: 'ab', seed: 0.5 })).rejects.toThrow(/^seed: must be a whole number/);
});

test("errors carry the emulator's text", async () => {
  const unknown = client().set({ link: 'x-y/0', dir: 'ab', delayMs: 1 });
  await expect(unknown).rejects.toThrow(EmulatorError);
  await expect(unknown).rejects.toThrow(/^unknown link "x-y\/0"$/);
  await expect(client().set({ link: 'p-q/0', dir: 'ab', delayMs: -1 })).rejects.toThrow(/^delayMs: must be >= 0/);
  await expect(client().cut('nope')).rejects.toThrow('unknown link "nope"');
});

test('setMany applies all changes or none', async () => {
  const bad = client().setMany([
    { link: 'p-q/0', dir: 'both', delayMs: 77 },
    { link: 'p-r/0', dir: 'ba', lossPercent: 101 },
  ]);
  await expect(bad).rejects.toThrow(/^items\[1\]\.lossPercent: must be <= 100/);
  expect((await client().stats())[0].ba.delayMs).not.toBe(77);

  await client().setMany([
    { link: 'p-q/0', dir: 'both', delayMs: 77 },
    { link: 'p-r/0', dir: 'ba', lossPercent: 3 },
  ]);
  const [pq, pr] = await client().stats();
  expect([pq.ab.delayMs, pq.ba.delayMs, pr.ba.lossPercent, pr.ab.lossPercent]).toEqual([77, 77, 3, 0]);
});

test('cut and restore show in stats', async () => {
  await client().cut('p-r/0');
  expect((await client().stats()).map((l) => l.cut)).toEqual([false, true]);
  await client().restore('p-r/0');
  expect((await client().stats()).map((l) => l.cut)).toEqual([false, false]);
});

test('several requests at once each get their own answer', async () => {
  const delays = Array.from({ length: 20 }, (_, i) => i + 1);
  await Promise.all(delays.map((delayMs) => client().set({ link: 'p-r/0', dir: 'ab', delayMs })));
  const stats = await Promise.all(delays.map(() => client().stats()));
  expect(stats.every((s) => delays.includes(s[1].ab.delayMs))).toBe(true);
});

test('a socket with no emulator behind it is reported with its path', async () => {
  const missing = new EmulatorClient(file('nobody.sock'));
  await expect(missing.ping()).rejects.toThrow(`${file('nobody.sock')}: connect ENOENT`);
});

test('a silent socket times out', async () => {
  const silent: Server = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(file('silent.sock'), resolve));
  try {
    const started = Date.now();
    await expect(new EmulatorClient(file('silent.sock'), 300).ping()).rejects.toThrow('no answer to ping within 300 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  } finally {
    silent.close();
  }
});

test('a start that fails reports the end of the log, and leaves nothing running', async () => {
  const unbindable = config(1);
  // 192.0.2.0/24 (TEST-NET-1) is never an address of this host: binding fails without traffic.
  unbindable.links[1].b.listen = '192.0.2.1:40001';
  writeFileSync(file('bad.json'), JSON.stringify(unbindable));
  const start = startEmulator({
    configPath: file('bad.json'),
    controlPath: file('bad.sock'),
    logPath: file('bad.log'),
    realtimePriority: null,
    cpus: undefined,
  });
  await expect(start).rejects.toThrow(/exited before it was ready[\s\S]*links\[1\]\.b\.listen: cannot bind 192\.0\.2\.1:40001/);
  expect(existsSync(file('bad.sock'))).toBe(false);
});

test('stopping removes the control socket', async () => {
  const { process } = running!;
  running = undefined;
  await process.stop();
  expect(existsSync(file('control.sock'))).toBe(false);
});
