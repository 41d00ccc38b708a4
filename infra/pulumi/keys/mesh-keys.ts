/** The WireGuard key pairs of a plan, one per node and connection type, keyed `<node>/<type>`. */
import type * as pulumi from '@pulumi/pulumi';
import { interfaceKeyNames, type FleetPlan } from '../plan';
import { KeyPair } from './key-pair';

export type KeyRing = Record<string, KeyPair>;

export function wireguardKeyRing(plan: FleetPlan, rotation: string, opts: pulumi.CustomResourceOptions): KeyRing {
  return Object.fromEntries(
    interfaceKeyNames(plan).map((key) => [key, new KeyPair(`${key.replace('/', '-wg')}`, { kind: 'wireguard', rotation }, opts)]),
  );
}

export function publicKeys(ring: KeyRing): Record<string, pulumi.Output<string>> {
  return mapValues(ring, (k) => k.publicKey);
}

export function privateKeys(ring: KeyRing): Record<string, pulumi.Output<string>> {
  return mapValues(ring, (k) => k.privateKey);
}

function mapValues<T, U>(record: Record<string, T>, f: (t: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));
}
