/**
 * The fragmented cloud's plan (SPEC.md §1): one VM per topology node (the sites and the client),
 * each in OpenStack or in an Azure region; one WireGuard interface per connection type a node
 * takes part in, reached at the VM's public address; a tinc overlay address per node.
 */
import { clientOf, linkConditionsOf, linkType } from '../../core/topology';
import { hostAddress, subnet } from './cidr';
import type { FleetPlan, PlannedNode } from './plan';
import type { FragmentedSettings } from './settings';
import { FIRST_SITE_HOST } from './settings-checks';

export interface FragmentedPlan extends FleetPlan {
  /** One /24 per Azure location used, in order of first use. */
  azureSubnets: Record<string, string>;
  /** Every WireGuard listen port in use (one per connection type). */
  wireguardPorts: [number, number];
}

export function planFragmented(s: FragmentedSettings): FragmentedPlan {
  const { topology, cidrs } = s;
  const locations = [
    ...new Set(
      topology.nodes
        .map((n) => s.placement[n.name])
        .filter((p) => p?.cloud === 'azure')
        .map((p) => p.location as string),
    ),
  ];
  const azureSubnets = Object.fromEntries(locations.map((l, i) => [l, subnet(cidrs.azure, 24, i)]));
  const client = clientOf(topology);
  const types = [...new Set(topology.links.map(linkType))].sort((a, b) => a - b);

  const nodes: PlannedNode[] = topology.nodes.map((n, i) => {
    const place = s.placement[n.name] ?? { cloud: 'openstack' };
    const network = place.cloud === 'azure' ? azureSubnets[place.location as string] : cidrs.openstack;
    const nodeTypes = types.filter((t) => topology.links.some((l) => linkType(l) === t && (l.a === n.name || l.b === n.name)));
    return {
      name: n.name,
      site: n.site,
      cloud: place.cloud,
      ...(place.location ? { location: place.location } : {}),
      role: n.name === client ? 'client' : 'data',
      privateAddress: hostAddress(network, FIRST_SITE_HOST + i),
      overlayAddress: hostAddress(cidrs.overlay, 1 + i),
      size: s.siteSize[place.cloud],
      diskGB: s.diskGB,
      hasPublicAddress: true,
      ...(n.tags?.length ? { tags: n.tags } : {}),
      ...(n.position ? { position: n.position } : {}),
      wireguard: nodeTypes.map((t) => ({
        type: t,
        name: `wg${t}`,
        address: hostAddress(subnet(cidrs.mesh, 24, t), 1 + i),
        listenPort: s.wireguardPort + t,
      })),
    };
  });
  return {
    name: s.stack,
    nodes,
    links: topology.links.map((l) => ({
      a: l.a,
      b: l.b,
      type: linkType(l),
      ...linkConditionsOf(l),
      ...(l.estimated ? { estimated: true } : {}),
    })),
    clientNode: client,
    sshUser: s.sshUser,
    routedPrefixes: {},
    ...(topology.distance ? { distance: topology.distance } : {}),
    azureSubnets,
    wireguardPorts: [s.wireguardPort + (types[0] ?? 0), s.wireguardPort + (types[types.length - 1] ?? 0)],
  };
}
