/**
 * The report's consistency part, for runs with checked cells (ycsb.check): a table of each
 * cell's verdict, counts and the database settings that decide them; a table of the first
 * examples (which key, which write was expected, what was read, when); and the notes that say
 * what kind of check it was and what it cannot see.
 */
import type { CellRecord } from '../core/run-record';
import { cellTimeline } from '../core/cell-timeline';
import { CANNOT_SEE, CHECK_MODEL, type ConsistencyExample } from '../core/consistency/consistency';
import { formatNumber, sentence } from './figures/figure';
import { cellLabel } from './matrix';
import type { Table } from './tables';

const dash = '–';
const checked = (cells: CellRecord[]) => cells.filter((c) => c.summary.consistency !== undefined);

/** `timeout 12, unavailable 3`, most first. */
function causesText(failed: Record<string, number>): string {
  const entries = Object.entries(failed).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? dash : entries.map(([cause, n]) => `${cause} ${formatNumber(n)}`).join(', ');
}

function settingsText(cell: CellRecord): string {
  const settings = cell.cluster?.consistency;
  if (!settings) return 'not recorded';
  return Object.entries(settings)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}

export function consistencyTable(cells: CellRecord[], axes: string[]): Table | undefined {
  const rows = checked(cells).map((cell) => {
    const c = cell.summary.consistency!;
    const t = c.totals;
    return [
      cellLabel(cell, axes) || cell.cellId,
      c.verdict,
      formatNumber(t.reads),
      formatNumber(t.writes),
      formatNumber(t.stale),
      formatNumber(t.corrupt),
      formatNumber(t.lost),
      `${formatNumber(c.readBack.unverified)} of ${formatNumber(c.readBack.registers)}`,
      causesText(t.failed),
      settingsText(cell),
    ];
  });
  if (rows.length === 0) return undefined;
  const columns = [
    'Cell',
    'Consistency',
    'Reads',
    'Acknowledged writes',
    'Stale reads',
    'Corrupt reads',
    'Lost writes',
    'Registers not read back',
    'Failed operations',
    'Database settings',
  ];
  const anomalous = checked(cells).filter((c) => c.summary.consistency!.verdict !== 'no anomaly seen');
  const finding =
    anomalous.length === 0
      ? 'no checked cell showed an anomaly'
      : `${anomalous.length} of ${rows.length} checked cells showed anomalies: ${anomalous.map((c) => `${cellLabel(c, axes) || c.cellId} (${c.summary.consistency!.verdict})`).join(', ')}`;
  return {
    id: 'consistency',
    heading: `Per checked cell: did the database keep what it acknowledged, and did reads see it? ${sentence(finding)}.`,
    columns,
    numeric: columns.map((_, i) => i >= 2 && i <= 7),
    rows,
  };
}

/** A write as the examples show it: its id and when it began and was acknowledged, on the cell's axis. */
function writeText(write: ConsistencyExample['expected'], at: (ms: number) => string): string {
  if (!write) return dash;
  return `${write.id} (${at(write.startMs)}–${write.endMs === null ? 'not acknowledged' : at(write.endMs)})`;
}

export function consistencyExamplesTable(cells: CellRecord[], axes: string[]): Table | undefined {
  const rows = checked(cells).flatMap((cell) => {
    const { originMs } = cellTimeline(cell.phases);
    const at = (ms: number) => `${formatNumber((ms - originMs) / 1000, 3)} s`;
    return cell.summary.consistency!.examples.map((e) => [
      cellLabel(cell, axes) || cell.cellId,
      e.kind === 'lost' ? 'lost write' : `${e.kind} read`,
      `${e.key} / ${e.field}`,
      writeText(e.expected, at),
      e.gotWrite ? writeText(e.gotWrite, at) : e.got,
      e.read ? `${at(e.read.startMs)}–${at(e.read.endMs)}${e.kind === 'lost' ? ' (read-back)' : ''}` : dash,
      e.why ?? dash,
    ]);
  });
  if (rows.length === 0) return undefined;
  return {
    id: 'consistency-examples',
    heading:
      'The first anomalies of each kind per cell: the key and field, the acknowledged write the read should have seen (or that was lost) and what was read instead, with times in seconds since the cell’s start (a write from its start to its acknowledgement).',
    columns: ['Cell', 'Anomaly', 'Key / field', 'Expected', 'Read', 'Read at', 'Why'],
    numeric: [false, false, false, false, false, false, false],
    rows,
  };
}

/**
 * What the check was and what it cannot see, once per report with checked cells; and the
 * settings that decide consistency for cells that were not checked (the checked ones show theirs
 * in the consistency table), once per database and setting.
 */
export function consistencyNotes(cells: CellRecord[]): string[] {
  const notes = checked(cells).length === 0 ? [] : [`Consistency was checked as a ${CHECK_MODEL}. It cannot see: ${CANNOT_SEE.join('; ')}.`];
  const unchecked = cells.filter((c) => c.summary.consistency === undefined && c.cluster?.consistency);
  const settings = new Set(unchecked.map((c) => `${c.cluster!.database}: ${settingsText(c)}`));
  for (const line of settings) notes.push(`Database settings that decide what reads see and what is kept (not checked in this run) for ${line}.`);
  return notes;
}
