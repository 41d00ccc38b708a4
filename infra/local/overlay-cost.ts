import { PUBLISHED_STACK, type Stack } from '../../core/stack';

/**
 * What the local fleet's own layers cost, so the emulator can add exactly the rest: the reference
 * values are what ping and iperf3 measured between real sites, and here they are measured through
 * tinc and WireGuard, which add time (the overlay RTT cost, measured at `up`) and bytes (below).
 */

/**
 * tinc's own protection of the UDP packets it sends to a peer. Every overlay packet already
 * travels inside WireGuard (ChaCha20-Poly1305, authenticated, between the same two nodes), so
 * tinc's default AES + HMAC on top protected nothing more and cost CPU on every datagram (tincd
 * 261 -> 183 us per database operation, `npm run bench:stack`). The local inventory records
 * it (`overlay.tinc`), so every result says so; the Pulumi fleets keep tinc's defaults.
 */
export const TINC_PACKET_PROTECTION = { cipher: 'none', digest: 'none', macLength: 0, compression: 0 } as const;

/** MTU of the tinc interface: tinc's and WireGuard's headers fit inside WireGuard's 1420. */
export const OVERLAY_MTU = 1300;
/** MTU of a mesh link (WireGuard's default; the VXLAN links take the same, under the veth's 1500 less 50 of VXLAN). */
export const MESH_MTU = 1420;

const IPV4 = 20;
const UDP = 8;
/** TCP header with the timestamp option Linux uses. */
const TCP = 32;
/** tinc 1.0 in router mode: a fake Ethernet header and a sequence number, unencrypted, no MAC. */
const TINC_ETHERNET = 14;
const TINC_SEQNO = 4;
/** WireGuard data message: 16-byte header and 16-byte tag around the padded inner packet. */
const WIREGUARD_HEADER = 16;
const WIREGUARD_TAG = 16;
const WIREGUARD_PAD = 16;
/** VXLAN's own header, then the inner Ethernet header it carries. */
const VXLAN_HEADER = 8;
const ETHERNET = 14;

const padTo = (n: number, block: number) => Math.ceil(n / block) * block;

/**
 * UDP payload bytes the emulator relays per byte of TCP payload a full-size overlay packet
 * carries (tinc over UDP; tinc over its TCP meta connections costs within a percent of it).
 * The emulator's rate cap counts relayed bytes, iperf3 counts TCP payload: the cap is raised
 * by this factor so that iperf3 over the overlay measures the reference bandwidth.
 */
export function relayBytesPerPayloadByte(stack: Stack = PUBLISHED_STACK): number {
  // Without tinc the database's packets fill the mesh link; with it, tinc's interface is smaller.
  const mtu = stack.overlay === 'tinc' ? OVERLAY_MTU : MESH_MTU;
  const payload = mtu - IPV4 - TCP;
  // Cipher none: no block padding; MACLength 0: no MAC.
  const inner = stack.overlay === 'tinc' ? IPV4 + UDP + TINC_SEQNO + TINC_ETHERNET + mtu : mtu;
  const relayed = stack.encryption === 'wireguard' ? WIREGUARD_HEADER + padTo(inner, WIREGUARD_PAD) + WIREGUARD_TAG : VXLAN_HEADER + ETHERNET + inner;
  return relayed / payload;
}
