/**
 * The ring as one member sees it, once a second, from one RingWatch JVM (RingWatch.java) for as
 * long as a wait lasts: a `nodetool status` a second would start a JVM a second on the host the
 * database is measured on (bench:db prints what each costs). Its snapshots are `nodetool status`
 * lines ended by `--`.
 */
import { tail } from '../../../core/exec';
import { settlesWithin } from '../../../platform/wait';
import type { NodeShell } from '../node-shell';
import { parseNodetoolStatus, type EndpointStatus } from './nodetool-status';

/** Seconds between snapshots: the precision of a resize's completion time. */
export const RING_WATCH_INTERVAL_MS = 1000;

/** A line handler that hands over each whole snapshot; a snapshot that could not be read (`! …`) is an empty ring. */
export function ringSnapshots(onRing: (ring: EndpointStatus[]) => void): (line: string) => void {
  let lines: string[] = [];
  return (line) => {
    if (line !== '--') {
      lines.push(line);
      return;
    }
    onRing(parseNodetoolStatus(lines.join('\n')));
    lines = [];
  };
}

export interface RingWatch {
  /** The newest snapshot not taken yet (each once); throws once the watcher has exited. */
  take(): EndpointStatus[] | undefined;
  /** Ends the watcher (TERM, then KILL after 5 s). */
  stop(): Promise<void>;
}

/** Starts `argv` (RingWatch.java on the node) and keeps its newest snapshot. */
export function startRingWatch(shell: NodeShell, argv: string[]): RingWatch {
  let latest: EndpointStatus[] | undefined;
  let exitCode: number | undefined;
  const watcher = shell.stream(
    argv,
    ringSnapshots((ring) => (latest = ring)),
  );
  watcher.exited.then(
    (code) => (exitCode = code),
    () => (exitCode = -1),
  );
  return {
    take() {
      if (exitCode !== undefined)
        throw new Error(`cassandra: the ring watcher on ${shell.node.name} exited (code ${exitCode}): ${tail(watcher.stderr(), 5)}`);
      const ring = latest;
      latest = undefined;
      return ring;
    },
    async stop() {
      watcher.kill('SIGTERM');
      if (!(await settlesWithin(watcher.exited, 5000))) watcher.kill('SIGKILL');
    },
  };
}
