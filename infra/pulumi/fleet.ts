/**
 * What a stack builds, by kind: each reads as the list of components it is made of, and ends in
 * the fleet's inventory.
 */
import * as pulumi from '@pulumi/pulumi';
import type { Inventory } from '../../core/inventory';
import { DatabaseNodes } from './components/database-nodes';
import { FragmentedCloud } from './components/fragmented-cloud';
import { HybridCloud } from './components/hybrid-cloud';
import { planFragmented } from './plan-fragmented';
import { planHybrid } from './plan-hybrid';
import type { FragmentedSettings, HybridSettings, StackSettings } from './settings';

export function buildFleet(settings: StackSettings, sshPrivateKey: pulumi.Input<string>): pulumi.Output<Inventory> {
  return settings.kind === 'hybrid' ? hybridFleet(settings, sshPrivateKey) : fragmentedFleet(settings, sshPrivateKey);
}

function hybridFleet(settings: HybridSettings, sshPrivateKey: pulumi.Input<string>): pulumi.Output<Inventory> {
  const plan = planHybrid(settings);
  const cloud = new HybridCloud('hybrid', { settings, plan, sshPrivateKey });
  const nodes = new DatabaseNodes('db', {
    nodes: plan.nodes.filter((n) => n.role === 'data'),
    privateSide: cloud.privateSide,
    publicSide: cloud.publicSide,
  });
  // The inventory is published once the database nodes exist, not only the network around them.
  return pulumi.all([cloud.inventory, nodes.vmIds]).apply(([inventory]) => inventory);
}

function fragmentedFleet(settings: FragmentedSettings, sshPrivateKey: pulumi.Input<string>): pulumi.Output<Inventory> {
  const plan = planFragmented(settings);
  return new FragmentedCloud('fragmented', { settings, plan, sshPrivateKey }).inventory;
}
