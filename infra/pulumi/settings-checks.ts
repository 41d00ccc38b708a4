/**
 * What settings.schema.json cannot say: rules across several keys, or about what a value means
 * (a CIDR's host bits, a layout's sum, networks that must not overlap). Each check reads only the
 * values the schema passed (the bad ones are set aside), so every problem of a config is reported
 * in one pass; each names the config key and the fix.
 */
import { InputError } from '../../core/errors';
import { loadTopology } from '../../core/load-topology';
import type { Topology } from '../../core/topology';
import { cidrsOverlap, parseCidr, type Cidr } from './cidr';
import { NAMESPACE, defaultsOf, type ConfigValues } from './settings-config';
import schema from './settings.schema.json';

export type SoundValues = Partial<ConfigValues>;

/** Site VMs start at host 10 of their subnet (lower ones are the clouds' own: gateway, DHCP, DNS). */
export const FIRST_SITE_HOST = 10;

/** Data nodes start at host 20 of the shared subnets (below are brokers, the manager and the client). */
export const FIRST_DATA_HOST = 20;

/** The smallest network (largest prefix) each CIDR may be, by kind of fleet. */
const LARGEST_PREFIX: Record<ConfigValues['kind'], Record<string, number>> = {
  hybrid: { openstackBroker: 28, openstackShared: 24, azureBroker: 28, azureShared: 24, tunnel: 30 },
  fragmented: { openstack: 24, azure: 20, mesh: 16, overlay: 24 },
};

const CIDR_DEFAULTS = {
  hybrid: defaultsOf(schema.definitions.hybridCidrs),
  fragmented: defaultsOf(schema.definitions.fragmentedCidrs),
} as Record<ConfigValues['kind'], Record<string, string>>;

const problem = (key: string, text: string) => new InputError(`${NAMESPACE}:${key}`, text);

/** The kind's default CIDRs with the ones the stack sets (the schema gives every name of T a default). */
export function cidrsOf<T extends object = Record<string, string>>(kind: ConfigValues['kind'], given: Record<string, string> = {}): T {
  return { ...CIDR_DEFAULTS[kind], ...given } as T;
}

/** Where each node of the topology runs: the stack's placement, OpenStack for the nodes it does not name. */
export function placementOf(v: SoundValues, topology: Topology | undefined): Record<string, string> {
  return { ...Object.fromEntries((topology?.nodes ?? []).map((n) => [n.name, 'openstack'])), ...v.placement };
}

/** A fragmented stack's topology, loaded by name or path. */
export function siteTopology(v: SoundValues): { topology?: Topology; problems: InputError[] } {
  if (v.kind !== 'fragmented' || v.topology === undefined) return { problems: [] };
  try {
    const topology = loadTopology(v.topology);
    // Node i takes host FIRST_SITE_HOST + i of the OpenStack network and of each Azure /24.
    const fits = topology.nodes.length + FIRST_SITE_HOST <= 250;
    return { topology, problems: fits ? [] : [problem('topology', `${topology.nodes.length} nodes do not fit in a /24; split the fleet`)] };
  } catch (err) {
    return { problems: [problem('topology', (err as Error).message)] };
  }
}

/** The operator's address: a real network, and not the whole internet. */
export function operatorCidrProblems(v: SoundValues): InputError[] {
  if (v.operatorCidr === undefined) return [];
  if (v.operatorCidr.endsWith('/0'))
    return [problem('operatorCidr', 'would open SSH to the whole internet; give your own address, e.g. 203.0.113.7/32')];
  return cidrProblem('operatorCidr', v.operatorCidr);
}

/** `n_m`: at least one private node, n+m the node total, and each side within a /24. */
export function layoutProblems(v: SoundValues): InputError[] {
  if (v.kind !== 'hybrid' || v.layout === undefined) return [];
  const layout = parseLayout(v.layout);
  const found: InputError[] = [];
  if (layout.private < 1)
    found.push(problem('layout', `"${v.layout}" has no private node; n must be at least 1 (1_${(v.nodes ?? 8) - 1} is full bursting)`));
  if (v.nodes !== undefined && layout.private + layout.public !== v.nodes) {
    found.push(
      problem(
        'layout',
        `${v.layout} has ${layout.private + layout.public} nodes but fragbench:nodes is ${v.nodes}; make n+m = ${v.nodes} or set fragbench:nodes`,
      ),
    );
  }
  if (Math.max(layout.private, layout.public) + FIRST_DATA_HOST > 250)
    found.push(problem('layout', `${v.layout} has more nodes on one side than a /24 shared subnet holds`));
  return found;
}

/** `6_2` -> 6 private, 2 public (the schema has checked the form). */
export function parseLayout(layout: string): { private: number; public: number } {
  const [n, m] = layout.split('_').map(Number);
  return { private: n, public: m };
}

/** Each CIDR a network (no host bits), at least as large as its role needs, and no two overlapping. */
export function cidrsProblems(v: SoundValues): InputError[] {
  if (v.kind === undefined) return [];
  const found: InputError[] = [];
  const parsed: [string, Cidr][] = [];
  for (const [name, text] of Object.entries(cidrsOf(v.kind, v.cidrs))) {
    const bad = cidrProblem(`cidrs.${name}`, text);
    found.push(...bad);
    if (bad.length) continue;
    const cidr = parseCidr(text);
    const limit = LARGEST_PREFIX[v.kind][name];
    if (cidr.prefix > limit) found.push(problem(`cidrs.${name}`, `${text} is too small; use a /${limit} or larger`));
    parsed.push([name, cidr]);
  }
  parsed.forEach(([a, ca], i) =>
    parsed.slice(i + 1).forEach(([b, cb]) => {
      if (cidrsOverlap(ca, cb)) found.push(problem(`cidrs.${b}`, `${cb.text} overlaps cidrs.${a} (${ca.text}); give each network its own range`));
    }),
  );
  return found;
}

/** Routers in OpenStack need the provider network's ID: a hybrid fleet, or a fragmented one with a node there. */
export function openstackNetworkProblems(v: SoundValues, topology: Topology | undefined): InputError[] {
  const usesOpenStack = v.kind === 'hybrid' || (v.kind === 'fragmented' && Object.values(placementOf(v, topology)).includes('openstack'));
  if (!usesOpenStack || v.openstack?.externalNetworkId) return [];
  return [
    problem('openstack.externalNetworkId', 'is not set; give the ID of the provider network routers use (`openstack network list --external`)'),
  ];
}

function cidrProblem(key: string, text: string): InputError[] {
  try {
    parseCidr(text);
    return [];
  } catch (err) {
    return [problem(key, (err as Error).message)];
  }
}
