/**
 * A network trace: link conditions over time, one value per CSV row (`t,target,property,value`),
 * replayed by a `replay:` event (a recorded cellular or satellite path, or a synthetic one shaped
 * after measurements). Parsing checks each row on its own (numbers, ranges, the order of t, how
 * the target is written); whether a target exists depends on the fleet and is checked with the
 * scenario (`traceTargetProblems`), with the same selection the shaper uses. Pure: the caller
 * reads the file.
 */
import { InputError } from './errors';
import { CONDITION_VALUE_RANGES, outOfRange, type ConditionValues } from './link-conditions';
import { selectLinks, type ConditionEventInput, type DirectionWord, type SelectableFleet } from './link-selection';

export const TRACE_HEADER = 't,target,property,value';

/** What a row may set: the values a `network: {set: ...}` takes (latencyMs is a round trip). */
export type TraceProperty = keyof ConditionValues;
const TRACE_PROPERTIES = Object.keys(CONDITION_VALUE_RANGES) as TraceProperty[];

/** The rows travel in the planned action, so in the workflow's history: a bound keeps it small. */
export const MAX_TRACE_ROWS = 10_000;

export interface TraceRow {
  /** The row's line in its file, for messages. */
  line: number;
  /** Seconds from the replay's start. */
  tS: number;
  target: ConditionEventInput;
  property: TraceProperty;
  value: number;
}

export type ParsedTrace = { rows: TraceRow[] } | { errors: InputError[] };

const TARGET_HELP = 'write a link id (<a>-<b>/<type>, optionally :a->b or :b->a), node:<name>[:out|:in], tag:<tag>[:out|:in] or all';
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A trace's rows, or every bad line as `<file> line N: ...` with what to write instead. */
export function parseTrace(text: string, file: string): ParsedTrace {
  const errors: InputError[] = [];
  const rows: TraceRow[] = [];
  let headerSeen = false;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#')) return;
    const fail = (problem: string) => errors.push(new InputError(`${file} line ${line}`, problem));
    const cells = content.split(',').map((c) => c.trim());
    if (!headerSeen) {
      headerSeen = true;
      if (cells.join(',') !== TRACE_HEADER) fail(`the first line that is not a comment must be the header ${TRACE_HEADER} (got "${content}")`);
      return;
    }
    const row = parseRow(cells, line);
    const previous = rows.at(-1);
    if (typeof row === 'string') fail(row);
    else if (previous && row.tS < previous.tS)
      fail(`t ${row.tS} is before the previous row's ${previous.tS} (line ${previous.line}): sort the rows by t`);
    else rows.push(row);
  });
  if (errors.length === 0 && rows.length === 0)
    errors.push(new InputError(file, `has no rows: after the header ${TRACE_HEADER}, give one row per value, e.g. 0,all,latencyMs,40`));
  if (rows.length > MAX_TRACE_ROWS)
    errors.push(
      new InputError(
        file,
        `has ${rows.length} rows; at most ${MAX_TRACE_ROWS} (they travel in the workflow's history): split it into several replay events`,
      ),
    );
  return errors.length > 0 ? { errors } : { rows };
}

function parseRow(cells: string[], line: number): TraceRow | string {
  if (cells.length !== 4) return `needs 4 cells (${TRACE_HEADER}), got ${cells.length}`;
  const [t, targetText, property, valueText] = cells;
  if (!NUMBER.test(t) || Number(t) < 0) return `t "${t}" must be seconds from the replay's start, 0 or more`;
  const target = parseTarget(targetText);
  if (typeof target === 'string') return target;
  if (!TRACE_PROPERTIES.includes(property as TraceProperty)) return `property "${property}" is not one of ${TRACE_PROPERTIES.join(', ')}`;
  if (!NUMBER.test(valueText)) return `value "${valueText}" for ${property} is not a number`;
  const value = Number(valueText);
  const range = outOfRange(value, CONDITION_VALUE_RANGES[property as TraceProperty]);
  if (range) return `value ${value} for ${property} ${range}`;
  return { line, tS: Number(t), target, property: property as TraceProperty, value };
}

const LINK_DIRECTIONS: DirectionWord[] = ['a->b', 'b->a', 'both'];
const GROUP_DIRECTIONS: DirectionWord[] = ['out', 'in', 'both'];

/** `alpha-bravo/0:a->b`, `node:alpha:out`, `tag:mobile`, `all` as a selector. */
export function parseTarget(text: string): ConditionEventInput | string {
  if (text === 'all') return { all: true };
  const [head, ...rest] = text.split(':');
  if (head === 'node' || head === 'tag') {
    const [name, direction, extra] = rest;
    if (!name || extra !== undefined) return `target "${text}": ${TARGET_HELP}`;
    if (direction !== undefined && !GROUP_DIRECTIONS.includes(direction as DirectionWord))
      return `target "${text}": a ${head}'s direction is out, in or both`;
    return { [head]: name, ...(direction !== undefined && { direction: direction as DirectionWord }) };
  }
  if (!head.includes('/') || rest.length > 1) return `target "${text}": ${TARGET_HELP}`;
  const [direction] = rest;
  if (direction !== undefined && !LINK_DIRECTIONS.includes(direction as DirectionWord))
    return `target "${text}": a link's direction is a->b, b->a or both`;
  return { link: head, ...(direction !== undefined && { direction: direction as DirectionWord }) };
}

/** The same target written the way a trace writes it, for plans and messages. */
export function targetKey(target: ConditionEventInput): string {
  const where = target.link ?? (target.node !== undefined ? `node:${target.node}` : target.tag !== undefined ? `tag:${target.tag}` : 'all');
  return target.direction ? `${where}:${target.direction}` : where;
}

/** Seconds from the first row's start to the last row: how long one pass lasts at speed 1. */
export function traceLengthS(rows: TraceRow[]): number {
  return rows.at(-1)?.tS ?? 0;
}

/**
 * What the rows select on this fleet that does not exist or does not fit (`<file> line N: ...`):
 * an unknown link, node or tag, a direction that does not apply, or a round trip (latencyMs) set
 * on one direction. A target used on many rows is reported once, at its first line.
 */
export function traceTargetProblems(rows: TraceRow[], fleet: SelectableFleet, file: string): string[] {
  const problems: string[] = [];
  const selections = new Map<string, ReturnType<typeof selectLinks>>();
  const roundTripOnOneWay = new Set<string>();
  for (const row of rows) {
    const key = targetKey(row.target);
    const at = `${file} line ${row.line}`;
    let links = selections.get(key);
    if (links === undefined) {
      const { direction, ...selector } = row.target;
      links = selectLinks(selector, direction, fleet);
      selections.set(key, links);
      if (typeof links === 'string') problems.push(`${at}: ${links}`);
    }
    if (typeof links === 'string' || row.property !== 'latencyMs' || roundTripOnOneWay.has(key)) continue;
    if (links.some((l) => l.directions.length === 1)) {
      roundTripOnOneWay.add(key);
      problems.push(`${at}: latencyMs is a round trip and ${key} is one direction: give delayMs (one way)`);
    }
  }
  return problems;
}

/** How late the steps of a timed change (a ramp, a replay) landed after they were due, ms. */
export interface Lateness {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

/** What a replay reports: its start and end (host clock), steps applied, and how late rows were, ms. */
export interface ReplayReport {
  appliedAt: number;
  completedAt: number;
  steps: number;
  latenessMs: Lateness;
}

/** What the replay activity takes: the rows and their pace, the speed already time-scaled. */
export interface ReplayInput extends ReplayPace {
  rows: TraceRow[];
}

/** Rows applied together: those due at the same time, in file order (a later row wins). */
export interface ReplayStep {
  /** Milliseconds from the replay's start, at its speed. */
  atMs: number;
  rows: TraceRow[];
}

export interface ReplayPace {
  /** 2 plays the trace twice as fast. */
  speed: number;
  /** Start over at the last row's time, until `untilS`. */
  loop: boolean;
  /** Real seconds from the start after which nothing is applied (a loop's end). */
  untilS?: number;
}

/**
 * When each row is applied. A looped pass starts at the last row's time of the pass before, so
 * the rows at t=0 come at the same moment as those last rows and win over them.
 */
export function replaySchedule(rows: TraceRow[], pace: ReplayPace): ReplayStep[] {
  const lengthS = traceLengthS(rows);
  const passes = pace.loop && lengthS > 0 && pace.untilS !== undefined ? Math.ceil(pace.untilS / (lengthS / pace.speed)) : 1;
  const steps: ReplayStep[] = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const row of rows) {
      const atMs = Math.round(((pass * lengthS + row.tS) / pace.speed) * 1000);
      if (pace.untilS !== undefined && atMs >= pace.untilS * 1000) return steps;
      const last = steps.at(-1);
      if (last?.atMs === atMs) last.rows.push(row);
      else steps.push({ atMs, rows: [row] });
    }
  }
  return steps;
}
