/**
 * The private-key scan (operations/fleet/secret-scan.ts) on a fleet laid out as the local fleet
 * lays its keys (a scratch state root: WireGuard keys and interface configs, tinc RSA keys and
 * host files), a copy of a stored run, SQLite files and a log: keys planted as a record's field,
 * as a PEM escaped in JSON, as text in a database and base64-encoded inside a payload are all
 * found; the key files themselves, public keys and PEM headers alone are not flagged; a key file
 * that others can read is.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import type { CellRecord } from '../../core/run-record';
import type { FleetState } from '../../infra/local/state';
import type * as FleetKeys from '../../operations/fleet/fleet-keys';
import { keyScanProblems, scanForPrivateKeys, type FleetPrivateKey } from '../../operations/fleet/secret-scan';

// The fleet's paths are fixed when its module loads: point them at a scratch state root first.
const stateRoot = mkdtempSync(path.join(tmpdir(), 'fb-secret-scan-'));
const savedStateDir = process.env.FRAGBENCH_STATE_DIR;
process.env.FRAGBENCH_STATE_DIR = stateRoot;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the state root is set, which an import would precede
const { localFleetKeys, keyScanPlaces } = require('../../operations/fleet/fleet-keys') as typeof FleetKeys;

const fleetDir = path.join(stateRoot, 'fleet');
const resultsDir = path.join(stateRoot, 'results');
const FIXTURE_RUN = path.resolve(__dirname, '../report/fixtures/runs/quickstart-20261121-114113');

/** A WireGuard key as `wg genkey` prints it: 32 bytes of X25519 private key, base64. */
function wireguardKey(): string {
  return `${Buffer.from(generateKeyPairSync('x25519').privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('base64')}\n`;
}

/** A tinc 1.0 key pair as `tincd -K` writes it: PKCS#1 PEM. */
function tincKeys() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

function writeKey(file: string, content: string, mode = 0o600): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, content);
  chmodSync(file, mode);
}

const nodes = ['sydney', 'mumbai'];
const wg = Object.fromEntries(nodes.map((n) => [n, wireguardKey()]));
const tinc = Object.fromEntries(nodes.map((n) => [n, tincKeys()]));
let keys: FleetPrivateKey[];

beforeAll(() => {
  for (const node of nodes) {
    writeKey(path.join(fleetDir, 'keys', `${node}.wg.key`), wg[node]);
    writeKey(path.join(fleetDir, 'keys', `wg-${node}0.conf`), `[Interface]\nPrivateKey = ${wg[node].trim()}\nListenPort = 51820\n`);
    writeKey(path.join(fleetDir, 'tinc', node, 'rsa_key.priv'), tinc[node].privateKey);
    // Public keys are everywhere they are needed: never a leak.
    for (const peer of nodes) writeKey(path.join(fleetDir, 'tinc', node, 'hosts', peer), `Subnet = 198.18.0.1/32\n${tinc[peer].publicKey}`, 0o644);
  }
  const plan = { nodes: nodes.map((name) => ({ name, interfaces: [{ name: `wg-${name}0` }] })) };
  writeFileSync(path.join(fleetDir, 'state.json'), JSON.stringify({ status: 'up', plan }));
  mkdirSync(path.join(fleetDir, 'logs'), { recursive: true });
  writeFileSync(path.join(fleetDir, 'logs', 'tinc-sydney.log'), 'tincd 1.0.36 starting, debug level 0\nReady\n');
  keys = localFleetKeys({ status: 'up', plan } as unknown as FleetState);
});

afterAll(() => {
  rmSync(stateRoot, { recursive: true, force: true });
  if (savedStateDir === undefined) delete process.env.FRAGBENCH_STATE_DIR;
  else process.env.FRAGBENCH_STATE_DIR = savedStateDir;
});

beforeEach(() => {
  rmSync(resultsDir, { recursive: true, force: true });
  cpSync(FIXTURE_RUN, path.join(resultsDir, path.basename(FIXTURE_RUN)), { recursive: true });
});

async function sqlite(file: string, sql: string): Promise<void> {
  await runHost(['sqlite3', file], { input: sql });
}

const hex = (b: Buffer | string) => Buffer.from(b).toString('hex');

test("the local fleet's keys are read where it keeps them, each with the files allowed to hold it", () => {
  expect(keys.map((k) => [k.name, k.files.map((f) => path.relative(fleetDir, f))])).toEqual([
    ['wireguard sydney', ['keys/sydney.wg.key', 'keys/wg-sydney0.conf']],
    ['tinc sydney', ['tinc/sydney/rsa_key.priv']],
    ['wireguard mumbai', ['keys/mumbai.wg.key', 'keys/wg-mumbai0.conf']],
    ['tinc mumbai', ['tinc/mumbai/rsa_key.priv']],
  ]);
  expect(keyScanPlaces(resultsDir)).toEqual([
    resultsDir,
    fleetDir,
    path.join(stateRoot, 'temporal-dev.db'),
    path.join(stateRoot, 'temporal-dev.db-wal'),
    path.join(stateRoot, 'temporal-dev.db-shm'),
    path.join(stateRoot, 'temporal-dev.db-journal'),
    path.join(stateRoot, 'temporal-dev.log'),
  ]);
});

test('a clean host: the key files and public keys are not leaks, every key file is 0600', async () => {
  // The history holds public keys and PEM headers, as an inventory or a log line might.
  await sqlite(
    path.join(stateRoot, 'temporal-dev.db'),
    `CREATE TABLE h (data BLOB); INSERT INTO h VALUES (X'${hex(tinc.sydney.publicKey)}'), ('-----BEGIN RSA PRIVATE KEY-----');`,
  );
  const scan = await scanForPrivateKeys(keys, keyScanPlaces(resultsDir));
  expect(keyScanProblems(scan)).toEqual([]);
  expect(scan.filesScanned).toBeGreaterThanOrEqual(8);
  expect(scan.missing).toEqual(expect.arrayContaining([path.join(stateRoot, 'temporal-dev.db-wal'), path.join(stateRoot, 'temporal-dev.log')]));
});

test('keys planted in a stored run and in SQLite files are found, however they were written', async () => {
  const cellFile = path.join(resultsDir, path.basename(FIXTURE_RUN), 'cells', 'c1-lsf0.02.json');
  const cell = JSON.parse(readFileSync(cellFile, 'utf8')) as CellRecord;
  // A PEM in a JSON string: its lines joined by `\n` escapes.
  cell.phases[0].events.push({ kind: 'tool-fault', label: 'x', scheduledOffsetS: 0, requestedAt: 0, detail: { config: tinc.mumbai.privateKey } });
  writeFileSync(cellFile, JSON.stringify(cell));
  appendFileSync(path.join(resultsDir, path.basename(FIXTURE_RUN), 'run.json'), `\n${JSON.stringify({ wireguard: wg.sydney.trim() })}`);

  const db = path.join(stateRoot, 'temporal-dev.db');
  const wal = path.join(stateRoot, 'temporal-dev.db-wal');
  // Temporal keeps an activity's input as JSON bytes in a protobuf blob; a UI export base64-encodes that JSON again.
  const payload = JSON.stringify({ fleet: { kind: 'local' }, privateKey: wg.mumbai.trim() });
  await sqlite(
    db,
    `CREATE TABLE history (id INTEGER, data BLOB); INSERT INTO history VALUES (1, X'0a0c${hex(`{"export":"${Buffer.from(payload).toString('base64')}"}`)}');`,
  );
  // The same tinc key as text, in a file that merely sits where SQLite's journal would.
  writeFileSync(wal, Buffer.concat([randomBytes(4096), Buffer.from(tinc.sydney.privateKey), randomBytes(4096)]));
  // A log that dumped the key's bytes.
  writeFileSync(
    path.join(resultsDir, 'worker.log'),
    Buffer.concat([Buffer.from('raw: '), Buffer.from(wg.mumbai.trim(), 'base64'), Buffer.from('\n')]),
  );

  const scan = await scanForPrivateKeys(keys, keyScanPlaces(resultsDir));
  const leaks = Object.fromEntries(scan.leaks.map((l) => [path.relative(stateRoot, l.file), l.keys]));
  expect(leaks).toEqual({
    'results/quickstart-20261121-114113/cells/c1-lsf0.02.json': ['tinc mumbai'],
    'results/quickstart-20261121-114113/run.json': ['wireguard sydney'],
    'temporal-dev.db': ['wireguard mumbai'],
    'temporal-dev.db-wal': ['tinc sydney'],
    'results/worker.log': ['wireguard mumbai'],
  });
  // What a person reads names files and keys, never the material.
  const report = keyScanProblems(scan).join('\n');
  expect(report).toMatch(/temporal-dev\.db holds private key material \(wireguard mumbai\)/);
  for (const key of [...Object.values(wg), ...Object.values(tinc).map((t) => t.privateKey)]) expect(report).not.toContain(key.trim().slice(0, 30));
});

test('a key in a file of another key is a leak; a key file others can read is flagged; a pipe is passed over', async () => {
  const mumbaiConfig = path.join(fleetDir, 'keys', 'wg-mumbai0.conf');
  const config = readFileSync(mumbaiConfig, 'utf8');
  try {
    writeFileSync(mumbaiConfig, `${config}# copied by mistake: ${wg.sydney.trim()}\n`);
    chmodSync(path.join(fleetDir, 'tinc', 'sydney', 'rsa_key.priv'), 0o644);
    await runHost(['mkfifo', path.join(fleetDir, 'emulator.sock')]);
    const scan = await scanForPrivateKeys(keys, [fleetDir]);
    expect(scan.leaks).toEqual([{ file: mumbaiConfig, keys: ['wireguard sydney'] }]);
    expect(scan.badModes).toEqual([{ file: path.join(fleetDir, 'tinc', 'sydney', 'rsa_key.priv'), mode: '0644' }]);
  } finally {
    writeKey(mumbaiConfig, config);
    chmodSync(path.join(fleetDir, 'tinc', 'sydney', 'rsa_key.priv'), 0o600);
    rmSync(path.join(fleetDir, 'emulator.sock'), { force: true });
  }
});

test("only the secret counts: a copy of an RSA key's public half, in any wrapping, is not its leak", async () => {
  const publicDer = Buffer.from(
    tinc.sydney.publicKey
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join(''),
    'base64',
  );
  writeFileSync(path.join(resultsDir, 'inventory.json'), JSON.stringify({ tinc: publicDer.toString('base64'), der: publicDer.toString('latin1') }));
  const scan = await scanForPrivateKeys(keys, [resultsDir]);
  expect(scan.leaks).toEqual([]);
});

test("a PEM this process cannot parse (tinc 1.1's Ed25519) is looked for by its full lines but the last", async () => {
  const body = randomBytes(96).toString('base64');
  const pem = `-----BEGIN ED25519 PRIVATE KEY-----\n${body.slice(0, 64)}\n${body.slice(64)}\n-----END ED25519 PRIVATE KEY-----\n`;
  const keyFile = path.join(stateRoot, 'ed25519_key.priv');
  writeKey(keyFile, pem);
  writeFileSync(path.join(resultsDir, 'leak.txt'), `first line only: ${body.slice(0, 64)}`);
  writeFileSync(path.join(resultsDir, 'public.txt'), `last line only: ${body.slice(64)}`);
  const scan = await scanForPrivateKeys([{ name: 'tinc ed25519', material: pem, files: [keyFile] }], [resultsDir]);
  expect(scan.leaks).toEqual([{ file: path.join(resultsDir, 'leak.txt'), keys: ['tinc ed25519'] }]);
});
