/**
 * CouchDB's HTTP API from a node, with curl. The admin credentials and any body (which may hold
 * them: `_cluster_setup` takes the password) go in a curl config on standard input (`-K -`), so
 * that the command line, which a VM shows in `ps` and an error message repeats, holds neither.
 */
import { CommandError } from '../../../core/exec';
import type { NodeShell } from '../node-shell';

export const COUCH_PORT = 5984;
export const ADMIN_USER = 'admin';

export interface CouchReply<T = unknown> {
  status: number;
  body: T;
}

/** A curl config value: double-quoted, with backslashes and quotes escaped. */
const quoted = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function curlConfig(c: { password?: string; body?: unknown }): string {
  const lines = ['silent', 'show-error', `write-out = ${quoted('\\n%{http_code}')}`];
  if (c.password !== undefined) lines.push(`user = ${quoted(`${ADMIN_USER}:${c.password}`)}`);
  if (c.body !== undefined) lines.push(`header = ${quoted('Content-Type: application/json')}`, `data = ${quoted(JSON.stringify(c.body))}`);
  return `${lines.join('\n')}\n`;
}

export function curlArgv(method: string, url: string): string[] {
  return ['curl', '-K', '-', '-X', method, url];
}

/**
 * One request; the reply's status and JSON body. Throws on a status not in `ok` (the body names
 * CouchDB's reason); never on curl's own failure when `allowFailure` (status 0 then).
 */
export async function couchRequest<T = Record<string, unknown>>(
  shell: NodeShell,
  request: { method: string; url: string; password?: string; body?: unknown; ok?: number[]; allowFailure?: boolean },
): Promise<CouchReply<T>> {
  const argv = curlArgv(request.method, request.url);
  const result = await shell.run(argv, { input: curlConfig(request), allowFailure: true, timeoutMs: 120_000 });
  const lines = result.stdout.trimEnd().split('\n');
  const status = Number(lines.pop()) || 0;
  let body: unknown;
  try {
    body = JSON.parse(lines.join('\n') || 'null');
  } catch {
    body = lines.join('\n');
  }
  const ok = request.ok ?? [200, 201, 202];
  if (!ok.includes(status) && !request.allowFailure) {
    if (result.code !== 0) throw new CommandError(argv, shell.exec.where, result);
    throw new Error(`couchdb: ${request.method} ${request.url} on ${shell.label} answered ${status}: ${JSON.stringify(body)}`);
  }
  return { status, body: body as T };
}
