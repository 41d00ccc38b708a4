/**
 * `replay: {file: traces/x.csv, speed?: 1, loop?: false}`: sets link conditions row by row from a
 * trace file (core/trace.ts), each at its time from the event. The file is read and its rows
 * checked by the scenario loader before the run (this module is bundled into the workflows and
 * reads nothing): the planned action carries the rows, so neither the workflow nor the activity
 * ever opens the file. The network lane is busy while it plays (later network events wait).
 */
import { describeTarget } from './network-conditions';
import { defineEventKind } from './event-kind';
import { targetKey, traceLengthS, traceTargetProblems, type ReplayReport, type TraceRow } from '../trace';

export interface ReplayItem {
  /** Relative to the project root, e.g. traces/leo-satellite.csv. */
  file: string;
  speed?: number;
  loop?: boolean;
  /** The file's rows, put here by the scenario loader (core/scenario-traces.ts); never written. */
  rows?: TraceRow[];
}

export interface ReplayAction {
  kind: 'trace-replay';
  file: string;
  speed: number;
  loop: boolean;
  rows: TraceRow[];
  /** The run's time scale: a rehearsal at 0.1 plays the trace ten times as fast. */
  timeScale: number;
  /** A loop's end, in the scenario's seconds from the event: the end of its phase. */
  untilS?: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Seconds one pass lasts on the scenario's clock. */
const passS = (a: ReplayAction) => traceLengthS(a.rows) / a.speed;

function targetsOf(rows: TraceRow[]): string[] {
  const seen = new Map(rows.map((r) => [targetKey(r.target), r.target]));
  return [...seen.values()].map(describeTarget);
}

export const traceReplay = defineEventKind({
  key: 'replay',
  kind: 'trace-replay',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['file'],
    properties: {
      file: {
        type: 'string',
        pattern: '\\.csv$',
        description: 'a trace (t,target,property,value), relative to the project root, e.g. traces/leo-satellite.csv',
      },
      speed: { type: 'number', exclusiveMinimum: 0, description: 'how fast the trace plays: 2 = twice as fast; default 1' },
      loop: { type: 'boolean', description: "start over at the last row's time until the phase ends; default false" },
    },
  },
  takesList: false,
  toAction: (item: ReplayItem): ReplayAction => ({
    kind: 'trace-replay',
    file: item.file,
    speed: item.speed ?? 1,
    loop: item.loop ?? false,
    rows: item.rows ?? [],
    timeScale: 1,
  }),
  fitPhase: (a, { remainingS, timeScale }) => {
    if (a.rows.length === 0) return a;
    if (a.loop) {
      if (passS(a) === 0) return `loop needs rows at two times or more: every row of ${a.file} is at t=${a.rows[0].tS}`;
      return { ...a, timeScale, untilS: remainingS };
    }
    if (passS(a) > remainingS) {
      const speed = Math.ceil((traceLengthS(a.rows) / remainingS) * 100) / 100;
      return `${a.file} lasts ${round(passS(a))} s at speed ${a.speed} (its last row is at t=${traceLengthS(a.rows)} s) but the phase ends ${round(remainingS)} s after the event: give speed ${speed} or more, start it earlier, or lengthen the phase`;
    }
    return { ...a, timeScale };
  },
  check: (a, st, when) => {
    if (a.rows.length === 0)
      return `the rows of ${a.file} were not loaded: plan scenarios through operations/scenario/scenario-loader.ts, which reads trace files (${when})`;
    const problems = traceTargetProblems(a.rows, st.fleet, a.file);
    return problems.length > 0 ? problems.join('; ') : undefined;
  },
  plan: (a) =>
    `replay ${a.file}: ${a.rows.length} rows over ${round(passS(a))} s at speed ${a.speed}${a.loop ? `, looped until the phase ends` : ''}; targets: ${targetsOf(a.rows).join(', ')}`,
  lane: 'network',
  // It runs for its whole length and heartbeats, like a ramp.
  duration: 'resize',
  // A loop plays until its phase ends; the time scale stretches or shrinks either.
  lastsS: (a) => (a.loop && a.untilS !== undefined ? a.untilS : passS(a)) * a.timeScale,
  apply: (a, { fleet }) => ({
    activity: 'replayLinkTrace',
    input: { fleet, rows: a.rows, speed: a.speed / a.timeScale, loop: a.loop, ...(a.untilS !== undefined && { untilS: a.untilS * a.timeScale }) },
  }),
  outcome: (a, result) => {
    const r = result as ReplayReport;
    return {
      detail: { file: a.file, rows: a.rows.length, speed: a.speed, loop: a.loop, steps: r.steps, latenessMs: r.latenessMs },
      times: { acceptedAt: r.appliedAt, completedAt: r.completedAt },
    };
  },
  label: (a) => `replay ${a.file.split('/').at(-1)}`,
  marker: { name: 'trace replay', color: '#fdae6b' },
  phrase: 'trace replays',
  doc: {
    does: 'conditions replayed from a CSV trace (t,target,property,value), at a speed, looping if asked',
    example: '{ at: 10, replay: { file: traces/leo-satellite.csv, speed: 4 } }',
  },
});
