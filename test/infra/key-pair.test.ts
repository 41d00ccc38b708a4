/**
 * The key pair provider, called directly (Pulumi does not call a dynamic provider's create under
 * mocks): real keys, checked against the real tools (`wg pubkey`, `ssh-keygen -y`, `openssl`).
 */
import * as pulumi from '@pulumi/pulumi';
import { mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { newKeyMaterial, wireguardPublicKey } from '../../infra/pulumi/keys/key-material';
import { KeyPair, keyPairProvider, type KeyPairInputs, type KeyPairOutputs } from '../../infra/pulumi/keys/key-pair';
import { mockCloud, valueOf } from './harness';
import { tool } from './key-checks';

describe('key material', () => {
  test('WireGuard keys are 32 bytes, base64, and the public one is what `wg pubkey` derives', () => {
    const { privateKey, publicKey } = newKeyMaterial('wireguard');
    expect(Buffer.from(privateKey, 'base64')).toHaveLength(32);
    expect(Buffer.from(publicKey, 'base64')).toHaveLength(32);
    expect(publicKey).toBe(tool('wg', ['pubkey'], privateKey));
  });

  test('a key from `wg genkey` derives the same public key here as in `wg pubkey`', () => {
    const privateKey = tool('wg', ['genkey']);
    expect(wireguardPublicKey(privateKey)).toBe(tool('wg', ['pubkey'], privateKey));
  });

  test('two key pairs differ', () => {
    expect(newKeyMaterial('wireguard').privateKey).not.toBe(newKeyMaterial('wireguard').privateKey);
  });

  test('the SSH key is an OpenSSH Ed25519 key that ssh-keygen reads back to the same public key', () => {
    const { privateKey, publicKey } = newKeyMaterial('ssh', 'manager@test');
    const file = join(mkdtempSync(join(tmpdir(), 'fb-key-')), 'id_ed25519');
    writeFileSync(file, privateKey, { mode: 0o600 });
    expect(tool('ssh-keygen', ['-y', '-f', file])).toBe(publicKey);
    expect(publicKey).toMatch(/^ssh-ed25519 [A-Za-z0-9+/]+=* manager@test$/);
  });

  test('the tinc key is RSA in PKCS#1 PEM, its public half the one openssl derives', () => {
    const { privateKey, publicKey } = newKeyMaterial('tinc');
    expect(privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(publicKey).toMatch(/^-----BEGIN RSA PUBLIC KEY-----/);
    expect(tool('openssl', ['rsa', '-RSAPublicKey_out'], privateKey)).toBe(publicKey.trim());
  });
});

describe('the provider', () => {
  const inputs: KeyPairInputs = { kind: 'wireguard', rotation: '', comment: 'fragbench-test' };

  test('create makes a key pair whose public key derives from its private key', async () => {
    const { id, outs } = await keyPairProvider.create(inputs);
    expect(id).toBeTruthy();
    const o = outs as KeyPairOutputs;
    expect(wireguardPublicKey(o.privateKey)).toBe(o.publicKey);
  });

  test('without a new rotation value an update changes nothing: the keys stay', async () => {
    const { outs } = await keyPairProvider.create(inputs);
    const olds = outs as KeyPairOutputs;
    const diff = await keyPairProvider.diff!('id', olds, { ...inputs });
    expect(diff.changes).toBe(false);
    expect(diff.replaces).toEqual([]);
    const updated = await keyPairProvider.update!('id', olds, { ...inputs });
    expect(updated.outs).toMatchObject({ publicKey: olds.publicKey, privateKey: olds.privateKey });
  });

  test('a new rotation value replaces the key pair', async () => {
    const { outs } = await keyPairProvider.create(inputs);
    const diff = await keyPairProvider.diff!('id', outs as KeyPairOutputs, { ...inputs, rotation: '2025-01' });
    expect(diff).toMatchObject({ changes: true, replaces: ['rotation'] });
    const replacement = await keyPairProvider.create({ ...inputs, rotation: '2025-01' });
    expect((replacement.outs as KeyPairOutputs).privateKey).not.toBe((outs as KeyPairOutputs).privateKey);
  });

  test('the resource keeps its private key a secret and its public key plain', async () => {
    mockCloud('keys');
    const key = new KeyPair('test', { kind: 'wireguard' });
    expect(await pulumi.isSecret(key.privateKey)).toBe(true);
    expect(await pulumi.isSecret(key.publicKey)).toBe(false);
    expect(wireguardPublicKey(await valueOf(key.privateKey))).toBe(await valueOf(key.publicKey));
  });
});
