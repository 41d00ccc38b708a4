/**
 * Where the worker and the CLI find Temporal: the local dev server by default, or an existing
 * cluster named by the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, and mTLS certificate
 * paths or an API key). Nothing here is logged: a key or certificate never leaves this module.
 */
import { readFileSync } from 'node:fs';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { InputError } from '../core/errors';
import { TASK_QUEUE_DEFAULT } from '../workflows/definitions';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Paths of the client certificate and key for mTLS. */
  tls?: { certPath: string; keyPath: string; caPath?: string };
  apiKey?: string;
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

export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const cert = env.TEMPORAL_TLS_CERT;
  const key = env.TEMPORAL_TLS_KEY;
  if (Boolean(cert) !== Boolean(key)) {
    throw new InputError(
      cert ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT',
      'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (paths of PEM files)',
    );
  }
  return {
    address: env.TEMPORAL_ADDRESS || LOCAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.FRAGBENCH_TASK_QUEUE || TASK_QUEUE_DEFAULT,
    tls: cert && key ? { certPath: cert, keyPath: key, caPath: env.TEMPORAL_TLS_CA || undefined } : undefined,
    apiKey: env.TEMPORAL_API_KEY || undefined,
  };
}

function readPem(path: string, variable: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new InputError(variable, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Options that both Connection (client) and NativeConnection (worker) accept. */
export interface ConnectOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

export function connectionOptions(settings: TemporalSettings): ConnectOptions {
  const options: ConnectOptions = { address: settings.address };
  if (settings.tls) {
    options.tls = {
      clientCertPair: { crt: readPem(settings.tls.certPath, 'TEMPORAL_TLS_CERT'), key: readPem(settings.tls.keyPath, 'TEMPORAL_TLS_KEY') },
      serverRootCACertificate: settings.tls.caPath ? readPem(settings.tls.caPath, 'TEMPORAL_TLS_CA') : undefined,
    };
  }
  if (settings.apiKey) {
    options.apiKey = settings.apiKey;
    // An API key travels only over TLS.
    options.tls ??= true;
  }
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
      : `check TEMPORAL_ADDRESS (${settings.address}) and, for a cloud or TLS server, TEMPORAL_TLS_CERT/TEMPORAL_TLS_KEY or TEMPORAL_API_KEY; for the local dev server unset TEMPORAL_ADDRESS and run \`fragbench dev\``;
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
