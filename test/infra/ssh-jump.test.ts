/**
 * The inventory's `exec.jump` as the worker uses it: the hop through the VM manager gets the same
 * ssh options as the hop to the node (`-J` would drop them), read back with `ssh -G`.
 */
import { execFileSync } from 'child_process';
import { SshExec } from '../../services/exec/transports';

const target = { transport: 'ssh' as const, host: '10.10.1.21', user: 'ubuntu', jump: { host: '198.51.100.1', user: 'ubuntu', port: 2222 } };

/** ssh's resolved configuration for an argv, without connecting (`ssh -G`). */
function resolved(argv: string[]): Record<string, string> {
  const destination = argv.indexOf('--') - 1;
  const out = execFileSync('ssh', ['-G', '-F', '/dev/null', ...argv.slice(1, destination), argv[destination]], { encoding: 'utf8' });
  return Object.fromEntries(
    out
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]),
  );
}

test('the jump hop runs with BatchMode and accept-new, like the hop to the node', () => {
  const argv = new SshExec(target).sshArgv(['true']);
  expect(argv).not.toContain('-J');
  const node = resolved(argv);
  expect([node.batchmode, node.stricthostkeychecking]).toEqual(['yes', 'accept-new']);
  const proxy = node.proxycommand.split(' ');
  expect(proxy.slice(0, 1)).toEqual(['ssh']);
  const jump = resolved([...proxy.filter((a) => a !== '-W' && a !== '%h:%p'), '--']);
  expect([jump.hostname, jump.user, jump.port, jump.batchmode, jump.stricthostkeychecking]).toEqual([
    '198.51.100.1',
    'ubuntu',
    '2222',
    'yes',
    'accept-new',
  ]);
});
