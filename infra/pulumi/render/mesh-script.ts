/**
 * The script that configures one fragmented-cloud VM's mesh: its WireGuard interfaces and tinc,
 * rendered from the inventory, written and started. The stack sends it to the VM (remote.ts); the
 * VM-shaped local nodes (infra/vmlocal) run the same script through the SSH executor.
 */
import type { Inventory } from '../../../core/inventory';
import { interfaceKey, type PlannedNode } from '../plan';
import { writeFilesScript } from './files-script';
import { TINC_SERVICE, tincFiles } from './tinc';
import { wireguardConfig, wireguardConfigPath } from './wireguard';

export interface MeshScriptArgs {
  inventory: Pick<Inventory, 'nodes' | 'links'>;
  node: PlannedNode;
  /** WireGuard private key per `<node>/<type>` (interfaceKey). */
  wireguardPrivateKeys: Record<string, string>;
  tincPrivateKey: string;
  tincPublicKeys: Record<string, string>;
  overlayCidr: string;
}

/** The services that bring the mesh up, as the VM's init knows them. */
export function meshStartCommands(node: PlannedNode): string[] {
  return [
    ...node.wireguard.flatMap((w) => [`systemctl enable wg-quick@${w.name}`, `systemctl restart wg-quick@${w.name}`]),
    // The tinc unit's drop-in (its log file) is new or changed.
    'systemctl daemon-reload',
    `systemctl enable ${TINC_SERVICE}`,
    `systemctl restart ${TINC_SERVICE}`,
  ];
}

export function meshScript(args: MeshScriptArgs): string {
  const { inventory, node } = args;
  const wgFiles = Object.fromEntries(
    node.wireguard.map((w) => [
      wireguardConfigPath(w.name),
      {
        mode: '600',
        content: wireguardConfig({
          mesh: inventory,
          node: node.name,
          type: w.type,
          privateKey: args.wireguardPrivateKeys[interfaceKey(node.name, w.type)],
        }),
      },
    ]),
  );
  const tinc = tincFiles({
    mesh: inventory,
    node: node.name,
    privateKey: args.tincPrivateKey,
    publicKeys: args.tincPublicKeys,
    overlayCidr: args.overlayCidr,
  });
  return writeFilesScript({ ...wgFiles, ...tinc }, meshStartCommands(node));
}
