/**
 * Joining a Temporal server over TLS with the settings the Temporal CLI and SDKs read
 * (TEMPORAL_ADDRESS, TEMPORAL_TLS_CLIENT_CERT_PATH/_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH,
 * TEMPORAL_API_KEY, or a temporal.toml profile), with the real CLI and worker: the dev server has
 * no TLS, so a proxy of this file's own terminates it in front of the dev server
 * (test/support/tls.ts), with a CA made for the test. With the right CA and client certificate the
 * CLI starts a run and the worker polls; with the wrong CA, or a client certificate of another CA,
 * both give the project's connection error; an API key reaches the server as a bearer header and
 * is never printed; a half-given or unreadable certificate names its setting; the names read
 * before (TEMPORAL_TLS_CERT/_KEY/_CA) still work, with one deprecation line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ExecResult } from '../../core/exec';
import { waitFor } from '../../platform/wait';
import { fragbench, printed, scratchEnv, startFragbench } from '../support/cli';
import { writeSmallScenario } from '../support/small-topology';
import { localTemporal } from '../support/temporal';
import { issue, makeCa, startTlsProxy, type CertAuthority, type CertPair, type TlsProxy } from '../support/tls';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-tls-'));
const base = scratchEnv(scratch);
const API_KEY = `fb-test-key-${randomUUID()}`;
let temporal: TestWorkflowEnvironment;
let ca: CertAuthority;
let otherCa: CertAuthority;
let client: CertPair;
let rogueClient: CertPair;
/** Requires a client certificate signed by `ca` (an mTLS namespace). */
let mtls: TlsProxy;
/** Server certificate only (an API-key namespace). */
let serverTls: TlsProxy;

beforeAll(async () => {
  [temporal, ca, otherCa] = await Promise.all([localTemporal(), makeCa(scratch, 'fb-test-ca'), makeCa(scratch, 'fb-other-ca')]);
  const [serverCert, clientCert, rogue] = await Promise.all([
    issue(ca, scratch, 'fb-server', 'server'),
    issue(ca, scratch, 'fb-client', 'client'),
    issue(otherCa, scratch, 'fb-rogue', 'client'),
  ]);
  client = clientCert;
  rogueClient = rogue;
  mtls = await startTlsProxy({ upstream: temporal.address, server: serverCert, clientCa: ca });
  serverTls = await startTlsProxy({ upstream: temporal.address, server: serverCert });
});

afterAll(async () => {
  await Promise.all([mtls?.close(), serverTls?.close()]);
  await temporal?.teardown();
  rmSync(scratch, { recursive: true, force: true });
});

/** The CLI's environment for the mTLS proxy, with the right CA and client certificate unless overridden. */
const mtlsEnv = (over: Record<string, string> = {}) => ({
  ...base,
  TEMPORAL_ADDRESS: mtls.address,
  TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert,
  TEMPORAL_TLS_CLIENT_KEY_PATH: client.key,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert,
  ...over,
});

/** The project's error for a server it could not use (worker/connection.ts `unreachableServer`). */
function expectConnectionError(result: ExecResult, address: string): void {
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`no Temporal server answered at ${address} (namespace default)`);
  expect(result.stderr).toContain('TEMPORAL_TLS_CLIENT_CERT_PATH/TEMPORAL_TLS_CLIENT_KEY_PATH or TEMPORAL_API_KEY');
}

/** Answered by the server: it knows no such run. */
function expectAnswered(result: ExecResult): void {
  expect(result.stderr.trim()).toBe('fragbench: workflow not found for ID: no-such-run');
  expect(result.code).toBe(1);
}

test('mTLS, the right CA and a client certificate it signed: the CLI starts a run through the proxy', async () => {
  const queue = `fb-tls-runs-${randomUUID()}`;
  const scenario = writeSmallScenario(scratch, 'cli-tls', { experiment: 'Does a run start over mTLS?' });
  const result = await fragbench(['run', scenario], mtlsEnv({ FRAGBENCH_TASK_QUEUE: queue }));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const runId = /^started run (\S+): /m.exec(result.stdout)?.[1] as string;
  // Seen from the server directly: the run is there, on the CLI's queue, where no worker polls.
  const handle = temporal.client.workflow.getHandle(runId);
  try {
    expect((await handle.describe()).taskQueue).toBe(queue);
  } finally {
    await handle.terminate('test over').catch(() => undefined);
  }
  const started = mtls.calls.find((c) => c.headers[':path'] === '/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution');
  expect(started?.clientCertSubject).toBe('fb-client');
});

test('mTLS: the worker (its own TLS stack, in Rust) polls through the proxy, and stops on Ctrl-C', async () => {
  const queue = `fb-tls-worker-${randomUUID()}`;
  const worker = startFragbench(['worker'], mtlsEnv({ FRAGBENCH_TASK_QUEUE: queue }));
  try {
    await printed(worker, new RegExp(`^fragbench worker: polling ${mtls.address} namespace default, task queue ${queue}$`, 'm'));
    await waitFor(() => mtls.calls.some((c) => c.headers[':path']?.endsWith('/PollWorkflowTaskQueue') && c.clientCertSubject === 'fb-client'), {
      what: 'a workflow task poll through the proxy',
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    worker.kill('SIGINT');
    expect(await worker.exited).toBe(0);
  } finally {
    worker.kill('SIGKILL');
  }
});

test('refused: a CA that did not sign the server, a client certificate of another CA, or an API key over TLS the client cannot verify, give the connection error (CLI and worker)', async () => {
  const wrongCa = mtlsEnv({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: otherCa.cert });
  const wrongClient = mtlsEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: rogueClient.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: rogueClient.key });
  // Each waits out the connect timeout: in parallel, the file takes one wait instead of five.
  const [unverified, ...mtlsRefused] = await Promise.all([
    fragbench(['cancel', 'no-such-run'], { ...base, TEMPORAL_ADDRESS: serverTls.address, TEMPORAL_API_KEY: API_KEY }),
    fragbench(['cancel', 'no-such-run'], wrongCa),
    fragbench(['cancel', 'no-such-run'], wrongClient),
    fragbench(['worker'], wrongCa, 30_000),
    fragbench(['worker'], wrongClient, 30_000),
  ]);
  for (const result of mtlsRefused) expectConnectionError(result, mtls.address);
  expectConnectionError(unverified, serverTls.address);
  expect(unverified.stderr).not.toContain(API_KEY);
});

test('an API key travels as a bearer header on every call, beside mTLS or alone over TLS, and is never printed', async () => {
  const [withCert, alone] = await Promise.all([
    fragbench(['cancel', 'no-such-run'], mtlsEnv({ TEMPORAL_API_KEY: API_KEY })),
    // Alone, the key goes over TLS verified with the default roots; grpc-js (the CLI's client)
    // reads those from this variable when set, so the test CA stands in for a public one.
    fragbench(['cancel', 'no-such-run'], {
      ...base,
      TEMPORAL_ADDRESS: serverTls.address,
      TEMPORAL_API_KEY: API_KEY,
      GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: ca.cert,
    }),
  ]);
  expectAnswered(withCert);
  expectAnswered(alone);
  for (const proxy of [mtls, serverTls]) {
    const keyed = proxy.calls.filter((c) => c.headers.authorization !== undefined);
    expect(keyed.length).toBeGreaterThan(0);
    expect(new Set(keyed.map((c) => c.headers.authorization))).toEqual(new Set([`Bearer ${API_KEY}`]));
  }
  for (const result of [withCert, alone]) expect(`${result.stdout}${result.stderr}`).not.toContain(API_KEY);
});

test('a certificate without its key, or one that cannot be read, is refused naming the setting', async () => {
  const [halfGiven, unreadable] = await Promise.all([
    fragbench(['cancel', 'no-such-run'], { ...base, TEMPORAL_ADDRESS: mtls.address, TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert }),
    fragbench(['cancel', 'no-such-run'], mtlsEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(scratch, 'absent.pem') })),
  ]);
  expect(halfGiven.code).toBe(2);
  expect(halfGiven.stderr).toContain(
    'TEMPORAL_TLS_CLIENT_KEY_PATH: mTLS needs both a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH) and its key (TEMPORAL_TLS_CLIENT_KEY_PATH), as PEM files; only TEMPORAL_TLS_CLIENT_CERT_PATH is given',
  );
  // Read inside the connection attempt, but bad input all the same: exit 2, not the unreachable-server error.
  expect(unreadable.code).toBe(2);
  expect(unreadable.stderr).not.toContain('no Temporal server answered');
  expect(unreadable.stderr).toContain(`TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${path.join(scratch, 'absent.pem')}: ENOENT`);
});

test('the names read before still work, with one deprecation line naming the standard ones', async () => {
  const old = { ...base, TEMPORAL_ADDRESS: mtls.address, TEMPORAL_TLS_CERT: client.cert, TEMPORAL_TLS_KEY: client.key, TEMPORAL_TLS_CA: ca.cert };
  const result = await fragbench(['cancel', 'no-such-run'], old);
  expectAnswered({ ...result, stderr: result.stderr.split('\n').slice(1).join('\n') });
  expect(result.stderr.split('\n')[0]).toBe(
    'fragbench: TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA are deprecated: use TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH (the names the Temporal CLI and SDKs read)',
  );
});

test('a temporal.toml profile (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) gives the address and mTLS files; a variable overrides it', async () => {
  const toml = path.join(scratch, 'temporal.toml');
  writeFileSync(
    toml,
    [
      '[profile.default]',
      'address = "127.0.0.1:1"',
      '',
      '[profile.proxied]',
      `address = "${mtls.address}"`,
      '[profile.proxied.tls]',
      `client_cert_path = "${client.cert}"`,
      `client_key_path = "${client.key}"`,
      `server_ca_cert_path = "${ca.cert}"`,
      '',
    ].join('\n'),
  );
  const [fromProfile, overridden, missing] = await Promise.all([
    fragbench(['cancel', 'no-such-run'], { ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'proxied' }),
    // The default profile's address is closed; TEMPORAL_ADDRESS wins over it, and a profile without TLS reaches the dev server itself.
    fragbench(['cancel', 'no-such-run'], { ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: temporal.address }),
    fragbench(['cancel', 'no-such-run'], { ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'absent' }),
  ]);
  expectAnswered(fromProfile);
  expectAnswered(overridden);
  expect(mtls.calls.some((c) => c.clientCertSubject === 'fb-client' && c.headers[':path']?.endsWith('/RequestCancelWorkflowExecution'))).toBe(true);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("TEMPORAL_PROFILE: Profile 'absent' not found in config data");
});
