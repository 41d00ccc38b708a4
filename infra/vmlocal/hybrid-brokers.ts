/**
 * The hybrid stack's two brokers on VM-shaped local nodes, for its WireGuard tunnel's scripts
 * (render/hybrid-tunnel-scripts.ts) to run on as the stack sends them. The settings, plan, keys
 * and inventory are the program's own code. What differs from the clouds, and why:
 * - the fleet's LAN stands for the internet between the two clouds: the donor's public address,
 *   the consumer's endpoint, is its LAN address, and the jump host stands for the VM manager;
 * - each broker's address on its own cloud's network (the plan's) is held by its loopback, so the
 *   networks the tunnel carries have an address at each end to answer a ping;
 * - the consumer's hot-plugged shared port is a veth with the port's MAC, and `netplan` (not in
 *   the nodes' Debian) is a stand-in that brings up the interface its files match by MAC; no DHCP
 *   server hands it an address.
 */
import type { Inventory } from '../../core/inventory';
import type { NodeExec } from '../../core/exec';
import { buildInventory } from '../pulumi/inventory';
import { newKeyMaterial, type KeyMaterial } from '../pulumi/keys/key-material';
import { interfaceKey } from '../pulumi/plan';
import { HYBRID_NODES, planHybrid, type HybridPlan } from '../pulumi/plan-hybrid';
import { TUNNEL_TYPE } from '../pulumi/render/hybrid-tunnel-scripts';
import type { HybridSettings } from '../pulumi/settings';
import { JUMP_PUBLIC_ADDRESS } from './addresses';
import type { VmFleet } from './fleet';
import { vmSettings } from './stack';

/** The stack's address ranges, inside 198.18.0.0/15 and apart from the VM LAN (the "internet"). */
export const VM_HYBRID_CIDRS = {
  openstackBroker: '198.18.200.0/24',
  openstackShared: '198.18.201.0/24',
  azureBroker: '198.18.210.0/24',
  azureShared: '198.18.211.0/24',
  tunnel: '198.18.220.0/30',
};

/** The VM-shaped fleet's node names: the brokers', in this order. */
export const VM_BROKERS = [HYBRID_NODES.consumer, HYBRID_NODES.donor];

export interface VmHybridBrokers {
  settings: HybridSettings;
  plan: HybridPlan;
  /** The inventory the tunnel's scripts are rendered from, as the stack renders them. */
  inventory: Inventory;
  /** Each broker's tunnel key pair, by node name. */
  keys: Record<string, KeyMaterial>;
}

/** The stack for the brokers of this fleet; `rotated` names brokers whose tunnel key is made anew (the others keep `previous`'s). */
export function vmHybridBrokers(stack: string, fleet: VmFleet, previous?: VmHybridBrokers, rotated: string[] = []): VmHybridBrokers {
  const settings = vmSettings(stack, { kind: 'hybrid', region: 'virginia', layout: '1_1', nodes: 2, cidrs: VM_HYBRID_CIDRS });
  if (settings.kind !== 'hybrid') throw new Error("the VM-shaped brokers are a hybrid stack's");
  const plan = planHybrid(settings);
  const keys = Object.fromEntries(VM_BROKERS.map((n) => [n, previous && !rotated.includes(n) ? previous.keys[n] : newKeyMaterial('wireguard')]));
  const donorNode = fleet.nodes.find((n) => n.name === HYBRID_NODES.donor);
  if (!donorNode) throw new Error(`the VM-shaped fleet has no ${HYBRID_NODES.donor} node`);
  const inventory = buildInventory(plan, {
    publicAddresses: { [HYBRID_NODES.manager]: JUMP_PUBLIC_ADDRESS, [HYBRID_NODES.donor]: donorNode.lanAddress },
    publicKeys: Object.fromEntries(VM_BROKERS.map((n) => [interfaceKey(n, TUNNEL_TYPE), keys[n].publicKey])),
  });
  return { settings, plan, inventory, keys };
}

const NETPLAN_PATH = '/usr/local/sbin/netplan';

const NETPLAN = String.raw`#!/bin/sh
# netplan on a fragbench VM-shaped node (its Debian has none): 'apply' brings up each interface a
# file in /etc/netplan matches by MAC. No DHCP is run: the fleet's LAN has no DHCP server.
set -eu
if [ "$#" -ne 1 ] || [ "$1" != apply ]; then echo "netplan on a fragbench VM-shaped node: only 'apply' is supported" >&2; exit 1; fi
for mac in $(sed -n 's/.*macaddress: *"\{0,1\}\([0-9A-Fa-f:]\{17\}\)"\{0,1\}.*/\1/p' /etc/netplan/*.yaml); do
  dev=$(ip -o link | awk -v m="$(echo "$mac" | tr A-F a-f)" '{ for (i = 1; i < NF; i++) if ($i == "link/ether" && tolower($(i + 1)) == m) { n = $2; sub(/[@:].*/, "", n); print n } }')
  if [ -z "$dev" ]; then echo "netplan: no interface has MAC $mac" >&2; exit 1; fi
  ip link set "$dev" up
done
`;

/** A broker node as its VM would be: its cloud network's address, the shared port when it has one, netplan. */
export async function prepareVmBroker(exec: NodeExec, privateAddress: string, sharedPortMac?: string): Promise<void> {
  const commands = [
    'set -eu',
    `ip addr add ${privateAddress}/32 dev lo`,
    ...(sharedPortMac ? [`ip link add eth1 address ${sharedPortMac} type veth peer name eth1p`] : []),
    `cat > ${NETPLAN_PATH}`,
    `chmod 755 ${NETPLAN_PATH}`,
  ];
  await exec.run(['sudo', '-n', 'sh', '-c', commands.join('\n')], { input: NETPLAN });
}
