/**
 * Key pairs made with Node's crypto alone, in the formats the tools on the VMs read:
 * - `wireguard`: X25519, both halves base64 of the raw 32 bytes (what `wg genkey` / `wg pubkey` print);
 * - `tinc`: RSA 2048, PKCS#1 PEM (tinc 1.0's `rsa_key.priv` and the key block of a hosts file);
 * - `ssh`: Ed25519, an OpenSSH private key file and an `authorized_keys` line.
 * The key pair dynamic provider calls these; keeping them free of Pulumi lets tests call them directly.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'crypto';

export type KeyKind = 'wireguard' | 'tinc' | 'ssh';
export const KEY_KINDS: readonly KeyKind[] = ['wireguard', 'tinc', 'ssh'];

export interface KeyMaterial {
  publicKey: string;
  privateKey: string;
}

export function newKeyMaterial(kind: KeyKind, comment = 'fragbench'): KeyMaterial {
  if (kind === 'wireguard') {
    const privateKey = clampX25519(randomBytes(32)).toString('base64');
    return { privateKey, publicKey: wireguardPublicKey(privateKey) };
  }
  if (kind === 'tinc') {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      publicKey: publicKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    };
  }
  return sshKeyFromSeed(randomBytes(32), comment);
}

/** The public half of a WireGuard private key (what `wg pubkey` prints). */
export function wireguardPublicKey(privateKeyBase64: string): string {
  const d = Buffer.from(privateKeyBase64, 'base64');
  if (d.length !== 32) throw new Error('a WireGuard private key is 32 bytes, base64-encoded');
  return rawPublicKey(PKCS8_PREFIX_HEX.x25519, d).toString('base64');
}

/**
 * PKCS#8 DER headers for a raw 32-byte X25519 / Ed25519 private key (RFC 8410), as hex text.
 * Text, not Buffers: `pulumi up` serializes the key pair provider's closure, and a captured
 * Buffer comes back as a plain object that Buffer.concat rejects, so bytes are made per call.
 */
const PKCS8_PREFIX_HEX = {
  x25519: '302e020100300506032b656e04220420',
  ed25519: '302e020100300506032b657004220420',
};

function rawPublicKey(prefixHex: string, privateBytes: Buffer): Buffer {
  const der = Buffer.concat([Buffer.from(prefixHex, 'hex'), privateBytes]);
  const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url');
}

/** WireGuard keeps private keys clamped (RFC 7748), as `wg genkey` does. */
function clampX25519(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  out[0] &= 248;
  out[31] &= 127;
  out[31] |= 64;
  return out;
}

/** An Ed25519 key pair for OpenSSH from a 32-byte seed. */
export function sshKeyFromSeed(seed: Buffer, comment: string): KeyMaterial {
  const pub = rawPublicKey(PKCS8_PREFIX_HEX.ed25519, seed);
  const publicBlob = sshStrings(Buffer.from('ssh-ed25519'), pub);
  const check = randomBytes(4);
  let secret = Buffer.concat([check, check, sshStrings(Buffer.from('ssh-ed25519'), pub, Buffer.concat([seed, pub]), Buffer.from(comment))]);
  // The private section is padded with 1, 2, 3, ... to the cipher block size (8 for "none").
  const padding = (8 - (secret.length % 8)) % 8;
  secret = Buffer.concat([secret, Buffer.from(Array.from({ length: padding }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshStrings(Buffer.from('none'), Buffer.from('none'), Buffer.alloc(0)),
    uint32(1),
    sshStrings(publicBlob, secret),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return {
    privateKey: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n'),
    publicKey: `ssh-ed25519 ${publicBlob.toString('base64')} ${comment}`,
  };
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** SSH wire format: each field a 4-byte length and its bytes. */
function sshStrings(...fields: Buffer[]): Buffer {
  return Buffer.concat(fields.flatMap((f) => [uint32(f.length), f]));
}
