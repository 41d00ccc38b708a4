/**
 * The README's table of the event language, made from the event-kind modules (their key, what
 * they do and an example, core/event-kinds/): `npx tsx scripts/event-table.ts` writes it between
 * the README's event-table markers; test/unit/readme.test.ts fails until it has been run after a
 * kind changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventKinds } from '../core/event-kinds/registry';

export const README = path.resolve(__dirname, '..', 'README.md');
export const MARKERS = { start: '<!-- event-table: start (scripts/event-table.ts writes this table) -->', end: '<!-- event-table: end -->' };

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** One row per kind, in the order `validate` lists them. */
export function eventTable(): string {
  // A key that also takes a list (one event per item) is marked, as the README says above the table.
  const rows = eventKinds().map((k) => `| \`${k.key}\`${k.takesList ? ' \\*' : ''} | ${cell(k.doc.does)} | \`${cell(k.doc.example)}\` |`);
  return ['| key | what happens | example |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The README with its table replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(MARKERS.start);
  const end = readme.indexOf(MARKERS.end);
  if (start < 0 || end < start) throw new Error(`README.md has no event table between "${MARKERS.start}" and "${MARKERS.end}"`);
  return `${readme.slice(0, start + MARKERS.start.length)}\n${table}\n${readme.slice(end)}`;
}

if (require.main === module) {
  writeFileSync(README, withTable(readFileSync(README, 'utf8'), eventTable()));
  console.log(`wrote the event table (${eventKinds().length} kinds) to ${path.relative(process.cwd(), README)}`);
}
