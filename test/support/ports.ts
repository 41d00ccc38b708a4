/** Loopback ports for servers a test starts, chosen by the kernel rather than guessed. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port free at the time of the call: bound to port 0, read, released. A program that
 * cannot listen on port 0 itself (sshd) gets it next; nothing else on this host asks for it.
 */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether a TCP listener can bind 127.0.0.1:port right now. */
async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

/**
 * A free loopback port below the kernel's ephemeral range, and `port + offset` free too: for a
 * server a test kills and starts again on the same ports. A port from the ephemeral range (what
 * port 0 gives) is free for any outgoing connection to take as its local port once the killed
 * server let it go, and the restart then fails with "address already in use" (seen in CI, 2026-11-28).
 */
export async function restartableLoopbackPort(offset = 0): Promise<number> {
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const low = 10_000;
  const high = ephemeralLow - offset - 1;
  for (let tries = 0; tries < 100; tries++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if ((await bindable(port)) && (await bindable(port + offset))) return port;
  }
  throw new Error(`no free loopback port pair (port, port + ${offset}) between ${low} and ${high + offset}`);
}
