/** Heartbeats for long activities, only when running as one (not when the CLI or a bench calls the same function). */
import { asyncLocalStorage } from '@temporalio/activity';

const HEARTBEAT_MS = 1_000;

/** Heartbeats every second while `work` runs. */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const activity = asyncLocalStorage.getStore();
  const timer = activity && setInterval(() => activity.heartbeat(), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    if (timer) clearInterval(timer);
  }
}

/** An operation as an activity that heartbeats every second while it runs. */
export function heartbeatingActivity<Input, Output>(operation: (input: Input) => Promise<Output>): (input: Input) => Promise<Output> {
  return (input) => heartbeating(() => operation(input));
}
