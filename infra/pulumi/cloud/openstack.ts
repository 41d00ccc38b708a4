/** The OpenStack building blocks: a routed network, a security group, a VM with fixed-address ports. */
import * as pulumi from '@pulumi/pulumi';
import * as compute from '@pulumi/openstack/compute';
import * as networking from '@pulumi/openstack/networking';
import type { PlannedNode } from '../plan';
import { REPLACE_VM_FIRST, cloudName } from '../names';
import type { IngressRule } from './exposure';

export interface OpenStackNetworkArgs {
  stack: string;
  cidr: string;
  routerId: pulumi.Input<string>;
}

/** A network with one subnet, attached to a router (which gives it a way out and its routes). */
export class OpenStackNetwork extends pulumi.ComponentResource {
  readonly network: networking.Network;
  readonly subnet: networking.Subnet;
  readonly routerInterface: networking.RouterInterface;

  constructor(name: string, args: OpenStackNetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:openstack:Network', name, {}, opts);
    const parent = { parent: this };
    this.network = new networking.Network(name, { name: cloudName(args.stack, name), adminStateUp: true }, parent);
    this.subnet = new networking.Subnet(
      name,
      { name: cloudName(args.stack, name), networkId: this.network.id, cidr: args.cidr, ipVersion: 4 },
      parent,
    );
    this.routerInterface = new networking.RouterInterface(name, { routerId: args.routerId, subnetId: this.subnet.id }, parent);
    this.registerOutputs({ networkId: this.network.id, subnetId: this.subnet.id });
  }
}

export interface SecurityGroupArgs {
  stack: string;
  description: string;
  rules: IngressRule[];
}

/** A security group letting in exactly the given rules (egress stays open). */
export class OpenStackSecurityGroup extends pulumi.ComponentResource {
  readonly group: networking.SecGroup;

  constructor(name: string, args: SecurityGroupArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:openstack:SecurityGroup', name, {}, opts);
    this.group = new networking.SecGroup(name, { name: cloudName(args.stack, name), description: args.description }, { parent: this });
    args.rules.forEach(
      (rule, i) =>
        new networking.SecGroupRule(
          `${name}-${i}`,
          {
            description: rule.description,
            direction: 'ingress',
            ethertype: 'IPv4',
            securityGroupId: this.group.id,
            remoteIpPrefix: rule.from,
            ...(rule.protocol === 'any' ? {} : { protocol: rule.protocol }),
            ...(rule.ports ? { portRangeMin: rule.ports[0], portRangeMax: rule.ports[1] } : {}),
          },
          { parent: this },
        ),
    );
    this.registerOutputs({ id: this.group.id });
  }
}

export interface OpenStackPortSpec {
  network: OpenStackNetwork;
  fixedIp: string;
  securityGroupIds: pulumi.Input<string>[];
  /** Foreign source addresses the port may carry (a router VM forwarding for other networks). */
  allowedAddressPairs?: string[];
}

export interface OpenStackVmArgs {
  stack: string;
  node: PlannedNode;
  /** The first port is the VM's primary interface (and takes the floating IP). */
  ports: OpenStackPortSpec[];
  imageName: string;
  userData: pulumi.Input<string>;
  /** Pool to take a floating IP from, for a node with a public address. */
  floatingIpPool?: string;
}

export class OpenStackVm extends pulumi.ComponentResource {
  readonly instance: compute.Instance;
  readonly ports: networking.Port[];
  readonly publicAddress?: pulumi.Output<string>;

  constructor(name: string, args: OpenStackVmArgs, opts?: pulumi.ComponentResourceOptions) {
    super('fragbench:openstack:Vm', name, {}, opts);
    const parent = { parent: this };
    this.ports = args.ports.map(
      (p, i) =>
        new networking.Port(
          `${name}-${i}`,
          {
            name: cloudName(args.stack, name, String(i)),
            networkId: p.network.network.id,
            fixedIps: [{ subnetId: p.network.subnet.id, ipAddress: p.fixedIp }],
            securityGroupIds: p.securityGroupIds,
            ...(p.allowedAddressPairs ? { allowedAddressPairs: p.allowedAddressPairs.map((ipAddress) => ({ ipAddress })) } : {}),
          },
          parent,
        ),
    );
    this.instance = new compute.Instance(
      name,
      {
        name: cloudName(args.stack, args.node.name),
        flavorName: args.node.size.name,
        imageName: args.imageName,
        userData: args.userData,
        networks: this.ports.map((p) => ({ port: p.id })),
        metadata: { fragbench_role: args.node.role, fragbench_site: args.node.site, fragbench_stack: args.stack },
      },
      { ...parent, ...REPLACE_VM_FIRST },
    );
    if (args.node.hasPublicAddress) {
      if (!args.floatingIpPool) throw new Error(`node "${args.node.name}" needs a floating IP pool`);
      const fip = new networking.FloatingIp(
        name,
        { pool: args.floatingIpPool, portId: this.ports[0].id },
        { parent: this, dependsOn: [this.instance] },
      );
      this.publicAddress = fip.address;
    }
    this.registerOutputs({ id: this.instance.id, publicAddress: this.publicAddress });
  }
}
