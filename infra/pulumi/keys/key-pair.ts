/**
 * A key pair as a Pulumi resource (dynamic provider): made once, kept in the stack's state with
 * the private half a secret, and replaced only when its `rotation` input changes. That keeps
 * WireGuard and tinc keys stable across `pulumi up` runs, and lets a user rotate them all with
 * `pulumi config set fragbench:keyRotation <anything new>`.
 */
import * as pulumi from '@pulumi/pulumi';
import { randomUUID } from 'crypto';
import { newKeyMaterial, type KeyKind } from './key-material';

export interface KeyPairInputs {
  kind: KeyKind;
  /** Any string; a new value replaces the key pair. */
  rotation: string;
  /** Comment for SSH public keys. */
  comment: string;
}

export interface KeyPairOutputs extends KeyPairInputs {
  publicKey: string;
  privateKey: string;
}

/** Inputs whose change means a new key pair; everything else keeps the one there is. */
const REPLACE_ON: (keyof KeyPairInputs)[] = ['kind', 'rotation', 'comment'];

// Pulumi's provider interface asks for promises; making and comparing keys has nothing to wait for.
export const keyPairProvider: pulumi.dynamic.ResourceProvider<KeyPairInputs, KeyPairOutputs> = {
  create(inputs) {
    return Promise.resolve({ id: randomUUID(), outs: { ...inputs, ...newKeyMaterial(inputs.kind, inputs.comment) } });
  },
  diff(_id, olds, news) {
    const replaces = REPLACE_ON.filter((k) => (olds[k] ?? '') !== (news[k] ?? ''));
    return Promise.resolve({ changes: replaces.length > 0, replaces, deleteBeforeReplace: false });
  },
  update(_id, olds, news) {
    // diff() replaces on every input that matters, so an update only carries the old keys over.
    return Promise.resolve({ outs: { ...news, publicKey: olds.publicKey, privateKey: olds.privateKey } });
  },
};

export interface KeyPairArgs {
  kind: KeyKind;
  rotation?: pulumi.Input<string>;
  comment?: string;
}

export class KeyPair extends pulumi.dynamic.Resource {
  declare readonly publicKey: pulumi.Output<string>;
  /** A Pulumi secret: it shows in no plan, log or plain output. */
  declare readonly privateKey: pulumi.Output<string>;

  constructor(name: string, args: KeyPairArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      keyPairProvider,
      name,
      { kind: args.kind, rotation: args.rotation ?? '', comment: args.comment ?? `fragbench-${name}`, publicKey: undefined, privateKey: undefined },
      { ...opts, additionalSecretOutputs: ['privateKey'] },
      'fragbench',
      'KeyPair',
    );
    // additionalSecretOutputs marks it in the engine; wrapping it here keeps it secret in-process too.
    this.privateKey = pulumi.secret(this.privateKey);
  }
}
