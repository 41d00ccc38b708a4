/**
 * Where the worker and the CLI find Temporal: the local dev server by default, or an existing
 * cluster named by the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, and mTLS certificate
 * paths or an API key). Nothing here is logged: a key or certificate never leaves this module.
 */
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
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

export const LOCAL_ADDRESS = '127.0.0.1:7233';

export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const cert = env.TEMPORAL_TLS_CERT;
  const key = env.TEMPORAL_TLS_KEY;
  if (Boolean(cert) !== Boolean(key)) {
    throw new InputError(cert ? 'TEMPORAL_TLS_KEY' : 'TEMPORAL_TLS_CERT', 'mTLS needs both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (paths of PEM files)');
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

/** For messages: where we connect, never how we authenticate. */
export function describeTarget(settings: TemporalSettings): string {
  return `${settings.address} namespace ${settings.namespace}, task queue ${settings.taskQueue}`;
}
