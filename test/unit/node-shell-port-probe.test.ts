/**
 * NodeShell.portOpen's probe is a bash; started by Node (its stdin a socket) without SHLVL, a
 * bash takes itself for one run by sshd and sources ~/.bashrc, which on this host runs
 * `pyenv init` and once hung every probe behind a stale pyenv lock. The probe must answer
 * without reading any startup file.
 */
import { mkdtempSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InventoryNode } from '../../core/inventory';
import { NodeShell } from '../../services/databases/node-shell';
import { runHost } from '../../platform/command';

const home = mkdtempSync(path.join(tmpdir(), 'fb-probe-home-'));
const sourced = path.join(home, 'bashrc-was-read');
const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
let server: Server;

beforeAll(async () => {
  writeFileSync(path.join(home, '.bashrc'), `touch '${sourced}'\n`);
  process.env.HOME = home;
  delete process.env.SHLVL;
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(home, { recursive: true, force: true });
});

/** A node whose commands run on this host, as a local fleet's run in its namespace. */
const hostShell = () =>
  new NodeShell({ name: 'probe', exec: { transport: 'netns', namespace: 'fb-none' } } as InventoryNode, {
    where: 'this host',
    run: (argv, options) => runHost(argv, options),
    spawnDetached: () => Promise.reject(new Error('not used')),
  });

test('a bash started as Node starts it reads ~/.bashrc here (the condition the probe must survive)', async () => {
  await runHost(['bash', '-c', 'true']);
  expect(existsSync(sourced)).toBe(true);
  rmSync(sourced);
});

test('the port probe answers open and closed ports without reading ~/.bashrc', async () => {
  const { port } = server.address() as { port: number };
  expect(await hostShell().portOpen('127.0.0.1', port)).toBe(true);
  server.close();
  expect(await hostShell().portOpen('127.0.0.1', port)).toBe(false);
  expect(existsSync(sourced)).toBe(false);
});
