/**
 * With no Temporal server where it looks, every command that needs one says so within seconds:
 * the address it tried and how to start or point to a server, not the SDK's "Failed to connect
 * before the deadline" after its own retries.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

jest.setTimeout(60_000);

const CLI = path.join(__dirname, '../../bin/fragbench.js');

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test.each([['cancel', 'some-run'], ['abort', 'some-run'], ['run', 'quickstart'], ['worker']])(
  'fragbench %s: names the address and the fix within seconds',
  async (...args) => {
    const address = `127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: { ...process.env, TEMPORAL_ADDRESS: address },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const seconds = (Date.now() - started) / 1000;
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`no Temporal server answered at ${address}`);
    expect(result.stderr).toMatch(/TEMPORAL_ADDRESS/);
    expect(result.stderr).not.toMatch(/Failed to connect before the deadline/);
    // The CLI's own start-up (tsx) is part of it; the wait for the server is at most 4 s.
    expect(seconds).toBeLessThan(15);
  },
);

test('the default local address points to `fragbench dev`', async () => {
  const { unreachableServer, temporalSettings } = await import('../../worker/connection');
  const message = unreachableServer(temporalSettings({}), new Error('refused')).message;
  expect(message).toMatch(/^no Temporal server answered at 127\.0\.0\.1:7233 \(namespace default\)/);
  expect(message).toContain('`fragbench dev`');
});
