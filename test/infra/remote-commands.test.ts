/**
 * How the program runs commands on its VMs: each waits (bounded) for sshd first, runs again
 * when its VM is replaced, pins host keys per VM rather than per address, and the inventory is
 * published only once they have run.
 */
import { execFile } from 'child_process';
import { createServer, type Server } from 'net';
import { buildFleet } from '../../infra/pulumi/fleet';
import { jumpSshOptions } from '../../infra/pulumi/remote';
import { SSH_PROBE_SOURCE, SSH_READY } from '../../infra/pulumi/ssh-ready';
import {
  BUILD_TIMEOUT_MS,
  OPERATOR_SSH_PRIVATE_KEY,
  TYPES,
  mockCloud,
  settled,
  stackSettings,
  valueOf,
  type Declared,
  type DeclaredOf,
  type MockCloud,
} from './harness';

async function build(stack: string, overrides: Record<string, unknown>): Promise<MockCloud> {
  const cloud = mockCloud(stack);
  await valueOf(buildFleet(stackSettings(stack, overrides), OPERATOR_SSH_PRIVATE_KEY));
  await settled();
  return cloud;
}

/** The VM (OpenStack instance or Azure VM) answering at an address, public or private. */
function vmAt(cloud: MockCloud, address: string): Declared {
  const publicIp = [...cloud.ofType(TYPES.osFloatingIp), ...cloud.ofType(TYPES.azPublicIp)].find(
    (r) => (r.state.address ?? r.state.ipAddress) === address,
  );
  const port = cloud.ofType(TYPES.osPort).find((r) => r.inputs.fixedIps![0].ipAddress === address);
  const nic = cloud.ofType(TYPES.azNic).find((r) => r.inputs.ipConfigurations![0].privateIPAddress === address);
  const owner = publicIp?.name ?? port?.name.replace(/-\d+$/, '') ?? nic?.name;
  const vm = [...cloud.ofType(TYPES.osInstance), ...cloud.ofType(TYPES.azVm)].find((r) => r.name === owner);
  if (!vm) throw new Error(`no VM answers at ${address}`);
  return vm;
}

/** The address a remote command's script runs at: the far end of the jump, or the first hop. */
function targetAddress(command: DeclaredOf<typeof TYPES.command>): string {
  const jumped = /ssh [^|;]*? \S+@(\S+) '?sudo/.exec(command.inputs.create!);
  return jumped ? jumped[1] : command.inputs.connection.host;
}

const stacks: [string, Record<string, unknown>][] = [
  ['hybrid-virginia', { layout: '1_1', nodes: 2 }],
  ['fhc-8dc', { placement: { virginia: 'azure:eastus' } }],
];

describe.each(stacks)('%s: every remote command', (stack, overrides) => {
  let cloud: MockCloud;
  beforeAll(async () => {
    cloud = await build(stack, overrides);
  }, BUILD_TIMEOUT_MS);

  test('waits behind a bounded probe of sshd on its first hop', () => {
    const commands = cloud.ofType(TYPES.command);
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) {
      const ready = cloud.named(TYPES.localCommand, `${c.name}-ssh-ready`);
      expect(c.options.dependsOn).toContain(`${TYPES.localCommand}::${ready.name}`);
      expect(ready.inputs.environment!.FB_SSH_HOST).toBe(c.inputs.connection.host);
      expect(ready.inputs.create).toBe(SSH_PROBE_SOURCE);
      expect(Number(ready.inputs.environment!.FB_SSH_ATTEMPTS)).toBe(SSH_READY.attempts);
      expect(Number(ready.inputs.environment!.FB_SSH_TIMEOUT_S)).toBeGreaterThan(0);
      // It waits again for a replaced VM.
      expect(ready.inputs.triggers).toContain(vmAt(cloud, c.inputs.connection.host).state.id);
    }
  });

  test('relayed through the jump host, retries its second hop a bounded number of times, each try bounded', () => {
    for (const c of cloud.ofType(TYPES.command).filter((x) => /\bssh /.test(x.inputs.create!))) {
      expect(c.inputs.create).toMatch(
        new RegExp(`until ssh -n .*-o ConnectTimeout=${SSH_READY.connectTimeoutS}.* true; do .*-ge ${SSH_READY.attempts} \\]; then .*exit 1`),
      );
    }
  });

  test('runs again when the VM it configures is replaced', () => {
    for (const c of cloud.ofType(TYPES.command)) expect(c.inputs.triggers).toContain(vmAt(cloud, targetAddress(c)).state.id);
  });
});

test('the jump hop files host keys per VM in a known_hosts of the stack, so a reused address is not a changed key', () => {
  const before = jumpSshOptions('hybrid-virginia', 'vm-old');
  const after = jumpSshOptions('hybrid-virginia', 'vm-new');
  const option = (options: string, name: string) => new RegExp(`-o ${name}=(\\S+)`).exec(options)?.[1];
  expect(option(before, 'StrictHostKeyChecking')).toBe('accept-new');
  expect(option(before, 'HostKeyAlias')).not.toBe(option(after, 'HostKeyAlias'));
  expect(option(before, 'HostKeyAlias')).toBe(option(jumpSshOptions('hybrid-virginia', 'vm-old'), 'HostKeyAlias'));
  expect(option(before, 'UserKnownHostsFile')).toContain('hybrid-virginia');
  expect(option(before, 'UserKnownHostsFile')).not.toBe(option(jumpSshOptions('hybrid-sydney', 'vm-old'), 'UserKnownHostsFile'));
});

describe.each(stacks)('%s: the inventory output', (stack, overrides) => {
  test(
    'is published only after the commands that configure the VMs have run',
    async () => {
      const cloud = mockCloud(stack, { hold: (type) => type === TYPES.command });
      let published = false;
      const inventory = buildFleet(stackSettings(stack, overrides), OPERATOR_SSH_PRIVATE_KEY);
      inventory.apply(() => (published = true));
      await settled();
      await new Promise((r) => setTimeout(r, 200));
      expect(published).toBe(false);
      cloud.release();
      await valueOf(inventory);
      // Let the components register their outputs before the next test replaces the mocks.
      await settled();
      expect(published).toBe(true);
    },
    BUILD_TIMEOUT_MS,
  );
});

describe('the sshd probe, run by node as the wait step runs it', () => {
  const probe = (port: number, attempts: number) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const env = {
        ...process.env,
        FB_SSH_HOST: '127.0.0.1',
        FB_SSH_PORT: String(port),
        FB_SSH_ATTEMPTS: String(attempts),
        FB_SSH_INTERVAL_S: '0.2',
        FB_SSH_TIMEOUT_S: '1',
      };
      execFile('node', ['-e', SSH_PROBE_SOURCE], { env }, (err, _stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stderr }));
    });
  const listen = (server: Server, port = 0) =>
    new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));

  test('waits for a server that starts late and greets like sshd', async () => {
    // A free port with nothing listening on it at first: the probe's first tries are refused.
    const free = createServer();
    const port = await listen(free);
    await new Promise((resolve) => free.close(resolve));
    const server = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
    const running = probe(port, 20);
    setTimeout(() => void listen(server, port), 600);
    const { code } = await running;
    server.close();
    expect(code).toBe(0);
  });

  test('gives up after its attempts, naming the host, when the answer is not sshd', async () => {
    const server = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n'));
    const port = await listen(server);
    const { code, stderr } = await probe(port, 2);
    server.close();
    expect(code).toBe(1);
    expect(stderr).toContain(`sshd on 127.0.0.1:${port} did not answer after 2 tries`);
  });
});
