// VM-shaped local nodes for real, as root: a jump host and two nodes, each its own network, mount,
// PID and UTS namespace over its own overlay of the cached image, reached by the SSH executor
// through the jump host as cloud VMs without a public address are. Needs the image that
// scripts/setup.sh builds (infra/vmlocal/rootfs.ts); up takes about two seconds.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SshExec } from '../../services/exec/transports';
import { listNamespaces } from '../../infra/local/namespaces';
import { JUMP_LAN_ADDRESS, VM_PREFIX } from '../../infra/vmlocal/addresses';
import { checkNodeNames, operatorSshPath, vmFleetDown, vmFleetPaths, vmFleetUp, type VmFleet } from '../../infra/vmlocal/fleet';
import { builtRootfs } from '../../infra/vmlocal/rootfs';
import { isAlive } from '../../platform/pid';

jest.setTimeout(120_000);

const pathBefore = process.env.PATH;
let fleet: VmFleet;

beforeAll(async () => {
  fleet = await vmFleetUp(['alpha', 'beta']);
  process.env.PATH = `${operatorSshPath()}:${pathBefore ?? ''}`;
});

afterAll(async () => {
  process.env.PATH = pathBefore;
  await vmFleetDown();
});

const nodeState = () => JSON.parse(readFileSync(vmFleetPaths.state(), 'utf8')) as { nodes: { name: string; process: { pid: number } }[] };

async function leftovers(): Promise<{ namespaces: string[]; mounts: string[]; dir: boolean }> {
  const namespaces = (await listNamespaces()).filter((ns) => ns.startsWith(VM_PREFIX));
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter((line) => line.includes(vmFleetPaths.dir()) || line.startsWith(VM_PREFIX));
  return { namespaces, mounts, dir: existsSync(vmFleetPaths.dir()) };
}

test('each node answers over SSH through the jump host, as itself, in its own network and PID namespace', async () => {
  for (const node of fleet.nodes) {
    expect(node.exec.jump?.host).toBe(fleet.jump.exec.host);
    const exec = new SshExec(node.exec);
    const [hostname, user, root, client, address, init] = (
      await exec.run([
        'sh',
        '-c',
        'hostname; id -un; sudo -n id -un; echo "$SSH_CONNECTION" | cut -d" " -f1; ip -4 -o addr show eth0 | awk \'{print $4}\'; cat /proc/1/comm',
      ])
    ).stdout
      .trim()
      .split('\n');
    expect([hostname, user, root]).toEqual([node.name, 'ubuntu', 'root']);
    // The connection reached the node from the jump host's LAN address: the jump was taken.
    expect(client).toBe(JUMP_LAN_ADDRESS);
    expect(address).toBe(`${node.lanAddress}/24`);
    expect(init).toBe('fb-init');
  }
});

test('each node writes to its own root filesystem; the image and the other node do not see it', async () => {
  const [alpha, beta] = fleet.nodes.map((n) => new SshExec(n.exec));
  await alpha.run(['sudo', '-n', 'sh', '-c', 'echo alpha > /etc/fb-written']);
  expect((await alpha.run(['cat', '/etc/fb-written'])).stdout).toBe('alpha\n');
  expect((await beta.run(['cat', '/etc/fb-written'], { allowFailure: true })).code).not.toBe(0);
  expect(existsSync(join(builtRootfs().rootfs, 'etc/fb-written'))).toBe(false);
  expect(existsSync(join(vmFleetPaths.node('alpha'), 'upper/etc/fb-written'))).toBe(true);
  // Host keys are each node's own, made on its first start.
  const keys = await Promise.all([alpha, beta].map(async (e) => (await e.run(['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).stdout));
  expect(keys[0]).not.toBe(keys[1]);
});

test('a fleet left behind by a killed run is found by name and removed by the next up', async () => {
  const before = nodeState().nodes.map((n) => n.process.pid);
  // As if the run had died before writing its state: only the namespaces and processes remain.
  rmSync(vmFleetPaths.state());
  fleet = await vmFleetUp(['alpha', 'beta']);
  expect(before.filter(isAlive)).toEqual([]);
  expect((await new SshExec(fleet.nodes[0].exec).run(['cat', '/etc/fb-written'], { allowFailure: true })).code).not.toBe(0);
});

test('down leaves no namespace, process, mount or directory', async () => {
  const pids = nodeState().nodes.map((n) => n.process.pid);
  await vmFleetDown();
  expect(pids.filter(isAlive)).toEqual([]);
  expect(await leftovers()).toEqual({ namespaces: [], mounts: [], dir: false });
});

test('a bad node name is refused before anything is made, naming the name and the rule', () => {
  expect(() => checkNodeNames(['Alpha'])).toThrow('node name "Alpha": use 1-12 lower-case letters and digits, starting with a letter');
  expect(() => checkNodeNames(['jump'])).toThrow('node name "jump" is reserved');
});
