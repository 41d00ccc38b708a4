/**
 * Checks one run phase's histories (its own client's and those of the clients ramped into it):
 * the files merged in end-time order through the register check, then every key written read
 * back once, then the result: per second into the phase's `consistency` stream, the rest
 * returned for the phase's record. The histories are gzipped once checked and kept beside the
 * cell's record. A retried check reads them again and writes the same result.
 */
import type { YcsbBinding } from '../../core/database';
import type { ExecTarget } from '../../core/inventory';
import type { PhaseCheckInput, PhaseConsistency } from '../../core/consistency/consistency';
import { RegisterChecker } from '../../core/consistency/register-check';
import type { YcsbSettings } from '../../core/ycsb';
import type { ResultsStore } from '../results/results-store';
import { gzipHistory, mergeHistories, type ReadCounts } from './history-reader';
import { readBack } from './read-back';

export interface PhaseCheckDeps {
  store: ResultsStore;
  /** The client node and the phase's binding (the plain one: the read-back wraps it itself). */
  target: ExecTarget;
  binding: YcsbBinding;
  home?: string;
  signal?: AbortSignal;
}

/** Read-back threads: the phase's own count, within reason for one short pass. */
const MAX_READ_BACK_THREADS = 32;

/**
 * The longest one operation may take, µs: every attempt's timeout, one more for a connection
 * pool's wait, and 5 s for a stalled JVM. The check forgets superseded writes older than this.
 */
export function maxOperationUs(settings: Pick<YcsbSettings, 'timeoutMs' | 'retries'>): number {
  return (settings.timeoutMs * (settings.retries + 2) + 5_000) * 1000;
}

/** The result without its seconds (those are in the phase's `consistency` stream). */
export async function checkPhaseConsistency(input: PhaseCheckInput, deps: PhaseCheckDeps): Promise<PhaseConsistency> {
  const { store } = deps;
  const [phaseIndex] = input.phaseIndexes;
  const files = await store.historyFiles(input.runId, input.cellId, input.phaseIndexes);
  const checker = new RegisterChecker({
    originMs: input.originMs,
    clients: files.map((f) => f.client),
    maxOperationUs: maxOperationUs(input.settings),
  });
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  for await (const record of mergeHistories(
    files.map((f) => f.path),
    counts,
  )) {
    checker.add(record);
    deps.signal?.throwIfAborted();
  }
  const readCounts = await readBack({
    target: deps.target,
    binding: deps.binding,
    keys: checker.keysWritten(),
    threads: Math.min(MAX_READ_BACK_THREADS, input.settings.threads),
    onRead: (read) => checker.addFinal(read),
    home: deps.home,
    signal: deps.signal,
  });
  const result = checker.result();
  result.history.records = counts.records;
  result.history.unparsable = counts.unparsable + readCounts.unparsable;
  await store.writeStream(input.runId, input.cellId, phaseIndex, 'consistency', result.seconds);
  for (const file of files) await gzipHistory(file.path);
  return { ...result, seconds: [] };
}
