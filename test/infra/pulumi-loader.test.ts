/**
 * `Pulumi.yaml` and the program's tsconfig as Pulumi's Node host reads them (no Pulumi CLI here):
 * the program must load with Pulumi's own ts-node, transpiling only, from its `main` folder.
 */
import { execFileSync } from 'child_process';
import { join } from 'path';
import { validateInventory } from '../../core/validate-inventory';
import { BUILD_TIMEOUT_MS, OPERATOR_CONFIG } from './harness';

test(
  'the program loads through Pulumi.yaml main with the vendored ts-node and exports the inventory',
  () => {
    const config = {
      'fragbench:kind': 'fragmented',
      'fragbench:operatorCidr': OPERATOR_CONFIG.operatorCidr,
      'fragbench:sshPublicKey': OPERATOR_CONFIG.sshPublicKey,
      'fragbench:sshPrivateKey': 'operator-key',
      'fragbench:openstack': JSON.stringify(OPERATOR_CONFIG.openstack),
    };
    const out = execFileSync('node', [join(__dirname, 'fixtures', 'load-like-pulumi.js'), JSON.stringify(config)], { encoding: 'utf8' });
    const { transpileOnly, inventory } = JSON.parse(out.trim().split('\n').pop() as string) as { transpileOnly: unknown; inventory: unknown };
    expect(transpileOnly).toBe(true);
    expect(validateInventory(inventory).nodes).toHaveLength(9);
  },
  BUILD_TIMEOUT_MS,
);
