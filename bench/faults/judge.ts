/**
 * What each kill did, read from what the run stored and what `fragbench dev` wrote down: when the
 * death was detected, when the part was back, which seconds of samples are missing after it, and
 * when the load was back at its level before the kill. Pure: the benchmark gathers, this judges.
 */
import type { RecordedEvent } from '../../core/events';
import type { Sample } from '../../core/samples';
import type { DevFault } from '../../worker/dev-supervisor';
import { median } from '../../services/probes/quantile';
import type { Part } from './schedule';

export interface Kill {
  part: Part;
  pid: number;
  owner?: string;
  /** Epoch ms the SIGKILL was sent. */
  at: number;
}

export interface KillOutcome {
  kill: Kill;
  detectedS?: number;
  /** Until the part ran again (its replacement started, or the member served again). */
  backS?: number;
  /** The phase's seconds with no stored sample, from this kill (the second before its own) to the next (or the phase's end): the hole, and any later gap. */
  missingSeconds: number[];
  /** When the kill came, seconds from the phase's origin. */
  killedAtS: number;
  /** Until a second's successful operations were back to 80 % of the median of the 10 s before. */
  loadBackS?: number;
  /** The record that says the tool saw it: its kind and label. */
  seenAs?: string;
}

interface Detection {
  detectedAt: number;
  backAt?: number;
  seenAs: string;
}

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** The run's own record of a death: a fault event (fleet daemon, database member), a client restart, or dev's line. */
function detection(kill: Kill, events: RecordedEvent[], devFaults: DevFault[]): Detection | undefined {
  const after = (t: number) => t >= kill.at - 50;
  switch (kill.part) {
    case 'emulator':
    case 'tincd':
    case 'wireguard': {
      const e = events.find((x) => x.kind === 'tool-fault' && x.detail.pid === kill.pid);
      return e && { detectedAt: e.requestedAt, backAt: e.completedAt, seenAs: `${e.kind}: ${e.label}` };
    }
    case 'database': {
      const e = events.find((x) => x.kind === 'node-fault' && x.detail.node === kill.owner && after(x.requestedAt));
      return e && { detectedAt: e.requestedAt, backAt: e.completedAt, seenAs: `${e.kind}: ${e.label}` };
    }
    case 'ycsb': {
      // The client's own death (its exit seen), not a restart after a worker was lost.
      const e = events.find(
        (x) =>
          x.kind === 'client-restart' && (x.detail.signal ?? x.detail.exitCode) !== undefined && after(num(x.detail.detectedAt) ?? x.requestedAt),
      );
      return (
        e && {
          detectedAt: num(e.detail.detectedAt) ?? e.requestedAt,
          backAt: num(e.detail.restartedAt) ?? e.completedAt,
          seenAs: `${e.kind}: ${String(e.detail.cause)}`,
        }
      );
    }
    case 'worker':
    case 'temporal-server': {
      const f = devFaults.find((x) => x.part === kill.part && x.pid === kill.pid);
      return f && { detectedAt: f.detectedAt, backAt: f.restartedAt, seenAs: `fragbench dev: ${f.part} ${f.cause}` };
    }
  }
}

/** `originMs` is the phase's origin: a sample's elapsedS counts seconds from it. */
export function judgeKills(
  kills: Kill[],
  samples: Sample[],
  events: RecordedEvent[],
  devFaults: DevFault[],
  originMs: number,
  phaseEndMs: number,
): KillOutcome[] {
  const bySecond = new Map(samples.map((s) => [s.elapsedS, s.okPerS]));
  const secondOf = (t: number) => (t - originMs) / 1000;
  const ordered = [...kills].sort((a, b) => a.at - b.at);
  // A second is stored under the whole second nearest its status line's time, and a line still in
  // flight dies with a killed client, so a kill at k can cost the second before round(k). (Counted
  // from ceil(k), a client killed at 375.1 s had its seconds 374 and 375 put on the kill before.)
  const firstSecondAfter = (t: number) => Math.max(1, Math.round(secondOf(t)) - 1);
  return ordered.map((kill, i) => {
    const killS = secondOf(kill.at);
    const next = ordered[i + 1];
    const untilS = next ? firstSecondAfter(next.at) : secondOf(phaseEndMs);
    const missing: number[] = [];
    for (let s = firstSecondAfter(kill.at); s < untilS; s++) if (!bySecond.has(s)) missing.push(s);
    const window = [...bySecond].filter(([s]) => s < killS && s >= killS - 10).map(([, ok]) => ok);
    const before = window.length === 0 ? undefined : median(window);
    const backS =
      before === undefined ? undefined : [...bySecond.keys()].sort((a, b) => a - b).find((s) => s > killS && bySecond.get(s)! >= 0.8 * before);
    const seen = detection(kill, events, devFaults);
    return {
      kill,
      missingSeconds: missing,
      killedAtS: killS,
      detectedS: seen && (seen.detectedAt - kill.at) / 1000,
      backS: seen?.backAt === undefined ? undefined : (seen.backAt - kill.at) / 1000,
      loadBackS: backS === undefined ? undefined : backS - killS,
      seenAs: seen?.seenAs,
    };
  });
}
