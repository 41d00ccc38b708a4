/**
 * `answers`: whether a server accepts connections, also when the caller's event loop was blocked
 * past the timeout (bundling the workflows blocks it for seconds): such a caller read a live dev
 * server as gone and started a second one over its PID file.
 */
import { createServer, type Server } from 'node:net';
import { answers } from '../../worker/dev-server';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // The caller's synchronous work.
  }
}

test('a listening port answers, also when the caller blocks its event loop past the timeout', async () => {
  expect(await answers('127.0.0.1', port, 200)).toBe(true);
  const asked = answers('127.0.0.1', port, 100);
  blockFor(400);
  expect(await asked).toBe(true);
});

test('a closed port does not answer', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const freed = (closed.address() as { port: number }).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  expect(await answers('127.0.0.1', freed, 200)).toBe(false);
});
