/**
 * The local Temporal dev server (`temporal server start-dev`): started only when nothing answers
 * on 127.0.0.1:7233 (or FRAGBENCH_DEV_PORT), bound to loopback, its history in a file under the state root so runs
 * survive a restart, its PID in a file so that a later `fragbench` adopts and stops it by PID and
 * its history file (the marker), and nothing else.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { runHost } from '../platform/command';
import { statePaths } from '../platform/paths';
import { ManagedProcess, readPidFile, writePidFile } from '../platform/process';
import { SEARCH_ATTRIBUTES } from '../workflows/definitions';
import { localDevPort } from './connection';

export const DEV_SERVER = {
  ip: '127.0.0.1',
  port: localDevPort(),
  uiPort: localDevPort() + 1000,
  dbFile: statePaths.temporalDev('db'),
  pidFile: statePaths.temporalDev('pid'),
  logFile: statePaths.temporalDev('log'),
};
export const UI_ADDRESS = `http://${DEV_SERVER.ip}:${DEV_SERVER.uiPort}`;

const PROJECT_ROOT = path.resolve(__dirname, '..');

/** True when something accepts TCP connections on host:port within timeoutMs. */
export function answers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(ok);
    };
    // Timers run before I/O in a turn of the event loop: after a blocked loop (bundling the
    // workflows takes seconds of CPU) the timeout fires ahead of a connection the kernel made long
    // ago. It is judged after that turn's I/O, so a blocked caller never reads a live server as gone.
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(false)));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The real `temporal` binary (under pyenv, `temporal` on PATH is a shell shim). */
export async function temporalBinary(): Promise<string> {
  const { stdout } = await runHost(['bash', path.join(PROJECT_ROOT, 'scripts', 'temporal-path.sh')]);
  return stdout.trim();
}

/** A search attribute type as the `temporal` CLI names it (`--search-attribute Name=Keyword`, `--type KeywordList`). */
const CLI_TYPE = { KEYWORD: 'Keyword', KEYWORD_LIST: 'KeywordList' } as const;

/** The run's search attributes as the `temporal` CLI takes them: `FragbenchScenario=Keyword`, ... */
export function searchAttributeArgs(): { name: string; type: string }[] {
  return Object.values(SEARCH_ATTRIBUTES).map((key) => ({ name: key.name, type: CLI_TYPE[key.type] }));
}

/** Our server's history file is in its command line: a recycled PID's is not. */
const MARKER = DEV_SERVER.dbFile;

/** The dev server an earlier `fragbench` started and recorded, if it still runs. */
export function adoptDevServer(): ManagedProcess | undefined {
  const pid = readPidFile(DEV_SERVER.pidFile);
  return pid === undefined ? undefined : ManagedProcess.adopt({ pid, marker: MARKER, name: 'the Temporal dev server', logFile: DEV_SERVER.logFile });
}

/** Until the port answers while this server runs (a server that died is not ready because another process took its port). */
function untilItAnswers(server: ManagedProcess): Promise<void> {
  return server.waitReady(async () => (await answers(DEV_SERVER.ip, DEV_SERVER.port)) && server.isOurs(), {
    what: `it to answer on ${DEV_SERVER.ip}:${DEV_SERVER.port}`,
    timeoutMs: 60_000,
    intervalMs: 250,
  });
}

/**
 * Starts the dev server unless one answers already; says whether this call started it, and
 * which server of ours answers (none when a server of someone else's answers).
 */
export async function ensureDevServer(log: (line: string) => void = console.log): Promise<{ started: boolean; server?: ManagedProcess }> {
  if (await answers(DEV_SERVER.ip, DEV_SERVER.port)) return { started: false, server: adoptDevServer() };
  // Ours still runs but did not answer in time (starting, or a busy host): wait for it rather than
  // start a second one, which would fail on the taken port and leave the PID file naming the dead one.
  const running = adoptDevServer();
  if (running) {
    await untilItAnswers(running);
    return { started: false, server: running };
  }
  mkdirSync(path.dirname(DEV_SERVER.logFile), { recursive: true });
  const argv = [
    await temporalBinary(),
    'server',
    'start-dev',
    '--ip',
    DEV_SERVER.ip,
    '--port',
    String(DEV_SERVER.port),
    '--ui-port',
    String(DEV_SERVER.uiPort),
    '--db-filename',
    DEV_SERVER.dbFile,
    '--ui-disable-news-fetch',
    // Registered on every start (a no-op once its history file has them), so the UI's list filters runs by them.
    ...searchAttributeArgs().flatMap(({ name, type }) => ['--search-attribute', `${name}=${type}`]),
    '--log-level',
    'warn',
  ];
  const server = ManagedProcess.start({ argv, logFile: DEV_SERVER.logFile, marker: MARKER, name: 'the Temporal dev server' });
  writePidFile(DEV_SERVER.pidFile, server.pid);
  log(`Temporal dev server starting (pid ${server.pid}, log ${DEV_SERVER.logFile})`);
  await untilItAnswers(server);
  return { started: true, server };
}

/** Stops the dev server this project started (by its recorded PID); returns whether one was running. */
export async function stopDevServer(): Promise<boolean> {
  const server = adoptDevServer();
  rmSync(DEV_SERVER.pidFile, { force: true });
  if (!server) return false;
  // Ten seconds to flush its history file before SIGKILL.
  await server.stop(10_000);
  return true;
}
