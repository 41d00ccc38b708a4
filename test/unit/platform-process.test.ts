/**
 * platform/process and platform/pid on real, short-lived processes of this host: readiness by log
 * line, socket and check; identity by PID + marker through a title rename; adoption and refusal
 * of a PID that is not ours; stopping with escalation; and failures that show the log's tail.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { identify, isAlive, isOurs, isSameProcessAlive, pidsWithMarker, processArgv, stopPids } from '../../platform/pid';
import { ManagedProcess, ProcessStartError, readPidFile, writePidFile } from '../../platform/process';
import { sleep } from '../../platform/wait';

let dir: string;
const started: ManagedProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-platform-process-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop(200)));
  rmSync(dir, { recursive: true, force: true });
});

/** A node script in the test's directory; its path is an argument, so it doubles as a marker. */
function script(name: string, source: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, source);
  return file;
}

function start(argv: string[], marker?: string | string[]): ManagedProcess {
  const proc = ManagedProcess.start({ argv, marker, logFile: path.join(dir, 'out.log') });
  started.push(proc);
  return proc;
}

const TITLE = 'fb-renamed-server 127.0.0.1:1';
/**
 * Prints a ready line, renames its title when told (SIGUSR2, as redis-server renames itself once
 * started), then idles. Told, not timed: a timer raced the test's first look under CI's load.
 */
const RENAMING = `
process.on('SIGUSR2', () => { process.title = ${JSON.stringify(TITLE)}; console.log('renamed'); });
console.log('ready');
setInterval(() => undefined, 1000);
`;

test('a process that renames its title stays ours by PID + marker, and stop leaves nothing', async () => {
  const file = script('renaming.js', RENAMING);
  const proc = start([process.execPath, file], [TITLE, file]);
  await proc.waitReady({ logLine: 'ready' }, { timeoutMs: 5_000 });
  expect(proc.isOurs()).toBe(true);
  process.kill(proc.pid, 'SIGUSR2');
  await proc.waitReady({ logLine: 'renamed' }, { timeoutMs: 5_000 });
  await sleep(50);
  expect(processArgv(proc.pid)?.join(' ')).toContain(TITLE);
  // The script's path is gone from its command line: only the title marker still finds it.
  expect(isOurs(proc.pid, file)).toBe(false);
  expect(proc.isOurs()).toBe(true);
  await proc.stop();
  expect(isAlive(proc.pid)).toBe(false);
});

test('a process identity holds while that process lives, and not for another start at the same PID', async () => {
  const file = script('idle.js', "console.log('ready'); setInterval(() => undefined, 1000);");
  const proc = start([process.execPath, file], file);
  await proc.waitReady({ logLine: 'ready' }, { timeoutMs: 5_000 });
  const identity = identify(proc.pid);
  expect(identity?.pid).toBe(proc.pid);
  expect(isSameProcessAlive(identity!)).toBe(true);
  // What a recycled PID looks like: the same number, started at another tick.
  expect(isSameProcessAlive({ pid: proc.pid, startTicks: identity!.startTicks + 1 })).toBe(false);
  await proc.stop();
  expect(isSameProcessAlive(identity!)).toBe(false);
  expect(identify(proc.pid)).toBeUndefined();
});

test('a child that ignores SIGTERM is SIGKILLed after the grace, and stop waits until it is gone', async () => {
  const file = script(
    'stubborn.js',
    `process.on('SIGTERM', () => console.log('ignored')); console.log('ready'); setInterval(() => undefined, 1000);`,
  );
  const proc = start([process.execPath, file], file);
  await proc.waitReady({ logLine: 'ready' }, { timeoutMs: 5_000 });
  const t0 = Date.now();
  await proc.stop(500);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
  expect(isAlive(proc.pid)).toBe(false);
  expect(proc.logSinceStart()).toContain('ignored');
});

test('a later process adopts by PID + marker; a PID running something else is refused', async () => {
  const proc = start(['sleep', '30'], ['sleep']);
  const pidFile = path.join(dir, 'sleep.pid');
  writePidFile(pidFile, proc.pid);
  const adopted = ManagedProcess.adopt({ pid: readPidFile(pidFile)!, marker: 'sleep' });
  expect(adopted?.pid).toBe(proc.pid);
  // The same PID with another program's marker: what a recycled PID looks like.
  expect(ManagedProcess.adopt({ pid: proc.pid, marker: 'tincd' })).toBeUndefined();
  // This test's own process is alive but not ours.
  expect(ManagedProcess.adopt({ pid: process.pid, marker: 'sleep' })).toBeUndefined();
  await adopted!.stop();
  expect(isAlive(proc.pid)).toBe(false);
  expect(ManagedProcess.adopt({ pid: proc.pid, marker: 'sleep' })).toBeUndefined();
});

test('a process whose PID was never recorded is found by its marker alone, also after a title rename', async () => {
  const file = script('renaming.js', RENAMING);
  const proc = start([process.execPath, file], [TITLE, file]);
  await proc.waitReady({ logLine: 'ready' }, { timeoutMs: 5_000 });
  expect(pidsWithMarker(file)).toEqual([proc.pid]);
  process.kill(proc.pid, 'SIGUSR2');
  await proc.waitReady({ logLine: 'renamed' }, { timeoutMs: 5_000 });
  await sleep(50);
  expect(pidsWithMarker([TITLE, file])).toEqual([proc.pid]);
  await proc.stop();
  expect(pidsWithMarker([TITLE, file])).toEqual([]);
});

test('a PID that now runs another program is not ours: stop leaves it alone', async () => {
  // The PID stays, the program changes (exec): to the handle, what a recycled PID looks like.
  const proc = start(['sh', '-c', 'sleep 0.3; exec sleep 30', 'fb-old-program'], 'fb-old-program');
  expect(proc.isOurs()).toBe(true);
  await sleep(600);
  expect(proc.isOurs()).toBe(false);
  await proc.stop(100);
  expect(isAlive(proc.pid)).toBe(true);
  await stopPids([proc.pid]);
});

test('readiness by socket and by check', async () => {
  const socket = path.join(dir, 'control.sock');
  const file = script('listener.js', `setTimeout(() => require('node:net').createServer().listen(${JSON.stringify(socket)}), 200);`);
  const proc = start([process.execPath, file], file);
  await proc.waitReady({ socket }, { timeoutMs: 5_000 });
  let calls = 0;
  await proc.waitReady(() => ++calls >= 3, { timeoutMs: 5_000, intervalMs: 10 });
  expect(calls).toBe(3);
});

test('a process that exits before it is ready fails at once with the end of its log', async () => {
  const proc = start(['sh', '-c', 'echo "cannot bind 192.0.2.1"; exit 3'], 'sh');
  const t0 = Date.now();
  const failure = proc.waitReady({ logLine: 'ready' }, { timeoutMs: 10_000 });
  await expect(failure).rejects.toThrow(ProcessStartError);
  await expect(failure).rejects.toThrow(/sh: exited before it was ready \(log .*out\.log\):\ncannot bind 192\.0\.2\.1/);
  expect(Date.now() - t0).toBeLessThan(5_000);
});

test('a process not ready in time is stopped, and the error says what was awaited', async () => {
  const proc = start(['sh', '-c', 'echo starting; exec sleep 30'], 'sleep');
  await expect(proc.waitReady({ logLine: 'ready' }, { timeoutMs: 300, what: 'the ready line' })).rejects.toThrow(
    /timed out after 300 ms waiting for the ready line[\s\S]*starting/,
  );
  expect(isAlive(proc.pid)).toBe(false);
});

test('a prefix that execs into the program keeps the PID, and the marker finds it through the prefix', async () => {
  const proc = ManagedProcess.start({ prefix: ['nice', '-n', '5'], argv: ['sleep', '30'], logFile: path.join(dir, 'nice.log') });
  started.push(proc);
  expect(proc.marker).toBe('sleep');
  await sleep(100);
  expect(processArgv(proc.pid)?.[0]).toBe('sleep');
  expect(proc.isOurs()).toBe(true);
});

test('stopPids stops a set, escalating for the one that ignores SIGTERM', async () => {
  const stubborn = script('stubborn.js', `process.on('SIGTERM', () => undefined); console.log('ready'); setInterval(() => undefined, 1000);`);
  const procs = [start(['sleep', '30']), start(['sleep', '30']), start([process.execPath, stubborn], stubborn)];
  await procs[2].waitReady({ logLine: 'ready' }, { timeoutMs: 5_000 });
  await stopPids(
    procs.map((p) => p.pid),
    300,
  );
  for (const p of procs) expect(isAlive(p.pid)).toBe(false);
});
