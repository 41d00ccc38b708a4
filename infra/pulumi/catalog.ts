/**
 * What a stack may ask for: hybrid regions and the VM sizes of both clouds. The published sizes
 * and regions come from the measured reference data (`topologies/reference/hybrid-regions.json`);
 * the other sizes are the clouds' own published shapes. Which of them a stack may name, the
 * defaults and the Azure locations are in settings.schema.json (test/infra/settings-schema.test.ts
 * keeps the two equal).
 */
import regions from '../../topologies/reference/hybrid-regions.json';

export type VmCloud = 'openstack' | 'azure';

export interface VmSize {
  cloud: VmCloud;
  name: string;
  vcpus: number;
  memoryGiB: number;
  /** Root disk the size comes with (OpenStack flavors); Azure disks are set per VM. */
  diskGB?: number;
}

export interface HybridRegion {
  name: string;
  azureLocation: string;
  distanceKm: number;
}

/** The private cloud of the hybrid works. */
export const PRIVATE_SITE: string = regions.private.site;

export const HYBRID_REGIONS: HybridRegion[] = regions.regions;

const published: VmSize[] = [
  {
    cloud: 'openstack',
    name: regions.private.vm.flavor,
    vcpus: regions.private.vm.vcpu,
    memoryGiB: regions.private.vm.ramGiB,
    diskGB: regions.private.vm.diskGB,
  },
  { cloud: 'azure', name: regions.publicVm.size, vcpus: regions.publicVm.vcpu, memoryGiB: regions.publicVm.ramGiB },
];

/** OpenStack's default flavors and Azure's B-series (vertical scaling and VM packing use B2ms/B4ms/B8ms). */
const others: VmSize[] = [
  { cloud: 'openstack', name: 'm1.medium', vcpus: 2, memoryGiB: 4, diskGB: 40 },
  { cloud: 'openstack', name: 'm1.large', vcpus: 4, memoryGiB: 8, diskGB: 80 },
  { cloud: 'openstack', name: 'm1.xlarge', vcpus: 8, memoryGiB: 16, diskGB: 160 },
  { cloud: 'azure', name: 'Standard_B2s', vcpus: 2, memoryGiB: 4 },
  { cloud: 'azure', name: 'Standard_B2ms', vcpus: 2, memoryGiB: 8 },
  { cloud: 'azure', name: 'Standard_B4ms', vcpus: 4, memoryGiB: 16 },
  { cloud: 'azure', name: 'Standard_B8ms', vcpus: 8, memoryGiB: 32 },
];

export const VM_SIZES: VmSize[] = [...published, ...others];

export function findSize(cloud: VmCloud, name: string): VmSize | undefined {
  return VM_SIZES.find((s) => s.cloud === cloud && s.name === name);
}

export function sizeNames(cloud: VmCloud): string[] {
  return VM_SIZES.filter((s) => s.cloud === cloud).map((s) => s.name);
}
