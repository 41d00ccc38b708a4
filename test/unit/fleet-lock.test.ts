/**
 * The local fleet's lock (infra/local/lock.ts): a live holder refuses a second up or down; a
 * holder that is gone, or whose PID now runs another process, is taken over. Against a private
 * state root: no fleet is built.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { identify } from '../../platform/pid';

const root = mkdtempSync(path.join(tmpdir(), 'fb-lock-'));
// The lock's path is read when the state module loads: point it here first.
process.env.FRAGBENCH_STATE_DIR = root;
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after the state directory is set, which an import would precede */
const { withFleetLock } = require('../../infra/local/lock') as typeof import('../../infra/local/lock');
const { LOCK_FILE } = require('../../infra/local/state') as typeof import('../../infra/local/state');
/* eslint-enable @typescript-eslint/no-require-imports */

afterEach(() => rmSync(LOCK_FILE, { force: true }));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const me = identify(process.pid)!;

test('the lock names its holder by PID and start tick while held, and is gone after', async () => {
  const held = await withFleetLock('up', () => Promise.resolve(readFileSync(LOCK_FILE, 'utf8')));
  expect(held).toBe(`${me.pid} ${me.startTicks} up\n`);
  expect(existsSync(LOCK_FILE)).toBe(false);
});

test('a live holder refuses the next one, naming what it does and its PID', async () => {
  writeFileSync(LOCK_FILE, `${me.pid} ${me.startTicks} down\n`);
  const work = jest.fn(() => Promise.resolve());
  await expect(withFleetLock('up', work)).rejects.toThrow(`another "fleet down" (PID ${me.pid}) is working on the local fleet`);
  expect(work).not.toHaveBeenCalled();
});

test('a holder whose PID now runs another process (a later start tick) is taken over', async () => {
  writeFileSync(LOCK_FILE, `${me.pid} ${me.startTicks - 1} up\n`);
  await expect(withFleetLock('down', () => Promise.resolve('done'))).resolves.toBe('done');
});
