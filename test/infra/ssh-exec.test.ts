/**
 * The SSH transport (SshExec) against real sshd servers on loopback: the node's own, and a jump
 * host in front of it as the VM manager is for nodes without a public address. What a VM fleet
 * relies on: output and exit status come back, arguments reach the node exactly as given (the
 * remote shell sees them quoted), input reaches the command, a detached process's PID is the
 * node's, the jump hop is really taken, and a server that is not there gives an error that says
 * where and why.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SshExec } from '../../services/exec/transports';
import { CommandError } from '../../core/exec';
import { isAlive, signalPid } from '../../platform/pid';
import { waitFor } from '../../platform/wait';
import { freeLoopbackPort } from '../support/ports';
import { makeSshKeys, sshClientOnPath, startLoopbackSshd, type LoopbackSshd } from '../support/sshd';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-ssh-'));
let node: LoopbackSshd;
let jump: LoopbackSshd;
let restorePath: () => void;

beforeAll(async () => {
  const keys = await makeSshKeys(scratch);
  restorePath = sshClientOnPath(keys);
  // The jump host logs at DEBUG1: that is where sshd names the target of a forwarding (-W).
  [node, jump] = await Promise.all([startLoopbackSshd(keys, 'node'), startLoopbackSshd(keys, 'jump', 'DEBUG1')]);
});

afterAll(async () => {
  restorePath?.();
  await Promise.all([node?.stop(), jump?.stop()]);
  rmSync(scratch, { recursive: true, force: true });
});

const direct = () => new SshExec({ transport: 'ssh', host: '127.0.0.1', port: node.port, user: 'root' });
const throughJump = (jumpPort = jump.port) =>
  new SshExec({ transport: 'ssh', host: '127.0.0.1', port: node.port, user: 'root', jump: { host: '127.0.0.1', port: jumpPort, user: 'root' } });

test('a command runs on the node; its output comes back', async () => {
  const result = await direct().run(['sh', '-c', 'echo "on $(hostname) as $(id -un)"']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^on \S+ as root\n$/);
});

test("the command's exit status comes back: returned with allowFailure, thrown as a CommandError without", async () => {
  const exec = direct();
  const failed = await exec.run(['sh', '-c', 'echo to-stderr >&2; exit 7'], { allowFailure: true });
  expect(failed.code).toBe(7);
  expect(failed.stderr).toContain('to-stderr');
  const thrown = await exec.run(['sh', '-c', 'exit 3']).catch((err: unknown) => err);
  expect(thrown).toBeInstanceOf(CommandError);
  expect((thrown as CommandError).result.code).toBe(3);
  expect((thrown as CommandError).message).toContain('on root@127.0.0.1 exited with 3');
});

test('arguments arrive as given: spaces, quotes, $, globs and separators are not the remote shell’s', async () => {
  const args = ['two words', "it's", '"double"', '$HOME', '${PATH}', '`id`', '$(id)', 'a;b', 'x|y', '*', '~', 'back\\slash', 'tab\there', ''];
  const { stdout } = await direct().run(['printf', '[%s]\\n', ...args]);
  expect(stdout).toBe(args.map((a) => `[${a}]\n`).join(''));
});

test("input is the remote command's standard input", async () => {
  const { stdout } = await direct().run(['wc', '-l'], { input: 'one\ntwo\nthree\n' });
  expect(stdout.trim()).toBe('3');
});

test("a detached process keeps running after ssh returns, with the node's PID and its output in the log", async () => {
  const logFile = path.join(scratch, 'detached log.txt');
  const pid = await direct().spawnDetached(['sh', '-c', 'echo "started $$"; exec sleep 60'], logFile);
  try {
    // The node is this host, so its PID is one here.
    await waitFor(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes(`started ${pid}`), {
      what: 'the detached process to write its log',
      timeoutMs: 10_000,
    });
    expect(isAlive(pid)).toBe(true);
  } finally {
    signalPid(pid, 'SIGKILL');
  }
});

test('through the jump host: the command runs on the node, and the jump host forwarded to it', async () => {
  const result = await throughJump().run(['printf', '%s', 'via $jump']);
  expect(result.stdout).toBe('via $jump');
  expect(jump.log()).toMatch(new RegExp(`target 127\\.0\\.0\\.1 port ${node.port}\\b`));
});

test('no server at the port: a CommandError that names the node, the port and "Connection refused"', async () => {
  const port = await freeLoopbackPort();
  const exec = new SshExec({ transport: 'ssh', host: '127.0.0.1', port, user: 'root' });
  const err = (await exec.run(['true']).catch((e: unknown) => e)) as CommandError;
  expect(err).toBeInstanceOf(CommandError);
  expect(err.result.code).toBe(255);
  expect(err.message).toContain('on root@127.0.0.1 exited with 255');
  expect(err.message).toContain(`connect to host 127.0.0.1 port ${port}: Connection refused`);
});

test('the jump host down: the node is not reached around it, and the error names the jump port', async () => {
  const port = await freeLoopbackPort();
  const err = (await throughJump(port)
    .run(['true'])
    .catch((e: unknown) => e)) as CommandError;
  expect(err).toBeInstanceOf(CommandError);
  expect(err.result.code).toBe(255);
  expect(err.message).toContain(`connect to host 127.0.0.1 port ${port}: Connection refused`);
});
