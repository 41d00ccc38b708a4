/**
 * What a stack holds while it is up, worked out from its settings and the plan: OpenStack quota
 * (vCPUs, memory, floating IPs) and Azure's hourly list price. The README's cost table is this
 * function's output, so the figures follow the stack files instead of being sized by hand.
 */
import { planFragmented } from './plan-fragmented';
import { planHybrid } from './plan-hybrid';
import type { FleetPlan } from './plan';
import type { StackSettings } from './settings';

/**
 * Azure pay-as-you-go list prices, US$ per hour, Linux, East US (other regions differ). A static
 * Standard public IP, and a NAT gateway (its data processed is billed per GB on top).
 */
export const AZURE_USD_PER_HOUR: Record<string, number> = {
  Standard_B1ms: 0.0207,
  Standard_B2s: 0.0416,
  Standard_B2ms: 0.0832,
  Standard_B4ms: 0.166,
  Standard_B8ms: 0.333,
  publicIp: 0.005,
  natGateway: 0.045,
};

export interface Footprint {
  openstackVcpus: number;
  openstackMemoryGiB: number;
  floatingIps: number;
  azureVms: number;
  azureVcpus: number;
  /** VMs, public IPs and NAT gateways; disks and traffic are extra. */
  azureUsdPerHour: number;
}

export function footprint(settings: StackSettings): Footprint {
  const plan: FleetPlan = settings.kind === 'hybrid' ? planHybrid(settings) : planFragmented(settings);
  const inCloud = (cloud: string) => plan.nodes.filter((n) => n.cloud === cloud);
  const azure = inCloud('azure');
  // The hybrid's public nodes have no public IP and go out through one NAT gateway (with its own IP).
  const natGateways = settings.kind === 'hybrid' && azure.some((n) => !n.hasPublicAddress) ? 1 : 0;
  const publicIps = azure.filter((n) => n.hasPublicAddress).length + natGateways;
  const price = (size: string) => {
    const usd = AZURE_USD_PER_HOUR[size];
    if (usd === undefined) throw new Error(`no Azure price for ${size}; add it to AZURE_USD_PER_HOUR`);
    return usd;
  };
  return {
    openstackVcpus: sum(inCloud('openstack').map((n) => n.size.vcpus)),
    openstackMemoryGiB: sum(inCloud('openstack').map((n) => n.size.memoryGiB)),
    floatingIps: inCloud('openstack').filter((n) => n.hasPublicAddress).length,
    azureVms: azure.length,
    azureVcpus: sum(azure.map((n) => n.size.vcpus)),
    azureUsdPerHour: sum(azure.map((n) => price(n.size.name))) + publicIps * price('publicIp') + natGateways * price('natGateway'),
  };
}

/** The README's table: one row per stack, from its settings. */
export function footprintTable(stacks: [string, StackSettings][]): string {
  const rows = stacks.map(([name, s]) => {
    const f = footprint(s);
    const usd = f.azureUsdPerHour;
    return `| \`${name}\` | ${f.openstackVcpus} | ${f.openstackMemoryGiB} | ${f.floatingIps} | ${f.azureVms} | ${f.azureVcpus} | ${usd.toFixed(2)} | ${Math.round(usd * 730)} |`;
  });
  return [
    '| stack (as its file sets it) | OpenStack vCPUs | OpenStack GiB | floating IPs | Azure VMs | Azure vCPUs | Azure US$ / h | Azure US$ / month |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
