/**
 * A fragmented-cloud stack on VM-shaped local nodes: the Pulumi program's own parts, run without
 * Pulumi or a cloud. The settings are read and checked as `pulumi up` reads them, the plan is
 * `planFragmented`'s, keys are made by the key pair provider's functions, the inventory is
 * `buildInventory`'s, each VM's packages come from its cloud-init user data, and each VM's mesh
 * script is the one the stack sends, run through the SSH executor as the stack's remote command
 * runs it. What differs, and why:
 * - a VM's public address is its address on the fleet's LAN (the stand-in for the internet
 *   between the sites), and the operator reaches every VM through the jump host, as the hybrid
 *   stacks reach theirs; the fragmented stack dials each public address directly;
 * - the VMs run Debian bookworm (Ubuntu's archive is not reachable here) and install from the
 *   local repository (rootfs.ts); WireGuard is the userspace boringtun under wg-quick.
 */
import type { Inventory } from '../../core/inventory';
import type { NodeExec } from '../../core/exec';
import { allDone } from '../../platform/wait';
import { UNKNOWN_QDISC, batchLine, netemProbeCommands } from '../shaping/tc-commands';
import { SshExec } from '../../services/exec/transports';
import { buildInventory } from '../pulumi/inventory';
import { newKeyMaterial } from '../pulumi/keys/key-material';
import { interfaceKey } from '../pulumi/plan';
import { planFragmented, type FragmentedPlan } from '../pulumi/plan-fragmented';
import { PACKAGES } from '../pulumi/render/cloud-init';
import { ROOT_SCRIPT_COMMAND, rootScriptInput } from '../pulumi/render/files-script';
import { meshScript } from '../pulumi/render/mesh-script';
import { readSettings, type FragmentedSettings, type StackSettings } from '../pulumi/settings';
import { JUMP_PUBLIC_ADDRESS, OPERATOR_ADDRESS } from './addresses';
import { applyCloudInitPackages } from './cloud-init';
import { vmFleetDown, vmFleetUp, type VmFleet } from './fleet';
import { SSH_USER } from './node-files';

/**
 * The stack's address ranges, inside 198.18.0.0/15: the sites' network is the VM LAN
 * (addresses.ts: node i at host 10 + i, as the plan numbers OpenStack sites).
 */
export const VM_STACK_CIDRS = { openstack: '198.18.240.0/24', azure: '198.18.224.0/20', mesh: '198.19.0.0/16', overlay: '198.18.250.0/24' };

export interface VmStack {
  settings: FragmentedSettings;
  plan: FragmentedPlan;
  fleet: VmFleet;
  inventory: Inventory;
  /** Seconds per step: nodes up, packages installed, mesh configured. */
  seconds: { nodes: number; install: number; mesh: number };
}

/**
 * The settings `pulumi up -s <stack>` would read from this config (Pulumi hands objects over as
 * JSON text), with the operator's part a VM-shaped fleet has.
 */
export function vmSettings(stack: string, config: Record<string, unknown>): StackSettings {
  const withOperator: Record<string, unknown> = {
    operatorCidr: `${OPERATOR_ADDRESS}/32`,
    // Checked for its form only: the fleet's operator key is made by `vmFleetUp`.
    sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlaceholderOfTheVmShapedOperatorKey fragbench-vm-operator',
    sshUser: SSH_USER,
    openstack: { externalNetworkId: 'vm-shaped-local' },
    ...config,
  };
  return readSettings((key) => {
    const value = withOperator[key];
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }, stack);
}

/** The settings `pulumi up -s <stack>` would read for this topology, placed all in "OpenStack". */
export function vmStackSettings(stack: string, topology: string): FragmentedSettings {
  const settings = vmSettings(stack, { kind: 'fragmented', topology, cidrs: VM_STACK_CIDRS });
  if (settings.kind !== 'fragmented') throw new Error('the VM-shaped stack is a fragmented one');
  return settings;
}

/** What the report says of a fleet whose kernel lacks netem (this host's). */
export const NO_NETEM =
  "the kernel has no netem, so the tc back end applies rate caps and cuts only; the links' delay, loss and jitter are not applied (the local emulated fleet applies them).";

/** Asks a node's kernel, as the tc back end does, on an interface with no qdisc of ours. */
async function hasNetem(exec: NodeExec): Promise<boolean> {
  const probe = await exec.run(['sudo', '-n', 'tc', '-batch', '-'], {
    input: `${netemProbeCommands('eth0').map(batchLine).join('\n')}\n`,
    allowFailure: true,
  });
  if (probe.code === 0) return true;
  if (probe.stderr.includes(UNKNOWN_QDISC)) return false;
  throw new Error(`could not ask ${exec.where} for netem: ${probe.stderr.trim()}`);
}

export async function vmStackUp(stack: string, topology: string, progress: (line: string) => void = () => undefined): Promise<VmStack> {
  const settings = vmStackSettings(stack, topology);
  const plan = planFragmented(settings);
  const fleet = await vmFleetUp(
    plan.nodes.map((n) => n.name),
    { packages: PACKAGES.meshNode, progress },
  );
  try {
    plan.nodes.forEach((n, i) => {
      if (n.privateAddress !== fleet.nodes[i].lanAddress)
        throw new Error(`plan puts ${n.name} at ${n.privateAddress}, the VM LAN at ${fleet.nodes[i].lanAddress}`);
    });
    const execs = new Map<string, NodeExec>(fleet.nodes.map((n) => [n.name, new SshExec(n.exec)]));
    const timed = async (step: () => Promise<unknown>) => {
      const t = Date.now();
      await step();
      return (Date.now() - t) / 1000;
    };
    progress(`installing ${PACKAGES.meshNode.join(' ')} on ${plan.nodes.length} nodes (cloud-init's packages)`);
    const install = await timed(() => allDone(fleet.nodes.map((n) => applyCloudInitPackages(execs.get(n.name) as NodeExec, fleet.userData))));
    const wireguard = Object.fromEntries(
      plan.nodes.flatMap((n) => n.wireguard.map((w) => [interfaceKey(n.name, w.type), newKeyMaterial('wireguard')])),
    );
    const tinc = Object.fromEntries(plan.nodes.map((n) => [n.name, newKeyMaterial('tinc')]));
    const published = buildInventory(plan, {
      publicAddresses: Object.fromEntries(plan.nodes.map((n) => [n.name, n.privateAddress])),
      publicKeys: Object.fromEntries(Object.entries(wireguard).map(([k, m]) => [k, m.publicKey])),
    });
    progress("configuring the WireGuard mesh and the tinc overlay (the stack's mesh scripts)");
    const mesh = await timed(() =>
      allDone(
        plan.nodes.map((node) => {
          const script = meshScript({
            inventory: published,
            node,
            wireguardPrivateKeys: Object.fromEntries(Object.entries(wireguard).map(([k, m]) => [k, m.privateKey])),
            tincPrivateKey: tinc[node.name].privateKey,
            tincPublicKeys: Object.fromEntries(Object.entries(tinc).map(([n, m]) => [n, m.publicKey])),
            overlayCidr: settings.cidrs.overlay,
          });
          return (execs.get(node.name) as NodeExec).run(ROOT_SCRIPT_COMMAND.split(' '), { input: rootScriptInput(script) });
        }),
      ),
    );
    const shapingLimits = (await hasNetem(execs.get(plan.nodes[0].name) as NodeExec)) ? [] : [NO_NETEM];
    const inventory: Inventory = {
      ...published,
      source: 'file',
      ...(shapingLimits.length ? { shapingLimits } : {}),
      nodes: published.nodes.map((n) => ({
        ...n,
        exec: { transport: 'ssh', host: n.privateAddress as string, user: SSH_USER, jump: { host: JUMP_PUBLIC_ADDRESS, user: SSH_USER } },
      })),
    };
    return { settings, plan, fleet, inventory, seconds: { nodes: fleet.seconds, install, mesh } };
  } catch (err) {
    await vmFleetDown().catch(() => undefined);
    throw err;
  }
}
