/**
 * The kernel's count of OOM kills (/proc/vmstat `oom_kill`). A SIGKILL says nothing of who sent
 * it, and a process that is not our child leaves no exit status at all: a death while this count
 * rose was most likely the OOM killer's, and that is the only evidence of it there is.
 */
import { readFileSync } from 'node:fs';

export function oomKills(): number {
  const line = readFileSync('/proc/vmstat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('oom_kill '));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** The cause to record when the count went from `before` to `after` over a death, or undefined when it did not rise. */
export function oomCause(before: number, after: number): string | undefined {
  return after > before ? `likely OOM-killed (the kernel's oom_kill count rose by ${after - before})` : undefined;
}
