/**
 * Stack configuration (`fragbench:*` keys in `Pulumi.<stack>.yaml`), read and checked before any
 * resource is declared: the config is checked against settings.schema.json (the file editors use
 * for the stack files), then by the rules a schema cannot express (settings-checks.ts). Every
 * problem is an InputError naming the config key and the fix; all are reported together.
 */
import { throwIfAny } from '../../core/errors';
import { withoutFields } from '../../core/schema/pointers';
import { asInputErrors, schemaProblems } from '../../core/schema/validator';
import type { Topology } from '../../core/topology';
import { HYBRID_REGIONS, findSize, type HybridRegion, type VmCloud, type VmSize } from './catalog';
import { configValues, stackDocument, type ConfigSource, type ConfigValues } from './settings-config';
import {
  cidrsOf,
  cidrsProblems,
  layoutProblems,
  openstackNetworkProblems,
  operatorCidrProblems,
  parseLayout,
  placementOf,
  siteTopology,
} from './settings-checks';

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

/** A key's place in the error lines: `fragbench:cidrs.tunnel` (the schema sees it under `config`). */
const configKey = (path: string) => path.replace(/^config\./, '') || 'config';

export function readSettings(source: ConfigSource, stack: string): StackSettings {
  const document = stackDocument(source);
  const shape = schemaProblems('stackSettings', document);
  const sound = configValues(
    withoutFields(
      document,
      shape.map((p) => p.pointer),
    ),
  );
  const { topology, problems: topologyProblems } = siteTopology(sound);
  throwIfAny([
    ...asInputErrors(shape, configKey),
    ...topologyProblems,
    ...operatorCidrProblems(sound),
    ...layoutProblems(sound),
    ...cidrsProblems(sound),
    ...openstackNetworkProblems(sound, topology),
  ]);
  return settingsOf(sound as ConfigValues, stack, topology);
}

/** The typed settings of a config every check has passed. */
function settingsOf(v: ConfigValues, stack: string, topology: Topology | undefined): StackSettings {
  const common: CommonSettings = {
    stack,
    operatorCidr: v.operatorCidr,
    sshUser: v.sshUser,
    sshPublicKey: v.sshPublicKey,
    wireguardPort: v.wireguardPort,
    keyRotation: v.keyRotation,
    openstack: { externalNetworkId: '', ...v.openstack },
    azureImage: v.azureImage,
  };
  if (v.kind === 'hybrid') {
    return {
      kind: 'hybrid',
      ...common,
      region: HYBRID_REGIONS.find((r) => r.name === v.region) as HybridRegion,
      layout: parseLayout(v.layout as string),
      privateSize: sizeOf('openstack', v.privateSize),
      publicSize: sizeOf('azure', v.publicSize),
      donorSize: sizeOf('azure', v.donorSize),
      clientSize: sizeOf('openstack', v.clientSize),
      cidrs: cidrsOf<HybridCidrs>('hybrid', v.cidrs),
    };
  }
  return {
    kind: 'fragmented',
    ...common,
    topology: topology as Topology,
    placement: Object.fromEntries(Object.entries(placementOf(v, topology)).map(([node, where]) => [node, placementNamed(where)])),
    siteSize: { openstack: sizeOf('openstack', v.siteSize.openstack), azure: sizeOf('azure', v.siteSize.azure) },
    diskGB: v.diskGB,
    cidrs: cidrsOf<FragmentedCidrs>('fragmented', v.cidrs),
  };
}

/** `openstack` or `azure:<location>` (the schema lists the locations). */
function placementNamed(where: string): Placement {
  return where === 'openstack' ? { cloud: 'openstack' } : { cloud: 'azure', location: where.slice('azure:'.length) };
}

/** A size the schema admits: settings.schema.json lists exactly the catalog's sizes (a test keeps them equal). */
function sizeOf(cloud: VmCloud, name: string): VmSize {
  const size = findSize(cloud, name);
  if (!size) throw new Error(`the catalog has no ${cloud} size "${name}" although the settings schema lists it`);
  return size;
}
