/**
 * The YCSB client on a VM: Java from the distribution's archive (the package has the same name on
 * Ubuntu LTS and Debian), and this checkout's built client (ycsb/target: the jar, its libraries,
 * and ycsb/workloads) shipped through the node's exec into ycsbHome. A stamp file names what was
 * shipped, so the next run ships nothing and a rebuilt client is shipped again.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ExecTarget } from '../../core/inventory';
import { runHost } from '../../platform/command';
import { execFor } from '../exec/transports';

export const YCSB_JAVA_PACKAGE = 'openjdk-17-jre-headless';

const YCSB_DIR = path.resolve(__dirname, '../../ycsb');
const SHIPPED = ['target/fragbench-ycsb.jar', 'target/lib', 'workloads'];
/** A JRE from a cold apt on two cores takes about a minute. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/** What is shipped, as a short hash: file names, sizes and the jar's bytes. */
function clientStamp(): string {
  const hash = createHash('sha256');
  const jar = path.join(YCSB_DIR, SHIPPED[0]);
  hash.update(readFileSync(jar));
  for (const dir of SHIPPED.slice(1)) {
    for (const file of readdirSync(path.join(YCSB_DIR, dir)).sort()) hash.update(`${dir}/${file}:${statSync(path.join(YCSB_DIR, dir, file)).size}\n`);
  }
  return hash.digest('hex').slice(0, 12);
}

export async function ensureYcsbClient(target: Extract<ExecTarget, { transport: 'ssh' }>, home: string): Promise<void> {
  const exec = execFor(target);
  const root = (argv: string[]) => (target.user === 'root' ? argv : ['sudo', '-n', ...argv]);
  const stamp = clientStamp();
  const marker = path.posix.join(home, `.fragbench-shipped-${stamp}`);
  if ((await exec.run(['test', '-f', marker], { allowFailure: true })).code === 0) return;
  if ((await exec.run(['sh', '-c', 'command -v java'], { allowFailure: true })).code !== 0) {
    // In argv, not ExecOptions.env: over SSH only argv reaches the node.
    const apt = (...args: string[]) =>
      exec.run(root(['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args]), { timeoutMs: INSTALL_TIMEOUT_MS });
    await apt('update', '-qq');
    await apt('install', '-y', '-qq', YCSB_JAVA_PACKAGE);
  }
  // base64: the transports carry text; the tarball is ~25 MB, ~34 MB as text.
  const { stdout: tarball } = await runHost(['sh', '-c', 'dir=$1; shift; tar -C "$dir" -czf - "$@" | base64 -w0', 'sh', YCSB_DIR, ...SHIPPED]);
  await exec.run(root(['sh', '-c', 'rm -rf "$1" && mkdir -p "$1" && base64 -d | tar -xzf - -C "$1" && touch "$2"', 'sh', home, marker]), {
    input: tarball,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
}
