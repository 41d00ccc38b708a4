/**
 * Stack configuration (`fragbench:*` keys in `Pulumi.<stack>.yaml`), read and checked before any
 * resource is declared. Every problem is an InputError naming the config key and the fix; all
 * problems are reported together.
 */
import { InputError, throwIfAny } from '../../core/errors';
import { loadTopology } from '../../core/load-topology';
import type { Topology } from '../../core/topology';
import { cidrsOverlap, parseCidr, type Cidr } from './cidr';
import {
  AZURE_LOCATIONS, DEFAULT_SIZES, HYBRID_REGIONS, findSize, sizeNames,
  type HybridRegion, type VmCloud, type VmSize,
} from './catalog';

/** Reads one raw config value (what `pulumi config get fragbench:<key>` prints), or undefined. */
export type ConfigSource = (key: string) => string | undefined;

export const NAMESPACE = 'fragbench';

export interface OpenStackSettings {
  imageName: string;
  /** The provider network routers take their gateway from. */
  externalNetworkId: string;
  /** Pool floating IPs come from. */
  floatingIpPool: string;
}

export interface AzureImage {
  publisher: string;
  offer: string;
  sku: string;
  version: string;
}

export interface CommonSettings {
  stack: string;
  /** CIDR allowed to SSH into the hosts that have a public address. */
  operatorCidr: string;
  sshUser: string;
  sshPublicKey: string;
  wireguardPort: number;
  /** Changing it replaces every generated key pair. */
  keyRotation: string;
  openstack: OpenStackSettings;
  azureImage: AzureImage;
}

export interface HybridCidrs {
  openstackBroker: string;
  openstackShared: string;
  azureBroker: string;
  azureShared: string;
  tunnel: string;
}

export interface HybridSettings extends CommonSettings {
  kind: 'hybrid';
  region: HybridRegion;
  /** `n_m`: n private nodes, m public nodes. */
  layout: { private: number; public: number };
  privateSize: VmSize;
  publicSize: VmSize;
  /** The donor broker's own size: it forwards the tunnel, whatever size the public nodes are. */
  donorSize: VmSize;
  clientSize: VmSize;
  cidrs: HybridCidrs;
}

export interface Placement {
  cloud: VmCloud;
  /** Azure location, for nodes placed in Azure. */
  location?: string;
}

export interface FragmentedCidrs {
  /** The OpenStack network of the sites placed there. */
  openstack: string;
  /** Split into one /24 per Azure location used. */
  azure: string;
  /** WireGuard mesh: one /24 per connection type. */
  mesh: string;
  /** tinc overlay: one address per node. */
  overlay: string;
}

export interface FragmentedSettings extends CommonSettings {
  kind: 'fragmented';
  topology: Topology;
  placement: Record<string, Placement>;
  siteSize: Record<VmCloud, VmSize>;
  diskGB: number;
  cidrs: FragmentedCidrs;
}

export type StackSettings = HybridSettings | FragmentedSettings;

export const DEFAULT_HYBRID_CIDRS: HybridCidrs = {
  openstackBroker: '10.10.0.0/24',
  openstackShared: '10.10.1.0/24',
  azureBroker: '10.20.0.0/24',
  azureShared: '10.20.1.0/24',
  tunnel: '10.30.0.0/30',
};

export const DEFAULT_FRAGMENTED_CIDRS: FragmentedCidrs = {
  openstack: '10.10.0.0/24',
  azure: '10.20.0.0/16',
  mesh: '10.40.0.0/16',
  overlay: '10.50.0.0/24',
};

const DEFAULT_AZURE_IMAGE: AzureImage = {
  publisher: 'Canonical',
  offer: '0001-com-ubuntu-server-jammy',
  sku: '22_04-lts-gen2',
  version: 'latest',
};

/** Reads the config values, collecting every problem before throwing them together. */
class Reader {
  readonly errors: InputError[] = [];
  constructor(private readonly source: ConfigSource) {}

  fail(key: string, problem: string): void {
    this.errors.push(new InputError(`${NAMESPACE}:${key}`, problem));
  }

  string(key: string, fallback?: string, fix = ''): string {
    const value = this.source(key);
    if (value !== undefined && value !== '') return value;
    if (fallback === undefined) this.fail(key, `is not set; ${fix || `run \`pulumi config set ${NAMESPACE}:${key} <value>\``}`);
    return fallback ?? '';
  }

  integer(key: string, fallback: number, min: number, max: number): number {
    const raw = this.source(key);
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) this.fail(key, `"${raw}" is not a whole number from ${min} to ${max}`);
    return n;
  }

  object<T extends object>(key: string, fallback: T): T {
    const raw = this.source(key);
    if (raw === undefined || raw === '') return fallback;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      this.fail(key, 'must be an object (a YAML mapping under the key in Pulumi.<stack>.yaml)');
      return fallback;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      this.fail(key, 'must be an object (a YAML mapping under the key in Pulumi.<stack>.yaml)');
      return fallback;
    }
    for (const k of Object.keys(parsed)) {
      if (!(k in fallback)) this.fail(`${key}.${k}`, `unknown setting; known ones are ${Object.keys(fallback).join(', ')}`);
    }
    return { ...fallback, ...(parsed as Partial<T>) };
  }

  size(key: string, cloud: VmCloud, fallback: string): VmSize {
    const name = this.string(key, fallback);
    const size = findSize(cloud, name);
    if (!size) this.fail(key, `unknown ${cloud} size "${name}"; use one of ${sizeNames(cloud).join(', ')}`);
    return size ?? { cloud, name, vcpus: 1, memoryGiB: 1 };
  }

  /** Each CIDR valid, at least as large as asked, and no two overlapping. */
  cidrs<T extends object>(fallback: T, largestPrefix: Partial<Record<keyof T, number>>): T {
    const cidrs = this.object('cidrs', fallback);
    const parsed: [string, Cidr][] = [];
    for (const [name, text] of Object.entries(cidrs) as [string, string][]) {
      try {
        const c = parseCidr(String(text));
        const limit = largestPrefix[name as keyof T];
        if (limit !== undefined && c.prefix > limit) this.fail(`cidrs.${name}`, `${text} is too small; use a /${limit} or larger`);
        parsed.push([name, c]);
      } catch (err) {
        this.fail(`cidrs.${name}`, (err as Error).message);
      }
    }
    parsed.forEach(([a, ca], i) =>
      parsed.slice(i + 1).forEach(([b, cb]) => {
        if (cidrsOverlap(ca, cb)) this.fail(`cidrs.${b}`, `${cb.text} overlaps cidrs.${a} (${ca.text}); give each network its own range`);
      }),
    );
    return cidrs;
  }
}

export function readSettings(source: ConfigSource, stack: string): StackSettings {
  const r = new Reader(source);
  const kind = r.string('kind', undefined, 'set it to "hybrid" or "fragmented"');
  const common = readCommon(r, stack);
  let settings: StackSettings | undefined;
  if (kind === 'hybrid') settings = { kind, ...common, ...readHybrid(r) };
  else if (kind === 'fragmented') settings = { kind, ...common, ...readFragmented(r) };
  else if (kind) r.fail('kind', `"${kind}" is not a kind of fleet; use "hybrid" or "fragmented"`);
  if (settings && usesOpenStack(settings) && !common.openstack.externalNetworkId) {
    r.fail('openstack.externalNetworkId', 'is not set; give the ID of the provider network routers use (`openstack network list --external`)');
  }
  throwIfAny(r.errors);
  return settings as StackSettings;
}

function readCommon(r: Reader, stack: string): CommonSettings {
  const operatorCidr = r.string('operatorCidr', undefined, 'set it to the address you SSH from, e.g. 203.0.113.7/32');
  if (operatorCidr) {
    try {
      parseCidr(operatorCidr);
    } catch (err) {
      r.fail('operatorCidr', (err as Error).message);
    }
    if (operatorCidr.endsWith('/0')) r.fail('operatorCidr', 'would open SSH to the whole internet; give your own address, e.g. 203.0.113.7/32');
  }
  const openstack = r.object<OpenStackSettings>('openstack', { imageName: 'ubuntu-22.04', externalNetworkId: '', floatingIpPool: 'public' });
  return {
    stack,
    operatorCidr,
    sshUser: r.string('sshUser', 'ubuntu'),
    sshPublicKey: r.string('sshPublicKey', undefined, 'run `pulumi config set fragbench:sshPublicKey "$(cat ~/.ssh/id_ed25519.pub)"`'),
    wireguardPort: r.integer('wireguardPort', 51820, 1024, 65000),
    keyRotation: r.string('keyRotation', ''),
    openstack,
    azureImage: r.object('azureImage', DEFAULT_AZURE_IMAGE),
  };
}

function usesOpenStack(settings: StackSettings): boolean {
  return settings.kind === 'hybrid' || Object.values(settings.placement).some((p) => p.cloud === 'openstack');
}

function readHybrid(r: Reader): Omit<HybridSettings, keyof CommonSettings | 'kind'> {
  const regionName = r.string('region', undefined, `choose one of ${HYBRID_REGIONS.map((x) => x.name).join(', ')}`);
  const region = HYBRID_REGIONS.find((x) => x.name === regionName);
  if (regionName && !region) r.fail('region', `unknown region "${regionName}"; use one of ${HYBRID_REGIONS.map((x) => x.name).join(', ')}`);
  const layout = readLayout(r);
  const cidrs = r.cidrs(DEFAULT_HYBRID_CIDRS, { openstackBroker: 28, openstackShared: 24, azureBroker: 28, azureShared: 24, tunnel: 30 });
  return {
    region: region ?? HYBRID_REGIONS[0],
    layout,
    privateSize: r.size('privateSize', 'openstack', DEFAULT_SIZES.private),
    publicSize: r.size('publicSize', 'azure', DEFAULT_SIZES.public),
    donorSize: r.size('donorSize', 'azure', DEFAULT_SIZES.public),
    clientSize: r.size('clientSize', 'openstack', DEFAULT_SIZES.site.openstack),
    cidrs,
  };
}

/** Site VMs start at host 10 of their subnet (lower ones are the clouds' own: gateway, DHCP, DNS). */
export const FIRST_SITE_HOST = 10;

/** Data nodes start at host 20 of the shared subnets (below are brokers, the manager and the client). */
export const FIRST_DATA_HOST = 20;

function readLayout(r: Reader): { private: number; public: number } {
  const raw = r.string('layout', undefined, 'write it n_m, e.g. 6_2 for 6 private and 2 public nodes');
  const total = r.integer('nodes', 8, 1, 200);
  const m = /^(\d+)_(\d+)$/.exec(raw);
  if (raw && !m) {
    r.fail('layout', `"${raw}" is not written n_m; e.g. 6_2 is 6 private (OpenStack) and 2 public (Azure) nodes`);
    return { private: 1, public: 0 };
  }
  const layout = { private: m ? Number(m[1]) : 1, public: m ? Number(m[2]) : 0 };
  if (m && layout.private < 1) r.fail('layout', `"${raw}" has no private node; n must be at least 1 (1_${total - 1} is full bursting)`);
  if (m && layout.private + layout.public !== total) {
    r.fail('layout', `${raw} has ${layout.private + layout.public} nodes but fragbench:nodes is ${total}; make n+m = ${total} or set fragbench:nodes`);
  }
  if (Math.max(layout.private, layout.public) + FIRST_DATA_HOST > 250) r.fail('layout', `${raw} has more nodes on one side than a /24 shared subnet holds`);
  return layout;
}

function readFragmented(r: Reader): Omit<FragmentedSettings, keyof CommonSettings | 'kind'> {
  const topologyName = r.string('topology', 'fhc-8dc');
  let topology: Topology = { name: topologyName, nodes: [], links: [] };
  try {
    topology = loadTopology(topologyName);
  } catch (err) {
    r.fail('topology', (err as Error).message);
  }
  const placement = readPlacement(r, topology);
  const cidrs = r.cidrs(DEFAULT_FRAGMENTED_CIDRS, { openstack: 24, azure: 20, mesh: 16, overlay: 24 });
  // Node i takes host FIRST_SITE_HOST + i of the OpenStack network and of each Azure /24.
  if (topology.nodes.length + FIRST_SITE_HOST > 250) r.fail('topology', `${topology.nodes.length} nodes do not fit in a /24; split the fleet`);
  const siteSizes = r.object<Record<VmCloud, string>>('siteSize', DEFAULT_SIZES.site);
  return {
    topology,
    placement,
    siteSize: {
      openstack: checkedSize(r, 'siteSize.openstack', 'openstack', siteSizes.openstack),
      azure: checkedSize(r, 'siteSize.azure', 'azure', siteSizes.azure),
    },
    diskGB: r.integer('diskGB', 40, 30, 4096),
    cidrs,
  };
}

function checkedSize(r: Reader, key: string, cloud: VmCloud, name: string): VmSize {
  const size = findSize(cloud, name);
  if (!size) r.fail(key, `unknown ${cloud} size "${name}"; use one of ${sizeNames(cloud).join(', ')}`);
  return size ?? { cloud, name, vcpus: 1, memoryGiB: 1 };
}

/** `placement: { virginia: azure:eastus }`; nodes not named stay in OpenStack. */
function readPlacement(r: Reader, topology: Topology): Record<string, Placement> {
  const given = r.object<Record<string, string>>('placement', Object.fromEntries(topology.nodes.map((n) => [n.name, 'openstack'])));
  const placement: Record<string, Placement> = {};
  for (const [node, where] of Object.entries(given)) {
    const m = /^azure:(.+)$/.exec(where);
    if (where === 'openstack') placement[node] = { cloud: 'openstack' };
    else if (m && AZURE_LOCATIONS.includes(m[1])) placement[node] = { cloud: 'azure', location: m[1] };
    else if (m) r.fail(`placement.${node}`, `unknown Azure region "${m[1]}"; use one of ${AZURE_LOCATIONS.join(', ')}`);
    else r.fail(`placement.${node}`, `"${where}" is not a placement; write "openstack" or "azure:<region>", e.g. azure:eastus`);
  }
  return placement;
}
