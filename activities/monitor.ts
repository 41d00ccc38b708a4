/**
 * The monitorPhase activity: runs the phase's monitor (operations/monitor/phase-monitor.ts),
 * heartbeating its progress each second, until the workflow cancels it (when the phase's clients
 * are done) or a write fails.
 */
import { Context } from '@temporalio/activity';
import type { MonitorInput } from '../core/telemetry';
import { startPhaseMonitor } from '../operations/monitor/phase-monitor';

/** Never returns by itself: it ends when cancelled (the workflow's way of saying the phase is over) or when the monitor fails. */
export async function monitorPhase(input: MonitorInput): Promise<void> {
  const ctx = Context.current();
  const monitor = await startPhaseMonitor(input, (progress) => ctx.heartbeat(progress));
  try {
    await Promise.race([ctx.cancelled, monitor.failed]);
  } finally {
    monitor.stop();
  }
}
