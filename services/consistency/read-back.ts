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

/** Reads the keys back; resolves with what its stdout held once the reader has exited. */
export async function readBack(options: ReadBackOptions): Promise<ReadCounts> {
  const { target, binding, keys, signal } = options;
  signal?.throwIfAborted();
  const counts: ReadCounts = { records: 0, unparsable: 0 };
  if (keys.length === 0) return counts;
  const argv = readBackArgv(binding, options.home ?? ycsbHome(target), Math.max(1, options.threads));
  const log: string[] = [];
  let pid: number | undefined;
  const command = startCommand(hostArgvFor(target, argv), {
    // The keys, then end of input: the reader stops when it has read them all.
    input: `${keys.join('\n')}\n`,
    onStdoutLine: (line) => {
      const record = parseHistoryLine(line);
      if (!record) {
        if (line.length > 0) counts.unparsable++;
        return;
      }
      counts.records++;
      if (record.t === 'f') options.onRead(record);
    },
    onStderrLine: (line) => {
      const m = /^FRAGBENCH-PID (\d+)$/.exec(line);
      if (m) pid = Number(m[1]);
      log.push(line);
      if (log.length > LOG_LINES) log.shift();
    },
  });
  const stop = () => {
    if (pid !== undefined) void execFor(target).run(['kill', '-TERM', String(pid)], { allowFailure: true, timeoutMs: 10_000 });
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
  if (code !== 0) throw new Error(`the final read-back on ${execFor(target).where} ended with exit code ${code}:\n${log.join('\n')}`);
  return counts;
}
