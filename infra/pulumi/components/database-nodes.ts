/** The database nodes of a hybrid layout `n_m`: n private VMs in OpenStack, m public VMs in Azure. */
import * as pulumi from '@pulumi/pulumi';
import { nodeVm, type AzurePlacement, type OpenStackPlacement } from '../cloud/vm';
import type { PlannedNode } from '../plan';

export interface DatabaseNodesArgs {
  /** Data nodes from the plan, each with its cloud, size and address. */
  nodes: PlannedNode[];
  privateSide: OpenStackPlacement;
  publicSide: AzurePlacement;
}

export class DatabaseNodes extends pulumi.ComponentResource {
  /** VM ids, in plan order: resolves once every node exists. */
  readonly vmIds: pulumi.Output<string[]>;

  constructor(name: string, args: DatabaseNodesArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:hybrid:DatabaseNodes', name, {}, opts);
    const vms = args.nodes.map((node) =>
      nodeVm(node.name, node, node.cloud === 'openstack' ? args.privateSide : args.publicSide, {}, { parent: this }),
    );
    this.vmIds = pulumi.all(vms.map((vm) => vm.id));
    this.registerOutputs({ vmIds: this.vmIds });
  }
}
