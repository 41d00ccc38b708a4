/**
 * The light stack without an overlay (`overlay: none`, core/stack.ts): instead of tinc, each node
 * reaches every other over their fastest direct link at `up` (by reference round trip), through a
 * static route to the other's overlay address. The overlay address sits on the node's loopback,
 * so databases bind to it as they do on the published stack. Nothing re-routes: a cut link cuts
 * its pair off until restored, and a later change of which link is fastest moves nothing.
 */
import { rankLinks } from '../../core/overlay-path';
import type { OverlayPath } from '../../core/overlay-path';
import { endsFrom, type FleetPlan, type PlannedLink, type PlannedNode } from './plan';
import { ipBatch } from './namespaces';

export interface StaticRoute {
  /** The other node, and its overlay address. */
  to: string;
  address: string;
  link: PlannedLink;
  /** The next hop: the other node's address on the link's mesh, over this node's interface of that type. */
  via: string;
  dev: string;
}

/** The link each pair uses: the fastest of its direct links, the same from both ends. */
export function routedLinks(plan: FleetPlan): Map<string, PlannedLink> {
  const chosen = new Map<string, PlannedLink>();
  for (const link of rankLinks(plan.links)) {
    const key = [link.a, link.b].sort().join('-');
    if (!chosen.has(key)) chosen.set(key, link);
  }
  return chosen;
}

/** `node`'s route to every other node. */
export function staticRoutes(plan: FleetPlan, node: PlannedNode): StaticRoute[] {
  const routes: StaticRoute[] = [];
  for (const link of routedLinks(plan).values()) {
    if (link.a !== node.name && link.b !== node.name) continue;
    const { near, far } = endsFrom(link, node.name);
    const other = plan.nodes.find((n) => n.name === far.node)!;
    routes.push({ to: other.name, address: other.overlayAddress, link, via: far.meshAddress, dev: near.interface });
  }
  return routes;
}

/** Puts the node's overlay address on its loopback and routes to every other node's. */
export async function addStaticRoutes(plan: FleetPlan, node: PlannedNode): Promise<void> {
  await ipBatch(
    [
      `addr add ${node.overlayAddress}/32 dev lo`,
      ...staticRoutes(plan, node).map((r) => `route add ${r.address}/32 via ${r.via} dev ${r.dev} src ${node.overlayAddress}`),
    ],
    node.namespace,
  );
}

/** The path of every pair: one hop over its routed link, none while that link is cut. */
export function staticPaths(plan: FleetPlan, isCut: (link: string) => boolean): OverlayPath[] {
  const routed = routedLinks(plan);
  const paths: OverlayPath[] = [];
  for (const [i, a] of plan.nodes.entries()) {
    for (const b of plan.nodes.slice(i + 1)) {
      const link = routed.get([a.name, b.name].sort().join('-'));
      paths.push(
        link && !isCut(link.id)
          ? { from: a.name, to: b.name, hops: [a.name, b.name], links: [link.id] }
          : { from: a.name, to: b.name, hops: [], links: [] },
      );
    }
  }
  return paths;
}
