/**
 * The Temporal settings as read from the environment (worker/connection.ts, through
 * @temporalio/envconfig) and the UI link printed for a run: where the UI is follows the server
 * actually used, and a server whose UI cannot be told from its address gets a sentence saying how
 * to give it, not a wrong link. (Connecting with them, over TLS and with profiles, is
 * test/cli/temporal-tls.test.ts.)
 */
import { connectionOptions, temporalSettings, temporalUiUrl, workflowUiLink } from '../../worker/connection';

const settings = (env: Record<string, string>) => temporalSettings({ TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml', ...env });

test.each([
  ['127.0.0.1:7233', {}, 'http://127.0.0.1:8233'],
  ['localhost:17233', {}, 'http://localhost:18233'],
  ['[::1]:7233', {}, 'http://[::1]:8233'],
  ['my-ns.a1b2c.tmprl.cloud:7233', {}, 'https://cloud.temporal.io'],
  ['us-east-1.aws.api.temporal.io:7233', {}, 'https://cloud.temporal.io'],
  ['temporal.example.com:7233', { TEMPORAL_UI_URL: 'https://temporal-ui.example.com/' }, 'https://temporal-ui.example.com'],
  ['127.0.0.1:7233', { TEMPORAL_UI_URL: 'https://elsewhere.example.com' }, 'https://elsewhere.example.com'],
])('the UI of %s (%j) is %s', (address, env, ui) => {
  expect(temporalUiUrl({ address }, env)).toBe(ui);
});

test('a workflow link names the namespace and the workflow; an unknown UI is said, with the variable that gives it', () => {
  expect(workflowUiLink({ address: '127.0.0.1:7233', namespace: 'team a' }, 'run/1', {})).toBe(
    'http://127.0.0.1:8233/namespaces/team%20a/workflows/run%2F1',
  );
  expect(workflowUiLink({ address: 'temporal.example.com:7233', namespace: 'default' }, 'r', {})).toBe(
    "the Temporal UI's address is unknown for temporal.example.com:7233: set TEMPORAL_UI_URL (e.g. https://temporal.example.com) to print a link",
  );
});

test('the standard variables: address, namespace, an API key over TLS (unless TLS is turned off), gRPC headers', () => {
  const keyed = settings({ TEMPORAL_ADDRESS: 'my-ns.a1b2c.tmprl.cloud:7233', TEMPORAL_NAMESPACE: 'my-ns.a1b2c', TEMPORAL_API_KEY: 'k' });
  expect(keyed).toMatchObject({ address: 'my-ns.a1b2c.tmprl.cloud:7233', namespace: 'my-ns.a1b2c', apiKey: 'k' });
  expect(connectionOptions(keyed)).toEqual({ address: 'my-ns.a1b2c.tmprl.cloud:7233', apiKey: 'k', tls: true });
  const proxied = settings({ TEMPORAL_ADDRESS: '127.0.0.1:9999', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false', TEMPORAL_GRPC_META_X_TEAM: 'db' });
  expect(connectionOptions(proxied)).toEqual({ address: '127.0.0.1:9999', apiKey: 'k', tls: false, metadata: { 'x-team': 'db' } });
  expect(connectionOptions(settings({}))).toEqual({ address: '127.0.0.1:7233' });
});

test('the old names are read as the standard ones, and said to be deprecated once however often the settings are read', () => {
  const said: string[] = [];
  const old = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml', TEMPORAL_TLS_CERT: '/c.pem', TEMPORAL_TLS_KEY: '/k.pem' };
  const first = temporalSettings(old, (line) => said.push(line));
  temporalSettings(old, (line) => said.push(line));
  expect(first.tls).toMatchObject({ clientCert: { source: { path: '/c.pem' } }, clientKey: { source: { path: '/k.pem' } } });
  expect(said).toEqual([
    'fragbench: TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY are deprecated: use TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH (the names the Temporal CLI and SDKs read)',
  ]);
  // A standard name given as well wins over the old one.
  const both = temporalSettings({ ...old, TEMPORAL_TLS_CLIENT_CERT_PATH: '/new.pem' }, () => undefined);
  expect(both.tls).toMatchObject({ clientCert: { source: { path: '/new.pem' }, setting: 'TEMPORAL_TLS_CLIENT_CERT_PATH' } });
});
