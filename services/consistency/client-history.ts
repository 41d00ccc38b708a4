/** A checked client process's history: a fresh client id, unique in the run, and its file in the results store. */
import { randomBytes } from 'node:crypto';
import type { SampleSink } from '../../core/ycsb';
import type { HistoryTarget } from '../ycsb/command';
import type { ResultsStore } from '../results/results-store';

/** 8 base-36 characters: a marker stays short, and two processes of one run never share one. */
export function newClientId(): string {
  return randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8);
}

export async function newHistoryTarget(store: ResultsStore, sink: SampleSink): Promise<HistoryTarget> {
  const client = newClientId();
  return { client, file: await store.historyFile(sink.runId, sink.cellId, sink.phaseIndex, client) };
}
