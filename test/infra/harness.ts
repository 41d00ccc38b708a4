/**
 * In-process Pulumi for the infra tests (there is no Pulumi CLI here): mocks that record every
 * resource the program declares and answer with plausible cloud outputs. Key pairs are made by
 * the real key code, so keys in the inventory are real keys, and the private ones are recorded
 * to prove they never leak.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import * as pulumi from '@pulumi/pulumi';
import type * as azureCompute from '@pulumi/azure-native/compute';
import type * as azureNetwork from '@pulumi/azure-native/network';
import type { local, remote } from '@pulumi/command';
import type * as osCompute from '@pulumi/openstack/compute';
import type * as osNetworking from '@pulumi/openstack/networking';
import { parse } from 'yaml';
import { newKeyMaterial, type KeyKind } from '../../infra/pulumi/keys/key-material';
import type { KeyPairInputs } from '../../infra/pulumi/keys/key-pair';
import { readSettings, type StackSettings } from '../../infra/pulumi/settings';
import type { ConfigSource } from '../../infra/pulumi/settings-config';

/** A declared resource; `ofType` and `named` type its inputs by its type (InputsOf). */
export interface Declared<Inputs = Record<string, unknown>> {
  type: string;
  name: string;
  /** Inputs with secrets unwrapped. */
  inputs: Inputs;
  /** Top-level inputs that arrived as Pulumi secrets. */
  secretInputs: string[];
  state: DeclaredState;
  /** Resource options the program registered it with, as the engine receives them. */
  options: RegisteredOptions;
}

/** What the mocks answer with: the inputs, an id and a name, and the addresses a cloud would assign. */
export interface DeclaredState {
  id: string;
  name: string;
  /** An Azure public IP's. */
  ipAddress?: string;
  /** An OpenStack floating IP's. */
  address?: string;
  [input: string]: unknown;
}

export interface RegisteredOptions {
  deleteBeforeReplace: boolean;
  /** Direct dependencies (dependsOn and the resources its inputs come from), as `type::name`. */
  dependsOn: string[];
}

/** How the mock monitor hands over a secret value. */
const SECRET_SIG = '4dabf18193072939515e22adb298388d';

function isSecretValue(v: unknown): v is { value: unknown } {
  return !!v && typeof v === 'object' && SECRET_SIG in v;
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
  ofType<T extends ResourceType>(type: T): DeclaredOf<T>[];
  named<T extends ResourceType>(type: T, name: string): DeclaredOf<T>;
  /** Lets resources that `hold` kept waiting finish registering. */
  release(): void;
}

export interface MockCloudOptions {
  /** Keep these resources from finishing registration until release(): a slow cloud. */
  hold?: (type: string, name: string) => boolean;
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
  azNatGateway: 'azure-native:network:NatGateway',
  localCommand: 'command:local:Command',
} as const;

/** What the program gives each resource type (outputs resolved), typed by the providers' own argument types. */
export interface InputsOf {
  [TYPES.keyPair]: KeyPairInputs & { __provider: string };
  [TYPES.command]: pulumi.Unwrap<remote.CommandArgs>;
  [TYPES.localCommand]: pulumi.Unwrap<local.CommandArgs>;
  [TYPES.osInstance]: pulumi.Unwrap<osCompute.InstanceArgs>;
  [TYPES.osInterfaceAttach]: pulumi.Unwrap<osCompute.InterfaceAttachArgs>;
  [TYPES.osPort]: pulumi.Unwrap<osNetworking.PortArgs>;
  [TYPES.osFloatingIp]: pulumi.Unwrap<osNetworking.FloatingIpArgs>;
  [TYPES.osSecGroupRule]: pulumi.Unwrap<osNetworking.SecGroupRuleArgs>;
  [TYPES.osRouterRoute]: pulumi.Unwrap<osNetworking.RouterRouteArgs>;
  [TYPES.azVm]: pulumi.Unwrap<azureCompute.VirtualMachineArgs>;
  [TYPES.azNic]: pulumi.Unwrap<azureNetwork.NetworkInterfaceArgs>;
  [TYPES.azPublicIp]: pulumi.Unwrap<azureNetwork.PublicIPAddressArgs>;
  [TYPES.azNsg]: pulumi.Unwrap<azureNetwork.NetworkSecurityGroupArgs>;
  [TYPES.azPeering]: pulumi.Unwrap<azureNetwork.VirtualNetworkPeeringArgs>;
  [TYPES.azRouteTable]: pulumi.Unwrap<azureNetwork.RouteTableArgs>;
  [TYPES.azSubnet]: pulumi.Unwrap<azureNetwork.SubnetArgs>;
  [TYPES.azVnet]: pulumi.Unwrap<azureNetwork.VirtualNetworkArgs>;
  [TYPES.azNatGateway]: pulumi.Unwrap<azureNetwork.NatGatewayArgs>;
}

export type ResourceType = keyof InputsOf;
export type DeclaredOf<T extends ResourceType> = Declared<InputsOf[T]>;

/** Sets fresh mocks for a stack; each call starts a new, empty record. */
export function mockCloud(stack: string, options: MockCloudOptions = {}): MockCloud {
  const resources: Declared[] = [];
  const registered = new Map<string, RegisteredOptions>();
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const privateKeys: string[] = [];
  let addresses = 0;
  let macs = 0;
  // setMocks awaits nothing: the mocks are in place when it returns, so the harness stays synchronous.
  void pulumi.runtime.setMocks(
    {
      async newResource(args) {
        if (options.hold?.(args.type, args.name)) await released;
        const secretInputs = Object.entries(args.inputs as Record<string, unknown>)
          .filter(([, v]) => isSecretValue(v))
          .map(([k]) => k);
        const inputs = unwrapSecrets(args.inputs) as Record<string, unknown>;
        const text = (key: string) => (typeof inputs[key] === 'string' ? inputs[key] : undefined);
        const state: DeclaredState = { ...inputs, id: text('id') ?? `${args.name}-id`, name: text('name') ?? args.name };
        if (args.type === TYPES.keyPair) {
          const material = newKeyMaterial(inputs.kind as KeyKind, String(inputs.comment));
          privateKeys.push(material.privateKey);
          Object.assign(state, material);
        }
        // Documentation address ranges (RFC 5737): strings only, nothing is ever sent to them.
        if (args.type === TYPES.azPublicIp) state.ipAddress = `203.0.113.${++addresses}`;
        if (args.type === TYPES.osFloatingIp) state.address = `198.51.100.${++addresses}`;
        if (args.type === TYPES.osPort) state.macAddress = `fa:16:3e:00:00:${(++macs).toString(16).padStart(2, '0')}`;
        if (args.type.startsWith('azure-native:')) {
          state.name = text('virtualNetworkName') ?? text('vmName') ?? args.name;
          state.id = `/subscriptions/test/resourceGroups/fb/providers/${args.type}/${args.name}`;
        }
        const registration = registered.get(`${args.type}::${args.name}`) ?? { deleteBeforeReplace: false, dependsOn: [] };
        resources.push({ type: args.type, name: args.name, inputs, secretInputs, state, options: registration });
        return { id: state.id, state };
      },
      call: (args) => args.inputs as Record<string, unknown>,
    },
    'fragbench',
    stack,
    false,
  );
  recordRegistrations(registered);
  // A resource of type T was declared with T's inputs: the program type-checks against the same argument types.
  const ofType = <T extends ResourceType>(type: T) => resources.filter((r) => r.type === type) as unknown as DeclaredOf<T>[];
  return {
    resources,
    privateKeys,
    leakedKeys: (text) =>
      privateKeys
        .flatMap((k) => k.split('\n').filter((line) => line.length >= 16 && !line.startsWith('-----')))
        .filter((part) => text.includes(part)),
    ofType,
    release: () => release(),
    named(type, name) {
      const found = ofType(type).find((r) => r.name === name);
      if (!found)
        throw new Error(
          `no ${type} named ${name}; have ${ofType(type)
            .map((r) => r.name)
            .join(', ')}`,
        );
      return found;
    },
  };
}

/**
 * The mocks see a resource's inputs only; its options (deleteBeforeReplace, dependencies) are in
 * the registration request the mock monitor receives, so they are read there on the way in.
 */
function recordRegistrations(into: Map<string, RegisteredOptions>): void {
  const monitor = pulumi.runtime.getMonitor() as unknown as { registerResource: (req: RegisterRequest, cb: unknown) => void };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, cb) => {
    into.set(`${req.getType()}::${req.getName()}`, {
      deleteBeforeReplace: req.getDeletebeforereplace(),
      dependsOn: req.getDependenciesList().map(typeAndName),
    });
    register(req, cb);
  };
}

/** The parts of Pulumi's RegisterResourceRequest read here. */
interface RegisterRequest {
  getType(): string;
  getName(): string;
  getDeletebeforereplace(): boolean;
  getDependenciesList(): string[];
}

/** `urn:pulumi:stack::project::parent$type::name` -> `type::name`. */
function typeAndName(urn: string): string {
  const parts = urn.split('::');
  return `${(parts[2] ?? '').split('$').pop()}::${parts.slice(3).join('::')}`;
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
