/**
 * The final read-back of a checked phase: every key the phase wrote is read once, with all its
 * fields, by ycsb/.../ReadBack.java on the client node through the phase's binding, and each read
 * comes back as a history record (type `f`) on its stdout, handed over as it arrives.
 */
import type { YcsbBinding } from '../../core/database';
import type { ReadRecord } from '../../core/consistency/history';
import type { ExecTarget } from '../../core/inventory';
import { startCommand } from '../../platform/command';
import { execFor, hostArgvFor } from '../exec/transports';
import { readBackArgv, ycsbHome } from '../ycsb/command';
import { parseHistoryLine, type ReadCounts } from './history-reader';

export interface ReadBackOptions {
  target: ExecTarget;
  binding: YcsbBinding;
  keys: string[];
  threads: number;
  onRead: (read: ReadRecord) => void;
  home?: string;
  /** Stops the reader (by PID on its node too) and rejects with the reason. */
  signal?: AbortSignal;
}

const LOG_LINES = 20;

/** Reads the keys back on the client node; resolves with what its stdout held once the reader has exited. */
export async function readBack(options: ReadBackOptions): Promise<ReadCounts> {
  const { target, binding, signal } = options;
  const argv = readBackArgv(binding, options.home ?? ycsbHome(target), Math.max(1, options.threads));
  return runReadBack(hostArgvFor(target, argv), options.keys, options.onRead, {
    where: execFor(target).where,
    stop: (pid) => void execFor(target).run(['kill', '-TERM', String(pid)], { allowFailure: true, timeoutMs: 10_000 }),
    signal,
  });
}

/**
 * Runs a read-back command line (readBackArgv, made to run where the client runs) with the keys
 * on its stdin, handing each read over as it arrives. `stop` ends it by the PID it printed,
 * where the process is not this host's child.
 */
export async function runReadBack(
  argv: string[],
  keys: string[],
  onRead: (read: ReadRecord) => void,
  options: { where: string; stop?: (pid: number) => void; signal?: AbortSignal } = { where: 'this host' },
): Promise<ReadCounts> {
  const { signal } = options;
  signal?.throwIfAborted();
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  if (keys.length === 0) return counts;
  const log: string[] = [];
  let pid: number | undefined;
  const command = startCommand(argv, {
    // The keys, then end of input: the reader stops when it has read them all.
    input: `${keys.join('\n')}\n`,
    onStdoutLine: (line) => {
      const record = parseHistoryLine(line);
      if (!record) {
        if (line.length > 0) counts.unparsable++;
        return;
      }
      counts.records++;
      if (record.t === 'f') onRead(record);
    },
    onStderrLine: (line) => {
      const m = /^FRAGBENCH-PID (\d+)$/.exec(line);
      if (m) pid = Number(m[1]);
      log.push(line);
      if (log.length > LOG_LINES) log.shift();
    },
  });
  const stop = () => {
    if (pid !== undefined) options.stop?.(pid);
    command.kill('SIGTERM');
  };
  signal?.addEventListener('abort', stop, { once: true });
  let code: number;
  try {
    code = await command.exited;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  signal?.throwIfAborted();
  if (code !== 0) throw new Error(`the final read-back on ${options.where} ended with exit code ${code}:\n${log.join('\n')}`);
  return counts;
}
