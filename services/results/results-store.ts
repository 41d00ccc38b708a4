/**
 * The results store: one directory per run, laid out as core/run-record.ts describes. The one
 * place that knows the layout; the results activities write through it and the report and the
 * CLI read through it. Every write replaces its file atomically (temp file + rename), so a
 * reader, or a run killed mid-write, never sees half a record. A write the disk refuses (full,
 * read-only, failing) is a StorageError that names the file, and leaves what was stored intact.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError, storageErrorOf } from '../../core/errors';
import type { CellRecord, RunRecord } from '../../core/run-record';
import { latestPerSecond, type Sample } from '../../core/samples';

/**
 * What a phase streams while it runs: load samples, host telemetry, in-run RTT probes, faults,
 * overlay paths; and what its consistency check found per second (written once, after the phase).
 */
export type PhaseStream = 'samples' | 'telemetry' | 'probes' | 'faults' | 'paths' | 'consistency';

/** One client process's checked history (`<phaseIndex>.<client>.jsonl`, gzipped once checked). */
export interface HistoryFile {
  phaseIndex: number;
  client: string;
  path: string;
}

const HISTORY_FILE = /^(\d+)\.([a-z0-9-]+)\.jsonl(\.gz)?$/;

/** $FRAGBENCH_RESULTS_DIR, or ./results in the working directory. */
export function defaultResultsDir(): string {
  return path.resolve(process.env.FRAGBENCH_RESULTS_DIR || 'results');
}

// A run or cell id becomes a directory or file name: letters, digits, dot, dash, underscore,
// starting with a letter or digit (so never `.`, `..` or a hidden file).
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Returns the value when it is a safe path segment; otherwise an InputError naming `field`. */
export function checkPathSegment(value: unknown, field: string): string {
  if (typeof value !== 'string' || !SAFE_SEGMENT.test(value)) {
    throw new InputError(
      field,
      `${JSON.stringify(value)} is not a usable id: use 1-128 letters, digits, '.', '-' or '_', starting with a letter or digit`,
    );
  }
  return value;
}

/**
 * Writes data to file so that the file holds either the old or the new content, never a mix. A
 * failed write leaves no temporary file behind (on a full disk it would hold the space).
 */
export async function writeFileAtomic(file: string, data: string | Buffer): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw storageErrorOf(err, file, path.dirname(file));
  }
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

export class ResultsStore {
  readonly root: string;

  constructor(root: string = defaultResultsDir()) {
    this.root = path.resolve(root);
  }

  runDir(runId: string): string {
    return path.join(this.root, checkPathSegment(runId, 'runId'));
  }

  reportDir(runId: string): string {
    return path.join(this.runDir(runId), 'report');
  }

  /** The run's report page (written by report/write-report.ts). */
  reportFile(runId: string): string {
    return path.join(this.reportDir(runId), 'index.html');
  }

  private runFile(runId: string): string {
    return path.join(this.runDir(runId), 'run.json');
  }

  private cellFile(runId: string, cellId: string): string {
    return path.join(this.runDir(runId), 'cells', `${checkPathSegment(cellId, 'cell.cellId')}.json`);
  }

  async hasRun(runId: string): Promise<boolean> {
    const file = this.runFile(runId);
    try {
      await fs.access(file);
      return true;
    } catch {
      return false;
    }
  }

  /** mkdir -p, a refusal of the disk's being a StorageError like any write's. */
  private async makeDir(dir: string): Promise<void> {
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (err) {
      throw storageErrorOf(err, dir, this.root);
    }
  }

  async writeRun(record: RunRecord): Promise<string> {
    const dir = this.runDir(record.runId);
    await this.makeDir(path.join(dir, 'cells'));
    await writeFileAtomic(this.runFile(record.runId), `${JSON.stringify(record, null, 2)}\n`);
    return dir;
  }

  async readRun(runId: string): Promise<RunRecord> {
    if (!(await this.hasRun(runId))) {
      throw new InputError('runId', `no run "${runId}" under ${this.root} (list them with \`fragbench runs\`)`);
    }
    return readJson<RunRecord>(this.runFile(runId));
  }

  /** Cells are stored compactly: they carry one sample per second and can be large. */
  async writeCell(runId: string, cell: CellRecord): Promise<void> {
    const file = this.cellFile(runId, cell.cellId);
    await this.makeDir(path.dirname(file));
    await writeFileAtomic(file, `${JSON.stringify(cell)}\n`);
  }

  private streamsDir(runId: string, cellId: string): string {
    return path.join(this.runDir(runId), 'cells', `${checkPathSegment(cellId, 'cellId')}.parts`);
  }

  private streamFile(runId: string, cellId: string, phaseIndex: number, stream: PhaseStream): string {
    if (!Number.isInteger(phaseIndex) || phaseIndex < 0) throw new InputError('phaseIndex', `${JSON.stringify(phaseIndex)} is not a whole number ≥ 0`);
    return path.join(this.streamsDir(runId, cellId), `${phaseIndex}.${stream}.jsonl`);
  }

  /**
   * Appends records to one of a phase's streams as they arrive (a line each, flushed to disk
   * before returning), so a worker that dies loses at most the second it was writing.
   */
  async appendStream(runId: string, cellId: string, phaseIndex: number, stream: PhaseStream, records: unknown[]): Promise<void> {
    const file = this.streamFile(runId, cellId, phaseIndex, stream);
    if (records.length === 0) return;
    await this.makeDir(path.dirname(file));
    try {
      const handle = await fs.open(file, 'a');
      try {
        const { size } = await handle.stat();
        try {
          await handle.appendFile(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
          await handle.sync();
        } catch (err) {
          // A full disk takes part of a line: cut it off, so that the stream stays whole lines
          // even if a later append (space freed, a retried attempt) lands after it.
          await handle.truncate(size).catch(() => undefined);
          throw err;
        }
      } finally {
        await handle.close();
      }
    } catch (err) {
      throw storageErrorOf(err, file, this.root);
    }
  }

  /** Replaces a stream with `records` at once (a result computed after the phase, which a retry computes again). */
  async writeStream(runId: string, cellId: string, phaseIndex: number, stream: PhaseStream, records: unknown[]): Promise<void> {
    const file = this.streamFile(runId, cellId, phaseIndex, stream);
    await this.makeDir(path.dirname(file));
    await writeFileAtomic(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  /**
   * Where a cell's checked histories are kept: beside its record, and kept with it when the run
   * finishes (they are the evidence behind its consistency results).
   */
  historyDir(runId: string, cellId: string): string {
    return path.join(this.runDir(runId), 'cells', `${checkPathSegment(cellId, 'cellId')}.history`);
  }

  /** The history file one client process of phase `phaseIndex` writes; its directory is made. */
  async historyFile(runId: string, cellId: string, phaseIndex: number, client: string): Promise<string> {
    if (!/^[a-z0-9-]+$/.test(client)) throw new InputError('client', `${JSON.stringify(client)} is not a client id: use lower-case letters, digits and '-'`);
    const dir = this.historyDir(runId, cellId);
    await this.makeDir(dir);
    return path.join(dir, `${phaseIndex}.${client}.jsonl`);
  }

  /** The histories of the given phases, in phase then client order; a gzipped one where both are found. */
  async historyFiles(runId: string, cellId: string, phaseIndexes: number[]): Promise<HistoryFile[]> {
    const dir = this.historyDir(runId, cellId);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const byClient = new Map<string, HistoryFile>();
    for (const name of names.sort()) {
      const m = HISTORY_FILE.exec(name);
      if (!m || !phaseIndexes.includes(Number(m[1]))) continue;
      const key = `${m[1]}.${m[2]}`;
      // Both a file and its .gz (a check that stopped after gzipping it): the .gz is the whole one.
      if (!byClient.has(key) || m[3]) byClient.set(key, { phaseIndex: Number(m[1]), client: m[2], path: path.join(dir, name) });
    }
    return [...byClient.values()].sort((a, b) => a.phaseIndex - b.phaseIndex || a.client.localeCompare(b.client));
  }

  /** Every whole record of a stream in the order written; a torn last line (a crash mid-write) is skipped. */
  async readStream<T>(runId: string, cellId: string, phaseIndex: number, stream: PhaseStream): Promise<T[]> {
    return (await this.readStreamLines<T>(runId, cellId, phaseIndex, stream)).records;
  }

  /**
   * A stream's records and the lines that did not parse (1-based, `last` when it is the final
   * line: the one a writer that died may have left half written).
   */
  async readStreamLines<T>(runId: string, cellId: string, phaseIndex: number, stream: PhaseStream): Promise<{ records: T[]; unparsable: { line: number; last: boolean }[] }> {
    let text: string;
    try {
      text = await fs.readFile(this.streamFile(runId, cellId, phaseIndex, stream), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], unparsable: [] };
      throw err;
    }
    const lines = text.split('\n');
    const lastLine = lines.length - (lines.at(-1) === '' ? 1 : 0);
    const records: T[] = [];
    const unparsable: { line: number; last: boolean }[] = [];
    lines.forEach((line, i) => {
      if (!line) return;
      try {
        records.push(JSON.parse(line) as T);
      } catch {
        unparsable.push({ line: i + 1, last: i + 1 === lastLine });
      }
    });
    return { records, unparsable };
  }

  /** Phase indexes that have streams on disk for a cell (a cell whose record was never written). */
  async streamedPhases(runId: string, cellId: string): Promise<number[]> {
    const files = await fs.readdir(this.streamsDir(runId, cellId)).catch(() => [] as string[]);
    return [...new Set(files.map((f) => /^(\d+)\./.exec(f)?.[1]).filter((x): x is string => x !== undefined).map(Number))].sort((a, b) => a - b);
  }

  /** A phase's streamed samples, one per second: a later record of the same second replaces an earlier one. */
  async readSampleStream(runId: string, cellId: string, phaseIndex: number): Promise<Sample[]> {
    return latestPerSecond(await this.readStream<Sample>(runId, cellId, phaseIndex, 'samples'));
  }

  /** Drops a cell's streams once its record holds them. */
  async removeStreams(runId: string, cellId: string): Promise<void> {
    await fs.rm(this.streamsDir(runId, cellId), { recursive: true, force: true });
  }

  async readCell(runId: string, cellId: string): Promise<CellRecord> {
    return readJson<CellRecord>(this.cellFile(runId, cellId));
  }

  /** The run's cells in the run's order; cells listed but never written (a failed run) are skipped. */
  async readCells(run: RunRecord): Promise<CellRecord[]> {
    const cells: CellRecord[] = [];
    for (const cellId of run.cellIds) {
      try {
        cells.push(await this.readCell(run.runId, cellId));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return cells;
  }

  /** Every readable run under the root, newest first. */
  async listRuns(): Promise<RunRecord[]> {
    let entries: string[];
    try {
      entries = await fs.readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const runs: RunRecord[] = [];
    for (const entry of entries) {
      if (!SAFE_SEGMENT.test(entry)) continue;
      try {
        runs.push(await readJson<RunRecord>(this.runFile(entry)));
      } catch {
        // Not a run directory (or one being created): nothing to list.
      }
    }
    return runs.sort((a, b) => b.startedAt - a.startedAt);
  }
}
