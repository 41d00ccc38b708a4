/**
 * What each VM lets in, written once for both clouds: the only rules open to the internet are
 * WireGuard's UDP ports and SSH from the operator's address; everything else comes from the
 * fleet's own private networks.
 */
export interface IngressRule {
  description: string;
  protocol: 'udp' | 'tcp' | 'any';
  /** Inclusive port range; all ports when absent. */
  ports?: [number, number];
  /** Source CIDR; 0.0.0.0/0 is the internet. */
  from: string;
}

export const ANYWHERE = '0.0.0.0/0';

export function wireguardFromAnywhere(ports: [number, number]): IngressRule {
  return { description: 'WireGuard from anywhere', protocol: 'udp', ports, from: ANYWHERE };
}

export function sshFrom(operatorCidr: string): IngressRule {
  return { description: "SSH from the operator's address", protocol: 'tcp', ports: [22, 22], from: operatorCidr };
}

export function fromFleet(cidrs: string[]): IngressRule[] {
  return cidrs.map((from) => ({ description: `fleet network ${from}`, protocol: 'any', from }));
}
