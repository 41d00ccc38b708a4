/**
 * The report's first line: the question the run answers, put together from what its cells hold
 * (the axes the matrix varies, the events that happened, what was measured), so a scenario the
 * project never shipped gets a question that fits it, whatever its title says.
 */
import { findEventKind } from '../core/event-kinds/registry';
import type { RunContents } from './contents';
import { axisPhrase, axisTitle } from './figures/figure';
import { scaleLabel } from './matrix';

/** Recorded kinds no event-kind module describes (older results), in the plural. */
const RECORDED_ONLY_PHRASES: Record<string, string> = {
  'server-start': 'servers starting',
  'server-stop': 'servers stopping',
  'node-fault': 'database nodes crashing unasked',
};

/** Events in the plural, as a sentence lists them. */
function eventPhrase(kind: string): string {
  return findEventKind(kind)?.phrase ?? RECORDED_ONLY_PHRASES[kind] ?? kind;
}

/** `a`, `a and b`, `a, b and c`. */
export function listText(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function measured(contents: RunContents): string {
  const what = ['throughput'];
  if (contents.categories.length > 0) what.push('latency');
  if (contents.rttCells > 0) what.push('round-trip times');
  if (contents.trafficCells > 0) what.push('traffic between nodes');
  return listText(what);
}

/** What differs between cells: `the latency scaling factor (X to 5X)`, `the layout (...)`. */
function axes(contents: RunContents): string[] {
  const out: string[] = [];
  const scale = contents.scale;
  if (scale && scale.values.length > 1) {
    out.push(`the ${axisTitle(scale.axis).toLowerCase()} (${scaleLabel(scale.values[0])} to ${scaleLabel(scale.values[scale.values.length - 1])})`);
  }
  for (const axis of contents.categories) out.push(`the ${axisPhrase(axis)}`);
  return out;
}

/** What happens during a cell: its events, and clients added without an event. */
function happenings(contents: RunContents): string[] {
  const out = contents.eventKinds.flatMap((k) => (k === 'client-restart' || k === 'tool-fault' ? [] : [eventPhrase(k)]));
  if (contents.rampedCells > 0 && !contents.eventKinds.some((k) => findEventKind(k)?.startsClient !== undefined)) out.push('clients joining');
  return out;
}

/** The question a checked run adds to the one its throughput answers. */
const KEPT = ' And did the database keep what it acknowledged?';

export function reportQuestion(contents: RunContents): string {
  if (contents.cellCount === 0) return 'What did the run record? No cell has results yet.';
  return throughputQuestion(contents) + (contents.checkedCells > 0 ? KEPT : '');
}

function throughputQuestion(contents: RunContents): string {
  const subject = measured(contents);
  const along = axes(contents);
  const during = happenings(contents);
  const verb = subject === 'throughput' ? 'does' : 'do';
  const clauses = [...(along.length > 0 ? [`change with ${listText(along)}`] : []), ...(during.length > 0 ? [`respond to ${listText(during)}`] : [])];
  const timing = contents.resizeTimes ? ', and how long do resizes take' : '';
  if (clauses.length > 0) return `How ${verb} ${subject} ${clauses.join(' and ')}${timing}?`;
  const cells = contents.cellCount === 1 ? 'the cell' : `each of the ${contents.cellCount} cells`;
  return `What ${subject} did ${cells} show, with nothing changing during the run${timing}?`;
}
