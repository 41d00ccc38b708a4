/**
 * A TLS endpoint for Temporal where the dev server has none (`temporal server start-dev` takes no
 * TLS flags): certificates made by openssl in a scratch directory, and an HTTP/2 proxy on loopback
 * that terminates TLS (optionally requiring a client certificate, as mTLS namespaces do) and
 * forwards each gRPC call, headers, body and trailers, to the dev server in plain HTTP/2. Being a
 * proxy of HTTP/2 rather than of bytes, it sees each call's headers: where an API key travels.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { runHost } from '../../platform/command';

export interface CertAuthority {
  name: string;
  cert: string;
  key: string;
}

export interface CertPair {
  cert: string;
  key: string;
}

const openssl = (...args: string[]) => runHost(['openssl', ...args]);

async function newKey(file: string): Promise<void> {
  await openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file);
  chmodSync(file, 0o600);
}

/** A self-signed CA, valid for a day. */
export async function makeCa(dir: string, name: string): Promise<CertAuthority> {
  const ca = { name, cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
  await newKey(ca.key);
  await openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    ca.key,
    '-out',
    ca.cert,
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  return ca;
}

/**
 * A certificate signed by `ca`: for a server on 127.0.0.1 (its address in the SAN, as rustls, the
 * worker's TLS, requires), or for a client.
 */
export async function issue(ca: CertAuthority, dir: string, name: string, use: 'server' | 'client'): Promise<CertPair> {
  const pair = { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
  const csr = path.join(dir, `${name}.csr`);
  const extensions = path.join(dir, `${name}.ext`);
  await newKey(pair.key);
  await openssl('req', '-new', '-key', pair.key, '-out', csr, '-subj', `/CN=${name}`);
  writeFileSync(
    extensions,
    use === 'server'
      ? 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n'
      : 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.cert,
    '-CAkey',
    ca.key,
    '-CAcreateserial',
    '-out',
    pair.cert,
    '-days',
    '1',
    '-extfile',
    extensions,
  );
  return pair;
}

/** One call as the proxy saw it: its headers, and the client certificate's subject if one was given. */
export interface SeenCall {
  headers: http2.IncomingHttpHeaders;
  clientCertSubject?: string;
}

export interface TlsProxy {
  /** host:port to give as TEMPORAL_ADDRESS (the proxy listens on 127.0.0.1, which localhost names). */
  address: string;
  calls: SeenCall[];
  close(): Promise<void>;
}

const { NGHTTP2_FLAG_END_STREAM, NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = http2.constants;

/** Forwards one call to the upstream session, and its response, body and trailers back. */
function forward(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, upstream: http2.ClientHttp2Session): void {
  // The upstream session is plain HTTP/2: let it set the scheme.
  const { ':scheme': _scheme, ...request } = headers;
  const out = upstream.request(request);
  let trailers: http2.OutgoingHttpHeaders = {};
  out.on('response', (response, flags) => {
    // A gRPC error is often "trailers only": one HEADERS frame that ends the stream.
    const endsHere = (Number(flags) & NGHTTP2_FLAG_END_STREAM) !== 0;
    if (!stream.closed) stream.respond(response, { endStream: endsHere, waitForTrailers: !endsHere });
  });
  out.on('trailers', (received: http2.IncomingHttpHeaders) => (trailers = received));
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  stream.pipe(out);
  out.pipe(stream);
  // A call reset on one side (a long poll cancelled at shutdown) is reset on the other; a call
  // that ended normally (code NO_ERROR) is left to finish sending its trailers.
  stream.on('close', () => out.closed || out.close(stream.rstCode === NGHTTP2_NO_ERROR ? NGHTTP2_CANCEL : stream.rstCode));
  out.on('close', () => out.rstCode === NGHTTP2_NO_ERROR || stream.closed || stream.close(out.rstCode));
  stream.on('error', () => undefined);
  out.on('error', () => undefined);
}

/**
 * Listens on 127.0.0.1 (a free port) with `server`'s certificate; with `clientCa`, a client must
 * present a certificate that CA signed, or the handshake fails.
 */
export async function startTlsProxy(options: { upstream: string; server: CertPair; clientCa?: CertAuthority }): Promise<TlsProxy> {
  const upstream = http2.connect(`http://${options.upstream}`);
  upstream.on('error', () => undefined);
  const calls: SeenCall[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createSecureServer({
    cert: readFileSync(options.server.cert),
    key: readFileSync(options.server.key),
    ca: options.clientCa ? readFileSync(options.clientCa.cert) : undefined,
    requestCert: Boolean(options.clientCa),
    rejectUnauthorized: Boolean(options.clientCa),
  });
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => {
    const subject = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate()?.subject?.CN;
    calls.push({ headers, clientCertSubject: Array.isArray(subject) ? subject.join(',') : subject });
    forward(stream, headers, upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    // A name, as TLS servers are reached (the certificate has it): Node warns on an IP as server name.
    address: `localhost:${port}`,
    calls,
    close: async () => {
      // Workers hold long polls open: end the sessions, or close() waits for them.
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      upstream.destroy();
    },
  };
}
