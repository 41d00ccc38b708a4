/**
 * The trace files a scenario's `replay:` events name, parsed and put into those events, so the
 * plan carries the rows and nothing after the loader reads a file. The caller reads (this stays
 * pure); a file unreadable or with bad rows is refused here, before any fleet is touched, each
 * bad row with its line number.
 */
import { InputError, throwIfAny } from './errors';
import type { ReplayItem } from './event-kinds/trace-replay';
import type { ScenarioFile } from './scenario';
import { parseTrace, type ParsedTrace } from './trace';

/** Reads a file relative to the project root; throws (an Error with a `code`, as fs does) when it cannot. */
export type TraceReader = (file: string) => string;

/** The scenario with each replay event's rows; throws every unreadable file and bad row at once. */
export function withTraceRows(file: ScenarioFile, read: TraceReader): ScenarioFile {
  const parsed = new Map<string, ParsedTrace>();
  const errors: InputError[] = [];
  const phases = file.phases.map((phase, i) => {
    if (phase.phase !== 'run' || !phase.events) return phase;
    const events = phase.events.map((event, j) => {
      if (!event.replay) return event;
      // One object per event: the kind takes no list (its schema says so).
      const written = event.replay as ReplayItem;
      const path = `phases[${i}].events[${j}].replay.file`;
      const trace = parsed.get(written.file) ?? readTrace(written.file, read);
      parsed.set(written.file, trace);
      if ('errors' in trace) {
        errors.push(...trace.errors.map((e) => new InputError(path, e.message)));
        return event;
      }
      const replay: ReplayItem = { ...written, rows: trace.rows };
      return { ...event, replay };
    });
    return { ...phase, events };
  });
  // Each file's problems once, however many events name it.
  throwIfAny(errors.filter((e, k) => errors.findIndex((x) => x.problem === e.problem) === k));
  return { ...file, phases };
}

function readTrace(file: string, read: TraceReader): ParsedTrace {
  let text: string;
  try {
    text = read(file);
  } catch (err) {
    const reason = (err as { code?: string }).code ?? (err as Error).message;
    return { errors: [new InputError(file, `cannot read it (${reason}): give a path relative to the project root, e.g. traces/leo-satellite.csv`)] };
  }
  return parseTrace(text, file);
}
