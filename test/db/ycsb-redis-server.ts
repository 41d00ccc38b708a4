/**
 * A throwaway redis-server for the YCSB tests and fixture recordings: on loopback, optionally
 * inside a network namespace, no persistence; stopped (or stalled, or killed) by its PID.
 */
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { spawnDetached } from '../../platform/process';
import { tail } from '../../core/exec';
import { netnsArgv } from '../../activities/exec/transports';

export interface RedisProcess {
  pid: number;
  port: number;
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then waits until the process is gone; safe to call twice. */
  stop(): Promise<void>;
}

/** A TCP port nothing listens on now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startRedis(options: { port: number; namespace?: string }): Promise<RedisProcess> {
  const inNs = (argv: string[]) => (options.namespace ? netnsArgv(options.namespace, argv) : argv);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fb-ycsb-redis-'));
  const logFile = path.join(dir, 'redis.log');
  const pid = spawnDetached(
    inNs(['redis-server', '--port', String(options.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir]),
    logFile,
  );
  const redis: RedisProcess = {
    pid,
    port: options.port,
    signal: (signal) => {
      if (alive(pid)) process.kill(pid, signal);
    },
    stop: async () => {
      redis.signal('SIGCONT');
      redis.signal('SIGTERM');
      for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
      redis.signal('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; i < 50; i++) {
    const ping = await runHost(inNs(['redis-cli', '-p', String(options.port), 'ping']), { allowFailure: true });
    if (ping.stdout.trim() === 'PONG') return redis;
    if (!alive(pid)) break;
    await sleep(100);
  }
  const log = readFileSync(logFile, 'utf8');
  await redis.stop();
  throw new Error(`redis-server on port ${options.port} did not start:\n${tail(log, 20)}`);
}
