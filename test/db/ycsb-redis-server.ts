/**
 * A throwaway redis-server for the YCSB tests and fixture recordings: on loopback, optionally
 * inside a network namespace, no persistence; stopped (or stalled, or killed) by its PID.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { netnsArgv, runHost } from '../../platform/command';
import { signalPid } from '../../platform/pid';
import { ManagedProcess } from '../../platform/process';

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

export async function startRedis(options: { port: number; namespace?: string }): Promise<RedisProcess> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fb-ycsb-redis-'));
  const server = ManagedProcess.start({
    prefix: options.namespace ? netnsArgv(options.namespace, []) : [],
    argv: ['redis-server', '--port', String(options.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    // Its --dir is unique to this start; redis-server renames its title, which keeps no argument.
    marker: [dir, `redis-server 127.0.0.1:${options.port}`],
    logFile: path.join(dir, 'redis.log'),
    name: `redis-server on port ${options.port}`,
  });
  const signal = (sig: NodeJS.Signals) => (server.isOurs() ? signalPid(server.pid, sig) : undefined);
  const redis: RedisProcess = {
    pid: server.pid,
    port: options.port,
    signal,
    stop: async () => {
      // A test may have stalled it: a stopped process would sit out the SIGTERM grace.
      signal('SIGCONT');
      await server.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const pong = async () =>
    (await runHost(inNamespace(options.namespace, ['redis-cli', '-p', String(options.port), 'ping']), { allowFailure: true })).stdout.trim() ===
    'PONG';
  try {
    await server.waitReady(pong, { what: 'it to answer PING', timeoutMs: 5_000, intervalMs: 100 });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return redis;
}

function inNamespace(namespace: string | undefined, argv: string[]): string[] {
  return namespace ? netnsArgv(namespace, argv) : argv;
}
