/**
 * Private keys never outside their files: given a fleet's private keys and the places the tool
 * writes (results, logs, the Temporal server's history), finds every file that holds any of a
 * key's material, and checks that each key file is mode 0600. Files are read as bytes, so a
 * SQLite database or a log counts as much as a JSON record.
 *
 * What counts as the material: the secret itself, not a header or a public part. A WireGuard key
 * is its base64 text and its 32 raw bytes. A PEM key is the base64 of its secret (RSA's private
 * exponent, Ed25519's seed) as the file wraps it, line by line, so a copy is found however it was
 * re-wrapped or escaped (`\n` in JSON), and its raw bytes; of a PEM this process cannot parse
 * (tinc 1.1's Ed25519), every full line but the last. Each text is also looked for base64-encoded
 * once more (Temporal's JSON payloads, a UI export). Results never carry the material itself.
 */
import { createPrivateKey } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export interface FleetPrivateKey {
  /** Which key, for reports (`wireguard sydney`, `tinc sydney`): never the key itself. */
  name: string;
  /** The key as its file holds it: a WireGuard key (base64), or a PEM private key. */
  material: string;
  /** The files allowed to hold it (its key file, a config that must carry it); each must be mode 0600. */
  files: string[];
}

export interface KeyScan {
  /** Files that hold a key they may not, with the names of the keys found in each. */
  leaks: { file: string; keys: string[] }[];
  /** Key files whose mode is not 0600 (`0644`), or that are `missing`. */
  badModes: { file: string; mode: string }[];
  /** Regular files read (sockets, pipes and symbolic links are not), and their bytes. */
  filesScanned: number;
  bytesScanned: number;
  /** Places given that do not exist: nothing there to leak into. */
  missing: string[];
  /** Files that exist but could not be read: places the scan cannot vouch for. */
  unreadable: { file: string; error: string }[];
}

/** Shorter text could occur by chance; 24 base64 characters are 144 bits of a key. */
const MIN_TEXT = 24;
const MIN_BYTES = 16;
const CHUNK = 8 << 20;

/** Base64 of `text` as it reads inside a longer base64 text, at each of the three alignments (the characters that do not depend on the neighbours). */
function reencoded(text: Buffer): Buffer[] {
  return [0, 1, 2].flatMap((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), text]).toString('base64');
    const inner = encoded.slice(offset > 0 ? 4 : 0, -4);
    return inner.length >= MIN_TEXT ? [Buffer.from(inner)] : [];
  });
}

/** The base64 lines of a PEM's body, as the file wraps them (headers such as `Proc-Type:` left out). */
function pemLines(pem: string): string[] {
  const lines = pem.split(/\r?\n/).map((l) => l.trim());
  const begin = lines.findIndex((l) => l.startsWith('-----BEGIN'));
  const end = lines.findIndex((l, i) => i > begin && l.startsWith('-----END'));
  return lines.slice(begin + 1, end).filter((l) => l && !l.includes(':'));
}

/** The bytes of the key that are secret, where this process can parse it. */
function secretOf(pem: string): Buffer | undefined {
  try {
    const d = createPrivateKey(pem).export({ format: 'jwk' }).d;
    return d ? Buffer.from(d, 'base64url') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pieces of the PEM's base64 that encode only secret bytes, split where its lines break: base64
 * character group g (4 characters) encodes bytes 3g..3g+2, so the groups inside the secret's bytes
 * are the text a copy of the secret must contain.
 */
function pemNeedles(pem: string): { text: Buffer[]; raw: Buffer[] } {
  const lines = pemLines(pem);
  const der = Buffer.from(lines.join(''), 'base64');
  const secret = secretOf(pem);
  const at = secret ? der.indexOf(secret) : -1;
  if (!secret || at < 0) {
    // The last line may hold a public part; a key of one line is all there is.
    const full = Math.max(...lines.map((l) => l.length));
    const body = lines.length > 1 ? lines.slice(0, -1).filter((l) => l.length === full) : lines;
    return { text: body.filter((l) => l.length >= MIN_TEXT).map((l) => Buffer.from(l)), raw: [] };
  }
  const from = Math.ceil(at / 3) * 4;
  const to = Math.floor((at + secret.length) / 3) * 4;
  const text: Buffer[] = [];
  let start = 0;
  for (const line of lines) {
    const piece = line.slice(Math.max(0, from - start), Math.max(0, to - start));
    if (piece.length >= MIN_TEXT) text.push(Buffer.from(piece));
    start += line.length;
  }
  return { text, raw: [secret] };
}

function needlesOf(material: string): Buffer[] {
  const key = material.trim();
  const { text, raw } = key.includes('-----BEGIN')
    ? pemNeedles(key)
    : // A WireGuard key: its padding `=` may be escaped in JSON (\u003d), so it is left out.
      { text: [Buffer.from(key.replace(/=+$/, ''))], raw: [Buffer.from(key, 'base64')] };
  return [...text, ...text.flatMap(reencoded), ...raw.filter((r) => r.length >= MIN_BYTES)];
}

/** Every regular file under the places (a file given itself counts), and the places that are not there. */
async function filesUnder(places: string[]): Promise<{ files: string[]; missing: string[] }> {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = async (place: string): Promise<void> => {
    const stat = await fs.lstat(place);
    if (stat.isFile()) files.push(place);
    if (!stat.isDirectory()) return;
    for (const entry of await fs.readdir(place)) await walk(path.join(place, entry));
  };
  for (const place of places.map((p) => path.resolve(p))) {
    try {
      await walk(place);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(place);
    }
  }
  return { files: [...new Set(files)], missing };
}

/** Which of the keys' needles occur in the file, read a chunk at a time (overlapping by the longest needle). */
async function keysIn(file: string, keys: { name: string; needles: Buffer[] }[]): Promise<{ found: string[]; bytes: number }> {
  const overlap = Math.max(1, ...keys.flatMap((k) => k.needles.map((n) => n.length))) - 1;
  const found = new Set<string>();
  const handle = await fs.open(file, 'r');
  let bytes = 0;
  try {
    const buffer = Buffer.alloc(CHUNK + overlap);
    let kept = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, kept, CHUNK, null);
      if (bytesRead === 0) break;
      bytes += bytesRead;
      const window = buffer.subarray(0, kept + bytesRead);
      for (const key of keys) {
        if (!found.has(key.name) && key.needles.some((n) => window.includes(n))) found.add(key.name);
      }
      kept = Math.min(overlap, window.length);
      window.copy(buffer, 0, window.length - kept);
    }
  } finally {
    await handle.close();
  }
  return { found: [...found], bytes };
}

async function modeOf(file: string): Promise<string> {
  try {
    return ((await fs.stat(file)).mode & 0o7777).toString(8).padStart(4, '0');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
}

/** Scans `places` (directories, walked whole, and files) for the keys' material; see the top of this file. */
export async function scanForPrivateKeys(keys: FleetPrivateKey[], places: string[]): Promise<KeyScan> {
  const wanted = keys.map((k) => ({ name: k.name, needles: needlesOf(k.material), allowed: new Set(k.files.map((f) => path.resolve(f))) }));
  const { files, missing } = await filesUnder(places);
  const scan: KeyScan = { leaks: [], badModes: [], filesScanned: 0, bytesScanned: 0, missing, unreadable: [] };
  for (const file of files) {
    const forbidden = wanted.filter((k) => !k.allowed.has(file));
    if (forbidden.length === 0) continue;
    try {
      const { found, bytes } = await keysIn(file, forbidden);
      scan.filesScanned++;
      scan.bytesScanned += bytes;
      if (found.length > 0) scan.leaks.push({ file, keys: found });
    } catch (err) {
      scan.unreadable.push({ file, error: (err as Error).message });
    }
  }
  for (const file of [...new Set(keys.flatMap((k) => k.files.map((f) => path.resolve(f))))]) {
    const mode = await modeOf(file);
    if (mode !== '0600') scan.badModes.push({ file, mode });
  }
  return scan;
}

/** The scan's findings as lines for a person (file names and key names only), empty when all is well. */
export function keyScanProblems(scan: KeyScan): string[] {
  return [
    ...scan.leaks.map((l) => `${l.file} holds private key material (${l.keys.join(', ')})`),
    ...scan.badModes.map((b) => (b.mode === 'missing' ? `key file ${b.file} is missing` : `key file ${b.file} is mode ${b.mode}, not 0600`)),
    ...scan.unreadable.map((u) => `${u.file} could not be read: ${u.error}`),
  ];
}
