// The real fb-wan in its own WAN namespace between two node namespaces, on the scratch subnet
// 198.19.241.0/24: UDP goes from fb-te1 to fb-te2 only through the relay (forwarding is off in
// fb-tewan), shaped, cut and restored through the TypeScript client. Runs as root.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { NetnsExec } from '../../services/exec/transports';
import { deleteNamespaces, disableForwarding } from '../../infra/local/namespaces';
import { processArgv, stopPids } from '../../platform/pid';
import { waitFor } from '../../platform/wait';
import { startEmulator, type EmulatorConfig, type LinkStats, type RunningEmulator } from '../../infra/local/emulator-client';
import { networkCpus } from '../../infra/local/network-cpus';

const NODE1 = 'fb-te1';
const NODE2 = 'fb-te2';
const WAN = 'fb-tewan';
const NAMESPACES = [NODE1, NODE2, WAN];
// Each node has a /30 to the WAN namespace: .1/.2 for node 1, .5/.6 for node 2.
const NODE1_ADDR = '198.19.241.2';
const NODE2_ADDR = '198.19.241.6';
const RELAY_FOR_NODE1 = '198.19.241.1:40001';
const RELAY_FOR_NODE2 = '198.19.241.5:40001';
const WG_PORT = 51820;
const LINK = 'te1-te2/0';

// Replies to every datagram, like the far end's WireGuard would.
const ECHO = `
import socket, sys
host, port = sys.argv[1].rsplit(':', 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((host, int(port)))
print('echo ready', flush=True)
while True:
    data, peer = s.recvfrom(65536)
    s.sendto(data, peer)
`;

// Sends count numbered datagrams every interval seconds from src to dst, then waits `wait` s
// for the last replies; prints the round-trip times (ms) of the replies as JSON, and its own
// longest stall: how late it woke from a timed wait (ms), the host not running it.
const PING = `
import json, select, socket, struct, sys, time
def addr(text):
    host, port = text.rsplit(':', 1)
    return (host, int(port))
src, dst, count, interval, wait = addr(sys.argv[1]), addr(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(src)
sent, rtts, seq, stall = {}, [], 0, 0.0
next_send = time.monotonic()
while True:
    now = time.monotonic()
    if seq < count and now >= next_send:
        s.sendto(struct.pack('!Q', seq) + b'x' * 100, dst)
        sent[seq] = now
        seq += 1
        next_send += interval
        if seq == count:
            end = now + wait
    timeout = next_send - now if seq < count else end - now
    if seq == count and timeout <= 0:
        break
    due = now + max(timeout, 0)
    if select.select([s], [], [], max(timeout, 0))[0]:
        data = s.recv(65536)
        k = struct.unpack('!Q', data[:8])[0]
        if k in sent:
            rtts.append((time.monotonic() - sent.pop(k)) * 1000)
    else:
        stall = max(stall, (time.monotonic() - due) * 1000)
print(json.dumps({'rtts': rtts, 'stallMs': stall}))
`;

const dir = mkdtempSync(path.join(tmpdir(), 'fb-emulator-netns-'));
const file = (name: string) => path.join(dir, name);
let emulator: RunningEmulator | undefined;
let echoPid: number | undefined;

async function createNamespaces(): Promise<void> {
  for (const ns of NAMESPACES) {
    await runHost(['ip', 'netns', 'add', ns]);
    await runHost(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
  }
  const uplinks: [string, string, string, string][] = [
    [NODE1, 'te1', `${NODE1_ADDR}/30`, `${RELAY_FOR_NODE1.split(':')[0]}/30`],
    [NODE2, 'te2', `${NODE2_ADDR}/30`, `${RELAY_FOR_NODE2.split(':')[0]}/30`],
  ];
  for (const [node, wanSide, nodeAddr, wanAddr] of uplinks) {
    await runHost(['ip', '-n', WAN, 'link', 'add', wanSide, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', node]);
    await runHost(['ip', '-n', WAN, 'addr', 'add', wanAddr, 'dev', wanSide]);
    await runHost(['ip', '-n', WAN, 'link', 'set', wanSide, 'up']);
    await runHost(['ip', '-n', node, 'addr', 'add', nodeAddr, 'dev', 'eth0']);
    await runHost(['ip', '-n', node, 'link', 'set', 'eth0', 'up']);
  }
  await disableForwarding(WAN);
}

/** Round trips of `count` datagrams node 1 sends through the relay to node 2's echo. */
async function ping(count: number, intervalMs: number, opts: { fromPort?: number; waitMs?: number } = {}): Promise<number[]> {
  return (await pingMeasured(count, intervalMs, opts)).rtts;
}

/** `ping`'s round trips, and the pinger's own longest stall meanwhile (ms late from a timed wait): the host's, not the relay's. */
async function pingMeasured(
  count: number,
  intervalMs: number,
  opts: { fromPort?: number; waitMs?: number } = {},
): Promise<{ rtts: number[]; stallMs: number }> {
  const { fromPort = WG_PORT, waitMs = 500 } = opts;
  // Real-time priority like the relay's, so that the figures are the relay's and not the host's load.
  const { stdout } = await new NetnsExec(NODE1).run([
    'chrt',
    '-f',
    '10',
    'python3',
    '-c',
    PING,
    `${NODE1_ADDR}:${fromPort}`,
    RELAY_FOR_NODE1,
    String(count),
    String(intervalMs / 1000),
    String(waitMs / 1000),
  ]);
  return JSON.parse(stdout) as { rtts: number[]; stallMs: number };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((p / 100) * (sorted.length - 1))];
}

async function linkStats(): Promise<LinkStats> {
  const [stats] = await emulator!.client.stats();
  return stats;
}

beforeAll(async () => {
  // A crashed earlier run may have left them (with processes inside).
  await deleteNamespaces(NAMESPACES);
  await runHost(['bash', 'scripts/build.d/emulator.sh'], { timeoutMs: 300_000 });
  await createNamespaces();

  const unshaped = { delayMs: 10, rateMbps: null, lossPercent: 0 };
  const config: EmulatorConfig = {
    links: [
      {
        id: LINK,
        a: { listen: RELAY_FOR_NODE1, peer: `${NODE1_ADDR}:${WG_PORT}` },
        b: { listen: RELAY_FOR_NODE2, peer: `${NODE2_ADDR}:${WG_PORT}` },
        ab: unshaped,
        ba: unshaped,
      },
    ],
  };
  writeFileSync(file('links.json'), JSON.stringify(config));
  emulator = await startEmulator({
    namespace: WAN,
    configPath: file('links.json'),
    controlPath: file('control.sock'),
    logPath: file('fb-wan.log'),
    // Where a two-node fleet's emulator runs.
    cpus: networkCpus(2),
  });
  echoPid = await new NetnsExec(NODE2).spawnDetached(['chrt', '-f', '10', 'python3', '-c', ECHO, `${NODE2_ADDR}:${WG_PORT}`], file('echo.log'));
  await waitFor(() => readFileSync(file('echo.log'), 'utf8').includes('echo ready'), { what: 'the echo in fb-te2', timeoutMs: 10_000 });
}, 300_000);

afterAll(async () => {
  await stopPids([emulator?.pid, echoPid].filter((pid): pid is number => pid !== undefined));
  await deleteNamespaces(NAMESPACES);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test('relays between the namespaces with the configured delay', async () => {
  const { rtts, stallMs } = await pingMeasured(200, 5);
  expect(rtts).toHaveLength(200);
  const median = percentile(rtts, 50);
  const p99 = percentile(rtts, 99);
  const stats = await linkStats();
  // A stall of the whole host (a hypervisor not running this VM: +5.9 ms at p99 once in CI, the relay alone
  // and real-time) delays a round trip as much as the pinger's own wake-up: that much is the host's, not the relay's.
  console.log(
    `p99 ${(p99 - 20).toFixed(2)} ms over 20; the pinger's own longest stall ${stallMs.toFixed(2)} ms; relay late max ${stats.ab.late!.maxMs} / ${stats.ba.late!.maxMs} ms`,
  );
  expect(Math.abs(median - 20)).toBeLessThanOrEqual(1);
  expect(p99 - 20).toBeLessThanOrEqual(3 + stallMs);
  expect(Math.min(...rtts)).toBeGreaterThanOrEqual(20);
  expect([stats.ab.packets, stats.ba.packets]).toEqual([200, 200]);
  expect(stats.ab.bytes).toBe(200 * 108);
  // fb-wan reports its own lateness per direction; the nested counts cannot exceed each other.
  for (const late of [stats.ab.late!, stats.ba.late!]) {
    expect(late.over1ms).toBeLessThanOrEqual(200);
    expect(late.over3ms).toBeLessThanOrEqual(late.over1ms);
    expect(late.over10ms).toBeLessThanOrEqual(late.over3ms);
    expect(late.maxMs).toBeGreaterThanOrEqual(0);
  }
}, 30_000);

test('a delay change applies to the traffic that follows', async () => {
  await emulator!.client.set({ link: LINK, dir: 'both', delayMs: 50 });
  const rtts = await ping(100, 5);
  expect(rtts).toHaveLength(100);
  expect(Math.abs(percentile(rtts, 50) - 100)).toBeLessThanOrEqual(2);
  expect((await linkStats()).ab.delayMs).toBe(50);
  await emulator!.client.set({ link: LINK, dir: 'both', delayMs: 10 });
}, 30_000);

test('loss drops about the configured share', async () => {
  const before = await linkStats();
  await emulator!.client.set({ link: LINK, dir: 'ab', lossPercent: 50 });
  const rtts = await ping(400, 2);
  await emulator!.client.set({ link: LINK, dir: 'ab', lossPercent: 0 });
  const lost = (await linkStats()).ab.drops.loss - before.ab.drops.loss;
  expect(lost + rtts.length).toBe(400);
  // 400 draws at 50 %: one standard deviation is 10 datagrams.
  expect(Math.abs(lost - 200)).toBeLessThanOrEqual(50);
}, 30_000);

test('a cut link passes nothing until restored', async () => {
  const before = await linkStats();
  await emulator!.client.cut(LINK);
  expect(await ping(20, 5)).toHaveLength(0);
  const during = await linkStats();
  expect(during.cut).toBe(true);
  expect(during.ab.drops.cut - before.ab.drops.cut).toBe(20);

  await emulator!.client.restore(LINK);
  expect(await ping(20, 5)).toHaveLength(20);
  expect((await linkStats()).cut).toBe(false);
}, 30_000);

test('datagrams from another source than the configured peer are dropped and counted', async () => {
  const before = await linkStats();
  expect(await ping(5, 5, { fromPort: WG_PORT + 1, waitMs: 200 })).toHaveLength(0);
  const after = await linkStats();
  expect(after.ab.drops.foreign - before.ab.drops.foreign).toBe(5);
  expect(after.ab.packets).toBe(before.ab.packets);
}, 30_000);

test("the client reports the emulator's errors", async () => {
  await expect(emulator!.client.set({ link: 'nope/0', dir: 'ab', delayMs: 1 })).rejects.toThrow('unknown link "nope/0"');
});

test('SIGTERM stops it and removes its control socket', async () => {
  const { pid } = emulator!;
  await stopPids([pid]);
  expect(processArgv(pid)).toBeUndefined();
  expect(existsSync(file('control.sock'))).toBe(false);
  expect(readFileSync(file('fb-wan.log'), 'utf8')).toMatch(/terminated, stopping/);
}, 30_000);
