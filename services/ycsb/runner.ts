/**
 * Runs one YCSB phase on a node and returns its per-second series. Independent of Temporal:
 * the load activities wrap it with heartbeats and cancellation.
 */
import type { ExecTarget } from '../../core/inventory';
import type { YcsbBinding } from '../../core/database';
import type { RunSeries, Sample } from '../../core/samples';
import { tail } from '../../core/exec';
import type { YcsbSettings } from '../../core/ycsb';
import { oomCause, oomKills } from '../../platform/oom';
import { execFor } from '../exec/transports';
import { ensureYcsbClient } from './client-install';
import { checkedBinding, ycsbArgv, ycsbHome, validateYcsbSettings, type HistoryTarget, type YcsbPhase } from './command';
import { fetchRemoteFile } from '../exec/remote-file';
import { parseYcsbLine } from './output';
import { buildSeries, latestSample, type YcsbOutput } from './series';
import { parseSummary } from './summary';
import { spawnStreaming } from './process';

export interface YcsbRunOptions {
  /** The client node. */
  target: ExecTarget;
  phase: YcsbPhase;
  settings: YcsbSettings;
  binding: YcsbBinding;
  /** Where ycsb/ is on the client node; see ycsbHome. */
  home?: string;
  /** Called with each second as soon as it is complete. */
  onSample?: (sample: Sample) => void;
  /** Aborting stops the client (by PID) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * A checked run (ycsb.check): the client writes its history to this file on this host (on a
   * VM, to a file of its own, fetched here when it exits, whatever the exit).
   */
  history?: HistoryTarget;
}

/** Lines of other output kept for error messages. */
const LOG_LINES = 40;
/**
 * How long a stopped client gets to exit before it is killed. Short: every second it reported is
 * stored already, and a cancelled run's cleanup (links restored) waits for the client to be gone.
 */
const STOP_GRACE_MS = 1000;

/** How a client ended by itself before its work was done: what restarting it records as the cause. */
export interface ClientExit {
  /** Exit code (128 + the signal's number when a signal ended it). */
  code: number;
  /** The signal that ended it, when this host saw one (a client in one of its namespaces). */
  signal?: NodeJS.Signals;
  /** Epoch ms this host saw the exit, and how long the process had run by then. */
  at: number;
  ranMs: number;
  /** One line: `signal SIGKILL; likely OOM-killed (…)`, `exit code 1`, `the binding failed to start: …`. */
  cause: string;
  /** How much the kernel's OOM-kill count rose while it ran, when it did. */
  oomKills?: number;
}

export class YcsbError extends Error {
  /** exit: set when the client ended by itself (not when it was stopped). */
  constructor(
    message: string,
    readonly log: string,
    readonly exit?: ClientExit,
  ) {
    super(`${message}\n${log}`);
    this.name = 'YcsbError';
  }
}

export async function runYcsb(options: YcsbRunOptions): Promise<RunSeries> {
  const { target, phase, settings, binding, signal, history } = options;
  validateYcsbSettings(settings);
  signal?.throwIfAborted();
  const home = options.home ?? ycsbHome(target);
  // A VM gets Java and the client on its first run (nothing in the stacks installs them).
  if (target.transport === 'ssh') await ensureYcsbClient(target, home);
  // A VM writes its history where it runs; namespaces share this host's files.
  const remoteHistory = history && target.transport === 'ssh' ? { ...history, file: `/tmp/fragbench-history-${history.client}.jsonl` } : undefined;
  const argv = ycsbArgv(phase, settings, history ? checkedBinding(binding, remoteHistory ?? history) : binding, home);
  if (!remoteHistory) return runClient(options, argv);
  try {
    return await runClient(options, argv);
  } finally {
    // Fetched however the client ended: the check reads what it wrote. A fetch that fails leaves
    // the history empty, which the check reports as missing.
    await fetchRemoteFile(target, remoteHistory.file, history!.file);
  }
}

async function runClient(options: YcsbRunOptions, argv: string[]): Promise<RunSeries> {
  const { target, phase, settings, binding, signal } = options;
  const where = target.transport === 'netns' ? target.namespace : target.host;

  // Only a client on this host can be this kernel's OOM victim.
  const oomBefore = target.transport === 'netns' ? oomKills() : undefined;
  const startedAt = Date.now();
  const output: YcsbOutput = { statuses: [], intervals: [] };
  const log: string[] = [];
  let pid: number | undefined;
  let clientCpuMs: number | undefined;
  let clientCpuAtReadyMs: number | undefined;
  let dbFailure: string | undefined;

  const proc = spawnStreaming(target, argv, (raw) => {
    const line = parseYcsbLine(raw);
    switch (line.kind) {
      case 'interval':
        output.intervals.push(line);
        break;
      case 'ready':
        output.readyMs = line.timeMs;
        break;
      case 'pid':
        pid = line.pid;
        break;
      case 'cpu':
        clientCpuMs = line.cpuMs;
        break;
      case 'cpu-ready':
        clientCpuAtReadyMs = line.cpuMs;
        break;
      case 'status': {
        output.statuses.push({ line, receivedAt: Date.now() });
        const sample = options.onSample && latestSample(output);
        if (sample) options.onSample!(sample);
        break;
      }
      default:
        // A thread whose binding failed to connect prints its DBException and stops; YCSB goes
        // on with fewer threads and exits 0, which would pass for a slow database.
        if (!dbFailure && /^site\.ycsb\.DBException/.test(line.text)) dbFailure = line.text;
        log.push(line.text);
        if (log.length > LOG_LINES) log.shift();
    }
  });

  const stop = async () => {
    if (pid !== undefined) {
      await execFor(target).run(['kill', '-TERM', String(pid)], { allowFailure: true, timeoutMs: 10_000 });
    } else {
      proc.killLocal('SIGTERM');
    }
    const timer = setTimeout(() => {
      if (pid !== undefined) void execFor(target).run(['kill', '-KILL', String(pid)], { allowFailure: true });
      proc.killLocal('SIGKILL');
    }, STOP_GRACE_MS);
    await proc.exited.catch(() => undefined);
    clearTimeout(timer);
  };
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort's own reason, as its caller gave it (an Error in every caller)
    onAbort = () => void stop().finally(() => reject(signal?.reason ?? new Error('YCSB run aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  let code: number;
  try {
    code = await Promise.race([proc.exited, aborted]);
  } finally {
    // After the client exits its PID may be reused: never signal it again.
    signal?.removeEventListener('abort', onAbort);
  }
  // The client's exit can be seen before the abort that caused it.
  if (signal?.aborted) throw signal.reason ?? new Error('YCSB run aborted');
  const exitedAt = Date.now();
  const killedBy = proc.signal() ?? undefined;
  const how = killedBy ? `signal ${killedBy}` : `exit code ${code}`;
  const oomRose = oomBefore === undefined ? 0 : oomKills() - oomBefore;
  const ended = (cause: string): ClientExit => {
    const exit: ClientExit = { code, signal: killedBy, at: exitedAt, ranMs: exitedAt - startedAt, cause };
    const oom = oomCause(0, oomRose);
    return oom ? { ...exit, cause: `${cause}; ${oom}`, oomKills: oomRose } : exit;
  };
  const logText = tail(log.join('\n'), LOG_LINES);
  const what = `YCSB ${phase} (workload ${settings.workload}, ${binding.dbClass}) on ${where}`;
  const fail = (cause: string, problem = cause, detail = logText) => new YcsbError(`${what}: ${problem}`, detail, ended(cause));
  if (dbFailure) throw fail(`the binding failed to start: ${dbFailure}`);
  if (code !== 0) throw fail(how, `ended by ${how}`);
  const totals = parseSummary(proc.stdout());
  if (!totals) throw fail('ended without its final summary', undefined, logText + tail(proc.stdout(), 20));
  if (output.statuses.length === 0) throw fail('printed no status line');
  return {
    ...buildSeries(output, totals),
    ...(clientCpuMs === undefined ? {} : { clientCpuMs }),
    ...(clientCpuAtReadyMs === undefined ? {} : { clientCpuAtReadyMs }),
  };
}
