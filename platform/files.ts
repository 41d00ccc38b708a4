/**
 * Files of fragbench's own state: written atomically (a reader, or a process that crashed
 * mid-write, sees the old content or the new, never half of it), read as JSON that may not exist
 * yet, and created exclusively where a file is a claim (a lock, a lease).
 */
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface WriteOptions {
  /** Permission bits of the file (default 0644); applied before the file appears under its name. */
  mode?: number;
  /** Permission bits of directories created on the way (default 0755). */
  dirMode?: number;
}

/** Modes for what only root may read: keys, configs that hold keys, the fleet's state. */
export const PRIVATE: WriteOptions = { mode: 0o600, dirMode: 0o700 };

/**
 * Writes a temporary file beside the target, flushes it to disk, then renames it over the target.
 * The temporary name is unique to the write, so two writers never interleave in one file.
 */
export function writeFileAtomic(file: string, content: string, options: WriteOptions = {}): void {
  mkdirSync(dirname(file), { recursive: true, mode: options.dirMode ?? 0o755 });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  // open's mode is masked by the umask: create private, then set the mode exactly before the rename.
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    chmodSync(temp, options.mode ?? 0o644);
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** A file only root can read (0600 unless `mode` says otherwise, directories 0700). */
export function writePrivate(file: string, content: string, mode = 0o600): void {
  writeFileAtomic(file, content, { ...PRIVATE, mode });
}

/** Pretty JSON with a final newline, written atomically. */
export function writeJsonAtomic(file: string, value: unknown, options?: WriteOptions): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, options);
}

/** The parsed JSON in `file`, or undefined when there is no such file; other errors are thrown. */
export function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as T;
}

/**
 * Creates `file` with `content` only if it does not exist; returns false if it does. What makes a
 * lock or a lease a claim: of two processes trying at once, exactly one gets true.
 */
export function createExclusive(file: string, content: string, options: WriteOptions = PRIVATE): boolean {
  mkdirSync(dirname(file), { recursive: true, mode: options.dirMode ?? 0o700 });
  let fd: number;
  try {
    fd = openSync(file, 'wx', options.mode ?? 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}
