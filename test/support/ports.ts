/** Loopback ports for servers a test starts, chosen by the kernel rather than guessed. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Listens on 127.0.0.1:port (0: the kernel picks) and lets go again; the port it had, or undefined if it was taken. */
async function listenOnce(port: number): Promise<number | undefined> {
  const server = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const { port: had } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return had;
}

/**
 * A loopback port free at the time of the call: bound to port 0, read, released. A program that
 * cannot listen on port 0 itself (sshd) gets it next; nothing else on this host asks for it.
 */
export async function freeLoopbackPort(): Promise<number> {
  const port = await listenOnce(0);
  if (port === undefined) throw new Error('could not listen on a loopback port');
  return port;
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
    if ((await listenOnce(port)) !== undefined && (await listenOnce(port + offset)) !== undefined) return port;
  }
  throw new Error(`no free loopback port pair (port, port + ${offset}) between ${low} and ${high + offset}`);
}
