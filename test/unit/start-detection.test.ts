/**
 * Start detection that cannot race (issue: a Redis that took a moment to rename its process title
 * was reported as "failed to start: the process exited" while its log said it was ready). Real
 * processes on this host: one that starts under its spawn command line and renames itself later,
 * the way redis-server does, is ours throughout when both markers are given, and startServer
 * waits for it instead of calling it dead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecOptions, ExecResult, NodeExec } from '../../core/exec';
import { runHost } from '../../platform/command';
import { spawnDetached } from '../../platform/process';
import { NodeShell, startServer } from '../../services/databases/node-shell';

/** This host as a node: the commands run for real, only without a namespace around them. */
class HostExec implements NodeExec {
  readonly where = 'host';
  run(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    return runHost(argv, options);
  }
  spawnDetached(argv: string[], logFile: string): Promise<number> {
    return Promise.resolve(spawnDetached(argv, logFile));
  }
}

const node = {
  name: 'host',
  site: 'here',
  role: 'data',
  overlayAddress: '127.0.0.1',
  addresses: {},
  exec: { transport: 'netns', namespace: 'none' },
} as never;
const shell = new NodeShell(node, new HostExec());
let dir: string;
let conf: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-start-'));
  conf = path.join(dir, 'server.conf');
  writeFileSync(conf, '');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TITLE = 'fb-fake-server 127.0.0.1:1';
/** Starts as `bash -c … <conf>`, renames itself to TITLE after `renameAfterS`, lives 20 s. */
const renamingServer = (renameAfterS: number) => ['bash', '-c', `sleep ${renameAfterS}; exec -a '${TITLE}' sleep 20`, conf];

test('a process that renames itself is ours before and after the rename when both markers are given, and not with the title alone', async () => {
  const pid = await shell.exec.spawnDetached(renamingServer(1), path.join(dir, 'log'));
  try {
    expect(await shell.isOurs(pid, [TITLE, conf])).toBe(true);
    expect(await shell.isOurs(pid, TITLE)).toBe(false);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await shell.isOurs(pid, [TITLE, conf])).toBe(true);
    expect(await shell.isOurs(pid, TITLE)).toBe(true);
  } finally {
    await shell.stopProcess(pid, [TITLE, conf], 1_000);
  }
  expect(await shell.isOurs(pid, [TITLE, conf])).toBe(false);
});

test('startServer waits through a slow rename instead of reporting an exit, and reports a real exit', async () => {
  let calls = 0;
  const readyOnThirdProbe = () => Promise.resolve(++calls >= 6);
  const spec = { database: 'fake', argv: renamingServer(1), logFile: path.join(dir, 'log'), marker: [TITLE, conf] };
  const pid = await startServer(shell, spec, readyOnThirdProbe, 10_000);
  await shell.stopProcess(pid, spec.marker, 1_000);

  const dies = { ...spec, argv: ['bash', '-c', 'echo boom; exit 3', conf] };
  await expect(startServer(shell, dies, () => Promise.resolve(false), 10_000)).rejects.toThrow(
    /fake on host \(host\) failed to start: the process exited[\s\S]*boom/,
  );
  // 2 s alone; over jest's default 5 s beside CI's other lanes (local CI of 6c3e9c4). It judges no time.
}, 20_000);
