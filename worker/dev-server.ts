/**
 * The local Temporal dev server (`temporal server start-dev`): started only when nothing answers
 * on 127.0.0.1:7233, bound to loopback, its history in a file under /var/lib/fragbench so runs
 * survive a restart, its PID in a state file so it is stopped by PID and nothing else.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { runHost } from '../platform/command';
import { spawnDetached } from '../platform/process';
import { tail } from '../core/exec';

const STATE_DIR = '/var/lib/fragbench';
export const DEV_SERVER = {
  ip: '127.0.0.1',
  port: 7233,
  uiPort: 8233,
  dbFile: path.join(STATE_DIR, 'temporal-dev.db'),
  pidFile: path.join(STATE_DIR, 'temporal-dev.pid'),
  logFile: path.join(STATE_DIR, 'temporal-dev.log'),
};
export const UI_ADDRESS = `http://${DEV_SERVER.ip}:${DEV_SERVER.uiPort}`;

const PROJECT_ROOT = path.resolve(__dirname, '..');

/** True when something accepts TCP connections on host:port within timeoutMs. */
export function answers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The real `temporal` binary (under pyenv, `temporal` on PATH is a shell shim). */
export async function temporalBinary(): Promise<string> {
  const { stdout } = await runHost(['bash', path.join(PROJECT_ROOT, 'scripts', 'temporal-path.sh')]);
  return stdout.trim();
}

function recordedPid(): number | undefined {
  if (!existsSync(DEV_SERVER.pidFile)) return undefined;
  const pid = Number(readFileSync(DEV_SERVER.pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** True when pid runs the dev server we started (a recycled PID runs something else). */
function isOurServer(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes('start-dev') && argv.includes(DEV_SERVER.dbFile);
  } catch {
    return false;
  }
}

/** Starts the dev server unless one answers already; returns whether this call started it. */
export async function ensureDevServer(log: (line: string) => void = console.log): Promise<{ started: boolean }> {
  if (await answers(DEV_SERVER.ip, DEV_SERVER.port)) return { started: false };
  mkdirSync(STATE_DIR, { recursive: true });
  const argv = [
    await temporalBinary(),
    'server', 'start-dev',
    '--ip', DEV_SERVER.ip,
    '--port', String(DEV_SERVER.port),
    '--ui-port', String(DEV_SERVER.uiPort),
    '--db-filename', DEV_SERVER.dbFile,
    '--ui-disable-news-fetch',
    '--log-level', 'warn',
  ];
  const pid = spawnDetached(argv, DEV_SERVER.logFile);
  writeFileSync(DEV_SERVER.pidFile, `${pid}\n`);
  log(`Temporal dev server starting (pid ${pid}, log ${DEV_SERVER.logFile})`);
  const deadline = Date.now() + 60_000;
  while (!(await answers(DEV_SERVER.ip, DEV_SERVER.port))) {
    if (!isOurServer(pid) || Date.now() > deadline) {
      const logText = existsSync(DEV_SERVER.logFile) ? readFileSync(DEV_SERVER.logFile, 'utf8') : '';
      throw new Error(`the Temporal dev server did not come up on ${DEV_SERVER.ip}:${DEV_SERVER.port}:\n${tail(logText, 15)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { started: true };
}

/** Stops the dev server this project started (by its recorded PID); returns whether one was running. */
export async function stopDevServer(): Promise<boolean> {
  const pid = recordedPid();
  rmSync(DEV_SERVER.pidFile, { force: true });
  if (pid === undefined || !isOurServer(pid)) return false;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isOurServer(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (isOurServer(pid)) process.kill(pid, 'SIGKILL');
  return true;
}
