/** Parsing `nodetool status`: one line per endpoint, e.g. `UN  198.19.243.11  116 KiB  16  100.0%  <host id>  rack1`. */

export interface EndpointStatus {
  /** U(p) or D(own). */
  up: boolean;
  /** N(ormal), L(eaving), J(oining), M(oving). */
  state: 'N' | 'L' | 'J' | 'M';
  address: string;
}

export function parseNodetoolStatus(text: string): EndpointStatus[] {
  const endpoints: EndpointStatus[] = [];
  for (const line of text.split('\n')) {
    const match = /^([UD])([NLJM])\s+(\S+)\s/.exec(line);
    if (match) endpoints.push({ up: match[1] === 'U', state: match[2] as EndpointStatus['state'], address: match[3] });
  }
  return endpoints;
}
