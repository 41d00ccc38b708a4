/**
 * The hybrid cloud's plan (SPEC.md §1): in OpenStack a broker network (consumer broker, VM
 * manager) and a shared network (client, private nodes, and the consumer broker's second
 * interface); in Azure a broker VNet (donor broker, the only public endpoint) and a shared VNet
 * (public nodes); a WireGuard tunnel between the brokers carries each side's networks.
 */
import { loadTopology } from '../../core/load-topology';
import { linkConditionsOf, type Topology } from '../../core/topology';
import { PRIVATE_SITE } from './catalog';
import { hostAddress } from './cidr';
import type { FleetPlan, PlannedLink, PlannedNode } from './plan';
import type { HybridSettings } from './settings';
import { FIRST_DATA_HOST } from './settings-checks';

export const HYBRID_NODES = { consumer: 'cbroker', donor: 'dbroker', manager: 'manager', client: 'client' };

/** Host numbers inside each network. */
const HOST = { broker: 10, manager: 11, client: 11, donorTunnel: 1, consumerTunnel: 2 };

export interface HybridPlan extends FleetPlan {
  /** The consumer broker's extra interface on the shared network: next hop of the OpenStack routes. */
  consumerSharedAddress: string;
  /** The donor broker: next hop of the Azure route table. */
  donorAddress: string;
  /** Networks on each side, as the other side routes to them. */
  openstackPrefixes: string[];
  azurePrefixes: string[];
}

export function privateNodeName(i: number): string {
  return `prv${i}`;
}

export function publicNodeName(i: number): string {
  return `pub${i}`;
}

export function planHybrid(s: HybridSettings): HybridPlan {
  const c = s.cidrs;
  const region = s.region.name;
  const openstack = { cloud: 'openstack' as const, site: PRIVATE_SITE, hasPublicAddress: false, wireguard: [] };
  const azure = { cloud: 'azure' as const, site: region, location: s.region.azureLocation, hasPublicAddress: false, wireguard: [] };
  // The region's topology names the same nodes: their tags and positions, where it gives them, go with them.
  const topology = loadTopology(`hybrid-${region}`);
  const written = (name: string) => {
    const t = topology.nodes.find((x) => x.name === name);
    return { ...(t?.tags?.length ? { tags: t.tags } : {}), ...(t?.position ? { position: t.position } : {}) };
  };
  const node = (n: Omit<PlannedNode, 'overlayAddress'>): PlannedNode => ({ ...n, ...written(n.name), overlayAddress: n.privateAddress });
  const tunnel = (address: number) => [{ type: 0, name: 'wg0', address: hostAddress(c.tunnel, address), listenPort: s.wireguardPort }];

  const nodes: PlannedNode[] = [
    node({
      ...openstack,
      name: HYBRID_NODES.manager,
      role: 'manager',
      privateAddress: hostAddress(c.openstackBroker, HOST.manager),
      size: s.privateSize,
      hasPublicAddress: true,
    }),
    node({
      ...openstack,
      name: HYBRID_NODES.consumer,
      role: 'broker',
      privateAddress: hostAddress(c.openstackBroker, HOST.broker),
      size: s.privateSize,
      wireguard: tunnel(HOST.consumerTunnel),
    }),
    node({
      ...azure,
      name: HYBRID_NODES.donor,
      role: 'broker',
      privateAddress: hostAddress(c.azureBroker, HOST.broker),
      size: s.donorSize,
      hasPublicAddress: true,
      wireguard: tunnel(HOST.donorTunnel),
    }),
    node({
      ...openstack,
      name: HYBRID_NODES.client,
      role: 'client',
      privateAddress: hostAddress(c.openstackShared, HOST.client),
      size: s.clientSize,
    }),
    ...range(s.layout.private).map((i) =>
      node({
        ...openstack,
        name: privateNodeName(i),
        role: 'data',
        privateAddress: hostAddress(c.openstackShared, FIRST_DATA_HOST + i),
        size: s.privateSize,
      }),
    ),
    ...range(s.layout.public).map((i) =>
      node({ ...azure, name: publicNodeName(i), role: 'data', privateAddress: hostAddress(c.azureShared, FIRST_DATA_HOST + i), size: s.publicSize }),
    ),
  ];
  const openstackPrefixes = [c.openstackBroker, c.openstackShared];
  const azurePrefixes = [c.azureBroker, c.azureShared];
  return {
    name: s.stack,
    nodes,
    links: [{ a: HYBRID_NODES.consumer, b: HYBRID_NODES.donor, type: 0, ...tunnelReference(topology) }],
    clientNode: HYBRID_NODES.client,
    sshUser: s.sshUser,
    jumpHost: HYBRID_NODES.manager,
    routedPrefixes: { [HYBRID_NODES.consumer]: openstackPrefixes, [HYBRID_NODES.donor]: azurePrefixes },
    ...(topology.distance ? { distance: topology.distance } : {}),
    consumerSharedAddress: hostAddress(c.openstackShared, HOST.broker),
    donorAddress: hostAddress(c.azureBroker, HOST.broker),
    openstackPrefixes,
    azurePrefixes,
  };
}

/**
 * The tunnel's reference latency and bandwidth: the private-to-public figures of the local
 * topology for the same region, so the emulated and the real hybrid fleets share one reference.
 */
function tunnelReference(topology: Topology): Omit<PlannedLink, 'a' | 'b' | 'type'> {
  const link = topology.links.find((l) => l.a === HYBRID_NODES.client && l.b === publicNodeName(1));
  if (!link) throw new Error(`topology ${topology.name} has no ${HYBRID_NODES.client}-${publicNodeName(1)} link to take the tunnel's reference from`);
  return { ...linkConditionsOf(link), ...(link.estimated ? { estimated: true } : {}) };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}
