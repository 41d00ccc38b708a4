/**
 * Checks key material against the real tools (`wg pubkey`, `ssh-keygen -y`, `openssl`) and
 * reports problems as text that never contains a private key, so a failing test logs none.
 */
import { execFileSync } from 'child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { wireguardPublicKey, type KeyKind, type KeyMaterial } from '../../infra/pulumi/keys/key-material';

export const tool = (cmd: string, args: string[], input?: string): string =>
  execFileSync(cmd, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).trim();

/** What is wrong with a key pair of this kind; empty when it is valid. */
export function keyProblems(kind: KeyKind, key: KeyMaterial): string[] {
  if (typeof key.privateKey !== 'string' || typeof key.publicKey !== 'string') return [`${kind}: keys are not strings`];
  if (kind === 'wireguard') return wireguardProblems(key);
  if (kind === 'ssh') return sshProblems(key);
  return tincProblems(key);
}

function wireguardProblems({ privateKey, publicKey }: KeyMaterial): string[] {
  const base64 = /^[A-Za-z0-9+/]{43}=$/;
  const problems: string[] = [];
  if (!base64.test(privateKey) || Buffer.from(privateKey, 'base64').length !== 32) problems.push('wireguard: private key is not 32 bytes of base64');
  if (!base64.test(publicKey) || Buffer.from(publicKey, 'base64').length !== 32) problems.push('wireguard: public key is not 32 bytes of base64');
  if (problems.length) return problems;
  if (wireguardPublicKey(privateKey) !== publicKey) problems.push('wireguard: public key does not derive from the private key');
  if (tool('wg', ['pubkey'], privateKey) !== publicKey) problems.push('wireguard: `wg pubkey` derives another public key');
  return problems;
}

function sshProblems({ privateKey, publicKey }: KeyMaterial): string[] {
  if (!/^ssh-ed25519 [A-Za-z0-9+/]+=* \S+$/.test(publicKey)) return ['ssh: public key is not an ssh-ed25519 line'];
  const dir = mkdtempSync(join(tmpdir(), 'fb-key-'));
  try {
    const file = join(dir, 'id_ed25519');
    writeFileSync(file, privateKey, { mode: 0o600 });
    return tool('ssh-keygen', ['-y', '-f', file]) === publicKey ? [] : ['ssh: ssh-keygen derives another public key'];
  } catch {
    return ['ssh: ssh-keygen cannot read the private key'];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function tincProblems({ privateKey, publicKey }: KeyMaterial): string[] {
  if (!privateKey.startsWith('-----BEGIN RSA PRIVATE KEY-----')) return ['tinc: private key is not PKCS#1 PEM'];
  if (!publicKey.startsWith('-----BEGIN RSA PUBLIC KEY-----')) return ['tinc: public key is not PKCS#1 PEM'];
  try {
    return tool('openssl', ['rsa', '-RSAPublicKey_out'], privateKey) === publicKey.trim() ? [] : ['tinc: openssl derives another public key'];
  } catch {
    return ['tinc: openssl cannot read the private key'];
  }
}
