/** IPv4 CIDR arithmetic for the address plans: parse, overlap, the n-th host, the n-th subnet. */

export interface Cidr {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  prefix: number;
  text: string;
}

export function parseCidr(text: string): Cidr {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const prefix = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || prefix > 32) {
    throw new Error(`"${text}" is not an IPv4 CIDR such as 10.10.0.0/24`);
  }
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const base = address - (address % 2 ** (32 - prefix));
  if (base !== address) throw new Error(`"${text}" has host bits set; did you mean ${formatIp(base)}/${prefix}?`);
  return { base, prefix, text };
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  const size = (c: Cidr) => 2 ** (32 - c.prefix);
  return a.base < b.base + size(b) && b.base < a.base + size(a);
}

/** The n-th address of a network (n = 1 is the first after the network address). */
export function hostAddress(cidr: string, n: number): string {
  const c = parseCidr(cidr);
  if (n < 1 || n >= 2 ** (32 - c.prefix) - 1) throw new Error(`host ${n} does not fit in ${cidr}`);
  return formatIp(c.base + n);
}

/** The index-th subnet of the given prefix length inside a network, e.g. (10.40.0.0/16, 24, 3) -> 10.40.3.0/24. */
export function subnet(cidr: string, prefix: number, index: number): string {
  const c = parseCidr(cidr);
  if (prefix < c.prefix || index < 0 || index >= 2 ** (prefix - c.prefix)) {
    throw new Error(`subnet ${index} of size /${prefix} does not fit in ${cidr}`);
  }
  return `${formatIp(c.base + index * 2 ** (32 - prefix))}/${prefix}`;
}

/** How many host addresses a network has (network and broadcast excluded). */
export function hostCount(cidr: string): number {
  return Math.max(0, 2 ** (32 - parseCidr(cidr).prefix) - 2);
}

export function cidrContains(outer: string, inner: string): boolean {
  const o = parseCidr(outer);
  const i = parseCidr(inner.includes('/') ? inner : `${inner}/32`);
  return i.prefix >= o.prefix && cidrsOverlap(o, i);
}

function formatIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}
