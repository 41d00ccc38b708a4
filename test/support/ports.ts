/** Loopback ports for servers a test starts, chosen by the kernel rather than guessed. */
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
