/**
 * Where the worker and the CLI find Temporal: the local dev server by default, or a cluster named
 * the way the Temporal CLI and SDKs name one, read with Temporal's own environment configuration
 * (@temporalio/envconfig): a profile of temporal.toml (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE)
 * and the standard variables over it (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS_CLIENT_CERT_PATH...). The names fragbench read before (TEMPORAL_TLS_CERT,
 * TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA) still work, with a deprecation line. Nothing here is logged:
 * a key or certificate never leaves this module.
 */
import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { loadClientConfigProfile, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { InputError } from '../core/errors';
import { TASK_QUEUE_DEFAULT } from '../workflows/definitions';

/** A PEM given as a file or inline, with the setting it came from (for an error that names it). */
export interface PemSource {
  source: ConfigDataSource;
  setting: string;
}

export interface TlsSettings {
  clientCert?: PemSource;
  clientKey?: PemSource;
  serverCa?: PemSource;
  serverName?: string;
}

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** TLS with these files (an empty object: the system's roots), none (`false`: TLS turned off), or absent: plaintext unless an API key is given. */
  tls?: TlsSettings | false;
  apiKey?: string;
  /** gRPC headers for every call (TEMPORAL_GRPC_META_*, a profile's grpc_meta). */
  grpcMeta?: Record<string, string>;
}

/**
 * The local dev server's port: 7233, Temporal's own default, unless FRAGBENCH_DEV_PORT names
 * another (a second dev server beside a user's, as the chaos benchmark and tests run); its UI is
 * 1000 above it, as 8233 is above 7233.
 */
export function localDevPort(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.FRAGBENCH_DEV_PORT;
  if (!text) return 7233;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1024 || port > 64535) {
    throw new InputError('FRAGBENCH_DEV_PORT', `must be a port from 1024 to 64535 (its UI takes the port 1000 above), got ${JSON.stringify(text)}`);
  }
  return port;
}

export const LOCAL_ADDRESS = `127.0.0.1:${localDevPort()}`;

/** The names fragbench read before Temporal's own, and the standard name each now stands for. */
const DEPRECATED_NAMES: Record<string, string> = {
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
};

/** Said once per process, however often the settings are read. */
let deprecationSaid = false;

/** The environment with the old names put under the standard ones (a standard name given wins), and the old names used. */
function withStandardNames(env: NodeJS.ProcessEnv): { env: Record<string, string>; deprecated: string[] } {
  const standard = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  const deprecated = Object.keys(DEPRECATED_NAMES).filter((old) => standard[old] !== undefined);
  for (const old of deprecated) standard[DEPRECATED_NAMES[old]] ??= standard[old];
  return { env: standard, deprecated };
}

/** The profile as Temporal's environment configuration reads it; its own errors (a bad file, a missing profile) are input errors. */
function loadProfile(env: Record<string, string>): ClientConfigProfile {
  try {
    return loadClientConfigProfile({ overrideEnvVars: env });
  } catch (err) {
    const setting = /Profile '/.test((err as Error).message) ? 'TEMPORAL_PROFILE' : (env.TEMPORAL_CONFIG_FILE ?? 'temporal.toml');
    throw new InputError(setting, (err as Error).message);
  }
}

/** The setting a TLS value came from: the variable when it is set, else the profile's key. */
function pemSource(
  source: ConfigDataSource | undefined,
  env: Record<string, string>,
  variable: string,
  key: string,
  profile: string,
): PemSource | undefined {
  if (!source) return undefined;
  const given = 'path' in source ? `${variable}_PATH` : `${variable}_DATA`;
  return { source, setting: env[given] !== undefined ? given : `${key}${'path' in source ? '_path' : '_data'} (temporal.toml profile ${profile})` };
}

export function temporalSettings(env: NodeJS.ProcessEnv = process.env, warn: (line: string) => void = console.error): TemporalSettings {
  const { env: standard, deprecated } = withStandardNames(env);
  if (deprecated.length > 0 && !deprecationSaid) {
    deprecationSaid = true;
    warn(
      `fragbench: ${deprecated.join(', ')} ${deprecated.length > 1 ? 'are' : 'is'} deprecated: use ${deprecated.map((d) => DEPRECATED_NAMES[d]).join(', ')} (the names the Temporal CLI and SDKs read)`,
    );
  }
  const profile = loadProfile(standard);
  const profileName = standard.TEMPORAL_PROFILE ?? 'default';
  const tls = profile.tls;
  const settings: TemporalSettings = {
    address: profile.address ?? LOCAL_ADDRESS,
    namespace: profile.namespace ?? 'default',
    taskQueue: standard.FRAGBENCH_TASK_QUEUE ?? TASK_QUEUE_DEFAULT,
    ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0 ? { grpcMeta: profile.grpcMeta } : {}),
  };
  if (tls?.disabled) settings.tls = false;
  else if (tls) {
    settings.tls = {
      clientCert: pemSource(tls.clientCert, standard, 'TEMPORAL_TLS_CLIENT_CERT', 'tls.client_cert', profileName),
      clientKey: pemSource(tls.clientKey, standard, 'TEMPORAL_TLS_CLIENT_KEY', 'tls.client_key', profileName),
      serverCa: pemSource(tls.serverCACert, standard, 'TEMPORAL_TLS_SERVER_CA_CERT', 'tls.server_ca_cert', profileName),
      ...(tls.serverName ? { serverName: tls.serverName } : {}),
    };
    const { clientCert, clientKey } = settings.tls;
    if (Boolean(clientCert) !== Boolean(clientKey)) {
      const missing = clientCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH';
      throw new InputError(
        missing,
        `mTLS needs both a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH) and its key (TEMPORAL_TLS_CLIENT_KEY_PATH), as PEM files; only ${(clientCert ?? clientKey)!.setting} is given`,
      );
    }
  }
  return settings;
}

function readPem({ source, setting }: PemSource): Buffer {
  if (!('path' in source)) return Buffer.from(source.data);
  try {
    return readFileSync(source.path);
  } catch (err) {
    throw new InputError(setting, `cannot read ${source.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Options that both Connection (client) and NativeConnection (worker) accept. */
export interface ConnectOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
  metadata?: Record<string, string>;
}

export function connectionOptions(settings: TemporalSettings): ConnectOptions {
  const options: ConnectOptions = { address: settings.address };
  const { tls } = settings;
  if (tls === false) options.tls = false;
  else if (tls) {
    options.tls = {
      ...(tls.clientCert && tls.clientKey ? { clientCertPair: { crt: readPem(tls.clientCert), key: readPem(tls.clientKey) } } : {}),
      ...(tls.serverCa ? { serverRootCACertificate: readPem(tls.serverCa) } : {}),
      ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
    };
  }
  if (settings.apiKey) {
    options.apiKey = settings.apiKey;
    // An API key travels over TLS unless TLS was turned off on purpose (TEMPORAL_TLS=false: a local proxy).
    options.tls ??= true;
  }
  if (settings.grpcMeta) options.metadata = settings.grpcMeta;
  return options;
}

/** Hosts that are this machine: a dev server there has its UI where `temporal server start-dev` puts it. */
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/;
/** Temporal Cloud's endpoints (namespace and regional API keys); its UI is one site for every namespace. */
const TEMPORAL_CLOUD = /\.(tmprl\.cloud|api\.temporal\.io)$/;

/** `host:port` (or `[v6]:port`) split; the port is absent when the address has none. */
export function hostAndPort(address: string): { host: string; port?: number } {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(address.trim());
  return m ? { host: m[1], port: m[2] === undefined ? undefined : Number(m[2]) } : { host: address };
}

/**
 * The Temporal UI that shows the server these settings reach: TEMPORAL_UI_URL when set, else what
 * the address tells: a server on this host is a dev server, whose UI `temporal server start-dev`
 * puts 1000 above its port (8233 for 7233); Temporal Cloud's is cloud.temporal.io. Undefined
 * when the address says nothing (a self-hosted cluster's UI can be anywhere).
 */
export function temporalUiUrl(settings: Pick<TemporalSettings, 'address'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEMPORAL_UI_URL) return env.TEMPORAL_UI_URL.replace(/\/+$/, '');
  const { host, port } = hostAndPort(settings.address);
  if (LOOPBACK.test(host) && port !== undefined && port + 1000 <= 65535) return `http://${host}:${port + 1000}`;
  if (TEMPORAL_CLOUD.test(host)) return 'https://cloud.temporal.io';
  return undefined;
}

/** A workflow's page in the UI, or a sentence saying the UI's address is unknown and how to give it. */
export function workflowUiLink(
  settings: Pick<TemporalSettings, 'address' | 'namespace'>,
  workflowId: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const ui = temporalUiUrl(settings, env);
  if (!ui)
    return `the Temporal UI's address is unknown for ${settings.address}: set TEMPORAL_UI_URL (e.g. https://temporal.example.com) to print a link`;
  return `${ui}/namespaces/${encodeURIComponent(settings.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** For messages: where we connect, never how we authenticate. */
export function describeTarget(settings: TemporalSettings): string {
  return `${settings.address} namespace ${settings.namespace}, task queue ${settings.taskQueue}`;
}

/** How long a command waits for the server before saying where it looked and what to do. */
export const CONNECT_TIMEOUT_MS = 4000;

/** The error a user gets when no server answers: the address tried, and how to start or point to one. */
export function unreachableServer(settings: TemporalSettings, cause: unknown): Error {
  const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
  const fix =
    settings.address === LOCAL_ADDRESS
      ? 'start the local dev server and a worker with `fragbench dev` (in another terminal), or point to a server with TEMPORAL_ADDRESS'
      : `check TEMPORAL_ADDRESS (${settings.address}) and, for a cloud or TLS server, TEMPORAL_TLS_CLIENT_CERT_PATH/TEMPORAL_TLS_CLIENT_KEY_PATH or TEMPORAL_API_KEY (or the temporal.toml profile in use); for the local dev server unset TEMPORAL_ADDRESS and run \`fragbench dev\``;
  return new Error(
    `no Temporal server answered at ${settings.address} (namespace ${settings.namespace}) within ${CONNECT_TIMEOUT_MS / 1000} s: ${why}. To fix: ${fix}`,
  );
}

/**
 * Connects with `connect`, giving up after CONNECT_TIMEOUT_MS with `unreachableServer`'s message
 * instead of the SDK's own retries and "Failed to connect before the deadline".
 */
export async function connectOrExplain<T>(settings: TemporalSettings, connect: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer')), CONNECT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([connect(), timeout]);
  } catch (err) {
    // Bad settings (an unreadable certificate file) are the user's input, not an unreachable server.
    if (err instanceof InputError) throw err;
    throw unreachableServer(settings, err);
  } finally {
    clearTimeout(timer);
  }
}

/** A client of the server the settings name, or `unreachableServer`'s error within CONNECT_TIMEOUT_MS. */
export async function connectClient(settings: TemporalSettings): Promise<Client> {
  const connection = await connectOrExplain(settings, () =>
    Connection.connect({ ...connectionOptions(settings), connectTimeout: CONNECT_TIMEOUT_MS }),
  );
  return new Client({ connection, namespace: settings.namespace });
}
