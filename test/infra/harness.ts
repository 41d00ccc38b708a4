/**
 * In-process Pulumi for the infra tests (there is no Pulumi CLI here): mocks that record every
 * resource the program declares and answer with plausible cloud outputs. Key pairs are made by
 * the real key code, so keys in the inventory are real keys, and the private ones are recorded
 * to prove they never leak.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import * as pulumi from '@pulumi/pulumi';
import { parse } from 'yaml';
import { newKeyMaterial, type KeyKind } from '../../infra/pulumi/keys/key-material';
import { readSettings, type ConfigSource, type StackSettings } from '../../infra/pulumi/settings';

export interface Declared {
  type: string;
  name: string;
  /** Inputs with secrets unwrapped. */
  inputs: Record<string, any>;
  /** Top-level inputs that arrived as Pulumi secrets. */
  secretInputs: string[];
  state: Record<string, any>;
}

/** How the mock monitor hands over a secret value. */
const SECRET_SIG = '4dabf18193072939515e22adb298388d';

function isSecretValue(v: unknown): v is { value: unknown } {
  return !!v && typeof v === 'object' && SECRET_SIG in (v as object);
}

function unwrapSecrets(v: unknown): unknown {
  if (isSecretValue(v)) return unwrapSecrets(v.value);
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrapSecrets(x)]));
  return v;
}

export interface MockCloud {
  resources: Declared[];
  privateKeys: string[];
  /** Private keys (or the base64 lines of PEM ones) found in a text. */
  leakedKeys(text: string): string[];
  ofType(type: string): Declared[];
  named(type: string, name: string): Declared;
}

/** Loading the Pulumi SDKs and compiling the program takes a while on a shared 2-core machine. */
export const BUILD_TIMEOUT_MS = 60_000;

export const TYPES = {
  keyPair: 'pulumi-nodejs:dynamic/fragbench:KeyPair',
  command: 'command:remote:Command',
  osInstance: 'openstack:compute/instance:Instance',
  osInterfaceAttach: 'openstack:compute/interfaceAttach:InterfaceAttach',
  osPort: 'openstack:networking/port:Port',
  osFloatingIp: 'openstack:networking/floatingIp:FloatingIp',
  osSecGroupRule: 'openstack:networking/secGroupRule:SecGroupRule',
  osRouterRoute: 'openstack:networking/routerRoute:RouterRoute',
  azVm: 'azure-native:compute:VirtualMachine',
  azNic: 'azure-native:network:NetworkInterface',
  azPublicIp: 'azure-native:network:PublicIPAddress',
  azNsg: 'azure-native:network:NetworkSecurityGroup',
  azPeering: 'azure-native:network:VirtualNetworkPeering',
  azRouteTable: 'azure-native:network:RouteTable',
  azSubnet: 'azure-native:network:Subnet',
  azVnet: 'azure-native:network:VirtualNetwork',
};

/** Sets fresh mocks for a stack; each call starts a new, empty record. */
export function mockCloud(stack: string): MockCloud {
  const resources: Declared[] = [];
  const privateKeys: string[] = [];
  let addresses = 0;
  let macs = 0;
  pulumi.runtime.setMocks(
    {
      newResource(args) {
        const secretInputs = Object.entries(args.inputs as Record<string, unknown>).filter(([, v]) => isSecretValue(v)).map(([k]) => k);
        const inputs = unwrapSecrets(args.inputs) as Record<string, any>;
        const state: Record<string, any> = { ...inputs, name: inputs.name ?? args.name };
        if (args.type === TYPES.keyPair) {
          const material = newKeyMaterial(inputs.kind as KeyKind, inputs.comment);
          privateKeys.push(material.privateKey);
          Object.assign(state, material);
        }
        // Documentation address ranges (RFC 5737): strings only, nothing is ever sent to them.
        if (args.type === TYPES.azPublicIp) state.ipAddress = `203.0.113.${++addresses}`;
        if (args.type === TYPES.osFloatingIp) state.address = `198.51.100.${++addresses}`;
        if (args.type === TYPES.osPort) state.macAddress = `fa:16:3e:00:00:${(++macs).toString(16).padStart(2, '0')}`;
        if (args.type.startsWith('azure-native:')) {
          state.name = inputs.virtualNetworkName ?? inputs.vmName ?? args.name;
          state.id = `/subscriptions/test/resourceGroups/fb/providers/${args.type}/${args.name}`;
        }
        state.id = state.id ?? `${args.name}-id`;
        resources.push({ type: args.type, name: args.name, inputs, secretInputs, state });
        return { id: state.id, state };
      },
      call: (args) => args.inputs,
    },
    'fragbench',
    stack,
    false,
  );
  const ofType = (type: string) => resources.filter((r) => r.type === type);
  return {
    resources,
    privateKeys,
    leakedKeys: (text) =>
      privateKeys.flatMap((k) => k.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----'))).filter((part) => text.includes(part)),
    ofType,
    named(type, name) {
      const found = ofType(type).find((r) => r.name === name);
      if (!found) throw new Error(`no ${type} named ${name}; have ${ofType(type).map((r) => r.name).join(', ')}`);
      return found;
    },
  };
}

export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply((v) => resolve(v)));
}

/** Waits until every resource declared so far has been registered with the mocks. */
export async function settled(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** What each user sets for themselves (Pulumi.<stack>.yaml leaves these out). */
export const OPERATOR_CONFIG = {
  operatorCidr: '192.0.2.7/32',
  sshPublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeOperatorKeyForTestsOnly operator@test',
  openstack: { externalNetworkId: 'ext-net-id', imageName: 'ubuntu-22.04', floatingIpPool: 'public' },
};

export const OPERATOR_SSH_PRIVATE_KEY = 'operator-private-key-for-tests';

/** A config source from plain values, as Pulumi hands them over (objects as JSON text). */
export function configSource(values: Record<string, unknown>): ConfigSource {
  return (key) => {
    const v = values[key];
    if (v === undefined) return undefined;
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
}

/** The `fragbench:` values of a stack file at the repository root. */
export function stackFile(stack: string): Record<string, unknown> {
  const doc = parse(readFileSync(join(__dirname, '..', '..', `Pulumi.${stack}.yaml`), 'utf8')) as { config: Record<string, unknown> };
  return Object.fromEntries(Object.entries(doc.config).map(([k, v]) => [k.replace(/^fragbench:/, ''), v]));
}

export function stackSettings(stack: string, overrides: Record<string, unknown> = {}): StackSettings {
  return readSettings(configSource({ ...OPERATOR_CONFIG, ...stackFile(stack), ...overrides }), stack);
}
