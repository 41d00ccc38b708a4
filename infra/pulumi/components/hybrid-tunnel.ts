/**
 * Phase 3 of the hybrid cloud (SPEC.md §1): the WireGuard tunnel between the two brokers, set up
 * over SSH in the published key-handling order, and the key pairs the VM manager holds for it.
 */
import * as pulumi from '@pulumi/pulumi';
import type * as networking from '@pulumi/openstack/networking';
import type { Inventory } from '../../../core/inventory';
import type { NodeVm } from '../cloud/vm';
import { KeyPair } from '../keys/key-pair';
import { wireguardKeyRing, type KeyRing } from '../keys/mesh-keys';
import { interfaceKey, plannedNode } from '../plan';
import { HYBRID_NODES, type HybridPlan } from '../plan-hybrid';
import { writeFilesScript } from '../render/files-script';
import {
  TUNNEL_INTERFACE as WG,
  TUNNEL_TYPE,
  authoriseScript,
  consumerPeerOfDonor,
  consumerTunnelScript,
  deauthoriseCommand,
  donorTunnelScript,
  tunnelConfig as renderTunnelConfig,
} from '../render/hybrid-tunnel-scripts';
import { remoteScript, type SshTarget } from '../remote';
import type { HybridSettings } from '../settings';

const { consumer, donor } = HYBRID_NODES;

/**
 * The VM manager holds every key pair: the brokers' WireGuard keys and its own SSH key, which
 * lets it reach the VMs that have no public address.
 */
export interface ManagerKeys {
  tunnel: KeyRing;
  managerSsh: KeyPair;
}

export function managerKeys(settings: HybridSettings, plan: HybridPlan, opts: pulumi.CustomResourceOptions): ManagerKeys {
  return {
    tunnel: wireguardKeyRing(plan, settings.keyRotation, opts),
    managerSsh: new KeyPair('manager-ssh', { kind: 'ssh', rotation: settings.keyRotation, comment: `fragbench-manager@${settings.stack}` }, opts),
  };
}

export interface TunnelArgs {
  settings: HybridSettings;
  plan: HybridPlan;
  /** The operator's SSH private key (a secret), for the commands run on the VMs. */
  sshPrivateKey: pulumi.Input<string>;
  keys: ManagerKeys;
  /** The tunnel's configs are rendered from it. */
  inventory: pulumi.Output<Inventory>;
  managerVm: NodeVm;
  managerAddress: pulumi.Output<string>;
  donorVm: NodeVm;
  donorAddress: pulumi.Output<string>;
  consumerVm: NodeVm;
  /** The consumer broker's port on the shared network, and its attachment to the VM (phase 5). */
  consumerSharedPort: networking.Port;
  consumerSharedAttachment: pulumi.Resource;
}

/** What each step needs: the arguments, the SSH targets and the component to parent to. */
interface Tunnel extends TunnelArgs {
  parent: { parent: pulumi.Resource };
  managerTarget: SshTarget;
  donorTarget: SshTarget;
}

/** Phase 3: the WireGuard tunnel, in the published key-handling order. Returns its steps, in order. */
export function configureTunnel(args: TunnelArgs, parent: { parent: pulumi.Resource }): pulumi.CustomResource[] {
  const user = args.settings.sshUser;
  const t: Tunnel = {
    ...args,
    parent,
    managerTarget: { host: args.managerAddress, user, vmId: args.managerVm.id },
    donorTarget: { host: args.donorAddress, user, vmId: args.donorVm.id },
  };
  const keysOnManager = copyKeysToManager(t);
  const donorTunnel = configureDonor(t);
  const consumerTunnel = configureConsumer(t, [keysOnManager, donorTunnel]);
  const authorised = authoriseConsumer(t, [donorTunnel, consumerTunnel]);
  return [keysOnManager, donorTunnel, consumerTunnel, authorised];
}

function copyKeysToManager(t: Tunnel): pulumi.CustomResource {
  const { sshUser } = t.settings;
  const home = `/home/${sshUser}/.ssh`;
  const keyFile = (node: string) => `/etc/fragbench/keys/${node}-${WG}.key`;
  const { managerSsh } = t.keys;
  return remoteScript(
    'manager-keys',
    {
      stack: t.settings.stack,
      target: t.managerTarget,
      sshPrivateKey: t.sshPrivateKey,
      script: pulumi
        .all([managerSsh.privateKey, managerSsh.publicKey, tunnelKey(t, consumer).privateKey, tunnelKey(t, donor).privateKey])
        .apply(([sshKey, sshPub, consumerKey, donorKey]) =>
          writeFilesScript({
            [`${home}/id_ed25519`]: { content: sshKey, mode: '600', owner: sshUser },
            [`${home}/id_ed25519.pub`]: { content: sshPub, mode: '644', owner: sshUser },
            [keyFile(consumer)]: { content: consumerKey, mode: '600' },
            [keyFile(donor)]: { content: donorKey, mode: '600' },
          }),
        ),
    },
    { ...t.parent, dependsOn: [t.managerVm.resource] },
  );
}

/** (i)-(ii) The donor's config, with no peer yet; its VM is up and takes it. */
function configureDonor(t: Tunnel): pulumi.CustomResource {
  return remoteScript(
    'donor-broker-wireguard',
    {
      stack: t.settings.stack,
      target: t.donorTarget,
      sshPrivateKey: t.sshPrivateKey,
      script: tunnelConfig(t, donor, [consumer]).apply(donorTunnelScript),
    },
    { ...t.parent, dependsOn: [t.donorVm.resource] },
  );
}

/**
 * (iii)-(iv) The consumer's config from the donor's public key and address, pushed by the manager;
 * its second (shared) interface is brought up here too. It cannot connect until (v).
 */
function configureConsumer(t: Tunnel, after: pulumi.Resource[]): pulumi.CustomResource {
  return remoteScript(
    'consumer-broker-wireguard',
    {
      stack: t.settings.stack,
      target: { host: plannedNode(t.plan, consumer).privateAddress, user: t.settings.sshUser, vmId: t.consumerVm.id, jump: t.managerTarget },
      sshPrivateKey: t.sshPrivateKey,
      script: pulumi.all([tunnelConfig(t, consumer, []), t.consumerSharedPort.macAddress]).apply(([conf, mac]) => consumerTunnelScript(conf, mac)),
    },
    { ...t.parent, dependsOn: [t.consumerVm.resource, t.consumerSharedAttachment, ...after] },
  );
}

/**
 * (v) Authorise: the donor learns the consumer's key and networks, once both ends exist. The
 * peer goes into the running interface with routes to the consumer's networks (`wg set` adds
 * none), and the donor's config file is rewritten whole, so a restart or reboot keeps both.
 */
function authoriseConsumer(t: Tunnel, after: pulumi.Resource[]): pulumi.CustomResource {
  const consumerPeer = t.inventory.apply((inventory) => consumerPeerOfDonor(inventory, t.plan.routedPrefixes));
  return remoteScript(
    'authorise-consumer',
    {
      stack: t.settings.stack,
      target: t.donorTarget,
      sshPrivateKey: t.sshPrivateKey,
      script: pulumi.all([consumerPeer, tunnelConfig(t, donor, [])]).apply(([p, conf]) => authoriseScript(p, conf)),
      onDelete: consumerPeer.apply(deauthoriseCommand),
      // Runs again when the consumer VM is replaced (or its key rotated): the donor must learn the new one.
      triggers: [t.consumerVm.id, consumerPeer.publicKey],
      // The old authorisation goes first: its delete step takes away the routes to the consumer's
      // networks, which the new one has just put back when Pulumi creates before it deletes.
    },
    { ...t.parent, dependsOn: after, deleteBeforeReplace: true },
  );
}

function tunnelKey(t: Tunnel, node: string): KeyPair {
  return t.keys.tunnel[interfaceKey(node, TUNNEL_TYPE)];
}

function tunnelConfig(t: Tunnel, node: string, without: string[]): pulumi.Output<string> {
  return pulumi
    .all([t.inventory, tunnelKey(t, node).privateKey])
    .apply(([inventory, privateKey]) => renderTunnelConfig(inventory, t.plan.routedPrefixes, node, privateKey, without));
}
