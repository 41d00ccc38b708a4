/**
 * platform/files, platform/wait, platform/paths and platform/command on this host: an atomic
 * write is never seen torn by a concurrent reader in another process, private files get their
 * mode, a claim is exclusive, waits time out with a message that says what was awaited, and the
 * command runner reports output, failures and timeouts.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CommandError } from '../../core/exec';
import { runHost, startCommand } from '../../platform/command';
import { createExclusive, readJson, writeFileAtomic, writeJsonAtomic, writePrivate } from '../../platform/files';
import { statePaths, stateRoot } from '../../platform/paths';
import { allDone, sleep, waitFor, WaitTimeoutError } from '../../platform/wait';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-platform-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('files', () => {
  test('a reader in another process sees the old content or the new, never a torn file', async () => {
    const file = path.join(dir, 'state.json');
    const versions = ['a', 'b'].map((c) => c.repeat(2 * 1024 * 1024));
    writeFileAtomic(file, versions[0]);
    // The reader reports the length of anything that is neither version.
    const reader = startCommand([
      process.execPath,
      '-e',
      `const fs = require('fs'); const end = Date.now() + 1500; let reads = 0; const bad = new Set();
       while (Date.now() < end) { const t = fs.readFileSync(process.argv[1], 'utf8'); reads++;
         if (!(t.length === ${versions[0].length} && (/^a+$/.test(t) || /^b+$/.test(t)))) bad.add(t.length); }
       console.log(JSON.stringify({ reads, bad: [...bad] }));`,
      file,
    ]);
    let writes = 0;
    const writing = (async () => {
      for (const end = Date.now() + 1500; Date.now() < end; writes++) {
        writeFileAtomic(file, versions[writes % 2]);
        await sleep(0);
      }
    })();
    expect(await reader.exited).toBe(0);
    await writing;
    const { reads, bad } = JSON.parse(reader.stdout()) as { reads: number; bad: number[] };
    expect(writes).toBeGreaterThan(10);
    expect(reads).toBeGreaterThan(10);
    expect(bad).toEqual([]);
    // No temporary file is left beside the target.
    expect(readdirSync(dir)).toEqual(['state.json']);
  }, 20_000);

  test('private files are 0600 in 0700 directories, whatever the umask', () => {
    const file = path.join(dir, 'keys', 'node.key');
    writePrivate(file, 'secret\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    writeFileAtomic(path.join(dir, 'public.json'), '{}', { mode: 0o644 });
    expect(statSync(path.join(dir, 'public.json')).mode & 0o777).toBe(0o644);
  });

  test('readJson is undefined for a missing file and throws for a broken one', () => {
    const file = path.join(dir, 'x.json');
    expect(readJson(file)).toBeUndefined();
    writeJsonAtomic(file, { a: 1 });
    expect(readJson(file)).toEqual({ a: 1 });
    writeFileAtomic(file, '{ half');
    expect(() => readJson(file)).toThrow(SyntaxError);
  });

  test('of two claims on one file, only the first succeeds', () => {
    const lock = path.join(dir, 'sub', 'fleet.lock');
    expect(createExclusive(lock, 'first')).toBe(true);
    expect(createExclusive(lock, 'second')).toBe(false);
    expect(existsSync(lock)).toBe(true);
  });
});

describe('wait', () => {
  test('waitFor returns the first value that is neither undefined nor false', async () => {
    let n = 0;
    await expect(waitFor(() => (++n < 3 ? undefined : n), { what: 'three', timeoutMs: 1_000, intervalMs: 1 })).resolves.toBe(3);
    await expect(waitFor(() => ++n > 5, { what: 'six', timeoutMs: 1_000, intervalMs: 1 })).resolves.toBe(true);
  });

  test('a timeout says what was awaited and for how long', async () => {
    const t0 = Date.now();
    const waiting = waitFor(() => false, { what: 'the overlay to connect', timeoutMs: 200, intervalMs: 20 });
    await expect(waiting).rejects.toThrow(WaitTimeoutError);
    await expect(waiting).rejects.toThrow('timed out after 200 ms waiting for the overlay to connect');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    await expect(waitFor(() => undefined, { what: 'x', timeoutMs: 1_500 })).rejects.toThrow('timed out after 1.5 s waiting for x');
  });

  test('a condition that throws ends the wait at once', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('the process died');
        },
        { what: 'x', timeoutMs: 10_000 },
      ),
    ).rejects.toThrow('the process died');
  });

  test('allDone waits for every task before it fails', async () => {
    let slowFinished = false;
    const slow = sleep(100).then(() => (slowFinished = true));
    await expect(allDone<unknown>([Promise.reject(new Error('first')), slow])).rejects.toThrow('first');
    expect(slowFinished).toBe(true);
  });
});

describe('paths', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test('one root, overridable, and the databases keep their own override', () => {
    delete process.env.FRAGBENCH_STATE_DIR;
    delete process.env.FRAGBENCH_DB_STATE_DIR;
    expect(stateRoot()).toBe('/var/lib/fragbench');
    process.env.FRAGBENCH_STATE_DIR = dir;
    expect(statePaths.fleet()).toBe(path.join(dir, 'fleet'));
    expect(statePaths.databases()).toBe(path.join(dir, 'db'));
    process.env.FRAGBENCH_DB_STATE_DIR = '/tmp/fb-db';
    expect(statePaths.databases()).toBe('/tmp/fb-db');
  });
});

describe('command', () => {
  test('runHost collects output and feeds input', async () => {
    const result = await runHost(['sh', '-c', 'cat; echo err >&2'], { input: 'hello\n' });
    expect(result).toEqual({ code: 0, stdout: 'hello\n', stderr: 'err\n' });
  });

  test('a failure throws CommandError unless allowed; a missing program is a CommandError too', async () => {
    await expect(runHost(['sh', '-c', 'echo nope >&2; exit 4'])).rejects.toThrow(CommandError);
    await expect(runHost(['sh', '-c', 'exit 4'], { allowFailure: true })).resolves.toMatchObject({ code: 4 });
    await expect(runHost(['fb-no-such-program'])).rejects.toThrow(CommandError);
  });

  test('a command past its timeout is killed', async () => {
    const t0 = Date.now();
    const result = await runHost(['sleep', '30'], { timeoutMs: 200, allowFailure: true });
    expect(result.code).toBe(128 + 9);
    expect(result.stderr).toContain('killed by SIGKILL');
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  test('startCommand hands over every stderr line before it reports the exit', async () => {
    const lines: string[] = [];
    const command = startCommand(['sh', '-c', 'for i in 1 2 3; do echo "line $i" >&2; done; echo done'], {
      onStderrLine: (l) => lines.push(l),
      input: '',
    });
    expect(await command.exited).toBe(0);
    expect(lines).toEqual(['line 1', 'line 2', 'line 3']);
    expect(command.stdout()).toBe('done\n');
  });
});
