/** Waiting on this host: a pause, polling a condition until it holds, and settling a set of tasks. */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A condition that did not hold in time; the message says what was awaited and for how long. */
export class WaitTimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${formatDuration(timeoutMs)} waiting for ${what}`);
    this.name = 'WaitTimeoutError';
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

export interface WaitOptions {
  /** Named in the timeout error: "timed out after 10 s waiting for <what>". */
  what: string;
  timeoutMs: number;
  /** Pause between two checks (default 50 ms). */
  intervalMs?: number;
}

/** What a condition returns while it does not hold yet. */
type NotYet = undefined | false;

/**
 * Checks `condition` until it returns something other than undefined or false, and returns that.
 * The condition may throw to give up early (say, the process it waits for died). It is checked
 * once more at the deadline, so a slow check never loses to the clock.
 */
export async function waitFor<T>(condition: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new WaitTimeoutError(options.what, options.timeoutMs);
    await sleep(Math.min(options.intervalMs ?? 50, Math.max(0, deadline - Date.now())));
  }
}

/** True when `task` settles (either way) within `ms`. */
export async function settlesWithin(task: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      task.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Like Promise.all, but waits for every task to finish before failing: a step that fails must not
 * leave its siblings still creating things while the clean-up runs.
 */
export async function allDone<T>(tasks: Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(tasks);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
