/**
 * The program as Pulumi runs it: `infra/pulumi/index.ts` reads the stack's config (the SSH key as
 * a secret) and exports the inventory.
 */
import * as pulumi from '@pulumi/pulumi';
import type { Output } from '@pulumi/pulumi';
import type { Inventory } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';
import { BUILD_TIMEOUT_MS, OPERATOR_CONFIG, TYPES, mockCloud, settled, valueOf } from './harness';

test(
  'the entry point builds the stack its config describes and exports a valid inventory',
  async () => {
    const cloud = mockCloud('hybrid-sydney');
    const config: Record<string, string> = {
      'fragbench:kind': 'hybrid',
      'fragbench:region': 'sydney',
      'fragbench:layout': '1_1',
      'fragbench:nodes': '2',
      'fragbench:operatorCidr': OPERATOR_CONFIG.operatorCidr,
      'fragbench:sshPublicKey': OPERATOR_CONFIG.sshPublicKey,
      'fragbench:sshPrivateKey': 'operator-key-from-config',
      'fragbench:openstack': JSON.stringify(OPERATOR_CONFIG.openstack),
    };
    pulumi.runtime.setAllConfig(config, ['fragbench:sshPrivateKey']);
    const program = (await import('../../infra/pulumi/index')) as { inventory: Output<Inventory> };
    const inventory = validateInventory(await valueOf(program.inventory));
    await settled();
    expect(inventory.name).toBe('hybrid-sydney');
    expect(inventory.nodes.filter((n) => n.role === 'data').map((n) => [n.name, n.site])).toEqual([
      ['prv1', 'adelaide'],
      ['pub1', 'sydney'],
    ]);
    // The tunnel's reference latency for Sydney is an estimate from distance, and says so.
    expect(inventory.links[0]).toMatchObject({ id: 'cbroker-dbroker/0', estimated: true });
    // The operator's key reaches the commands as a secret.
    const command = cloud.named(TYPES.command, 'manager-keys');
    expect(command.inputs.connection.privateKey).toBe('operator-key-from-config');
    expect(command.secretInputs).toContain('connection');
  },
  BUILD_TIMEOUT_MS,
);
