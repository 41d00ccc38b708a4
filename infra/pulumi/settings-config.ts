/**
 * A stack's configuration as its schema (settings.schema.json) sees it: the document of a stack
 * file, `{ config: { 'fragbench:<key>': value } }`, rebuilt from what Pulumi hands over, with the
 * schema's defaults filled in. Pulumi gives every value as text (objects and numbers as JSON), so
 * each is parsed as the schema declares it.
 */
import schema from './settings.schema.json';
import type { VmCloud } from './catalog';

/** Reads one raw config value (what `pulumi config get fragbench:<key>` prints), or undefined. */
export type ConfigSource = (key: string) => string | undefined;

export const NAMESPACE = 'fragbench';

/** Read by the program as secrets (index.ts), never here: a secret must not reach an error line. */
const SECRET_KEYS = new Set(['sshPrivateKey']);

interface Declared {
  type?: string;
  default?: unknown;
  properties?: Record<string, Declared>;
}

const DECLARED = schema.definitions.config.properties as Record<string, Declared>;

/** The settings by key (no namespace), once the schema holds: what the program derives its plan from. */
export interface ConfigValues {
  kind: 'hybrid' | 'fragmented';
  operatorCidr: string;
  sshUser: string;
  sshPublicKey: string;
  wireguardPort: number;
  keyRotation: string;
  openstack: { imageName: string; externalNetworkId?: string; floatingIpPool: string };
  azureImage: { publisher: string; offer: string; sku: string; version: string };
  region?: string;
  layout?: string;
  nodes: number;
  privateSize: string;
  publicSize: string;
  donorSize: string;
  clientSize: string;
  cidrs?: Record<string, string>;
  topology: string;
  placement?: Record<string, string>;
  siteSize: Record<VmCloud, string>;
  diskGB: number;
}

export interface StackDocument {
  config: Record<string, unknown>;
}

/** The stack file's document: every declared key the source has (an empty value is unset), defaults filled in. */
export function stackDocument(source: ConfigSource): StackDocument {
  const config: Record<string, unknown> = {};
  for (const [name, declared] of Object.entries(DECLARED)) {
    const key = name.slice(NAMESPACE.length + 1);
    if (SECRET_KEYS.has(key)) continue;
    const value = withDefaults(parsed(source(key), declared), declared);
    if (value !== undefined) config[name] = value;
  }
  return { config };
}

/** The document's values by key without the namespace. */
export function configValues(document: StackDocument): Partial<ConfigValues> {
  return Object.fromEntries(Object.entries(document.config).map(([name, value]) => [name.slice(NAMESPACE.length + 1), value]));
}

/** The defaults a schema object declares for its properties, e.g. the CIDRs of a kind of fleet. */
export function defaultsOf(declared: Declared): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(declared.properties ?? {})
      .filter(([, property]) => property.default !== undefined)
      .map(([name, property]) => [name, property.default]),
  );
}

/** Text where the schema wants text; otherwise JSON, or the text as it came (the schema then says what is wrong). */
function parsed(raw: string | undefined, declared: Declared): unknown {
  if (raw === undefined || raw === '') return undefined;
  if (declared.type === undefined || declared.type === 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** The declared default of an unset value; an object's missing properties from their defaults. */
function withDefaults(value: unknown, declared: Declared): unknown {
  if (declared.properties === undefined) return value ?? declared.default;
  const defaults = defaultsOf(declared);
  if (value === undefined) return Object.keys(defaults).length ? defaults : undefined;
  return value && typeof value === 'object' && !Array.isArray(value) ? { ...defaults, ...value } : value;
}
