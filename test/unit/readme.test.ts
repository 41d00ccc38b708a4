/**
 * The README as a guide that stays true: its table of event kinds is the one the kinds' modules
 * make (scripts/event-table.ts) and every kind's example is a valid event; the search attributes
 * it tells a cluster's operator to create are the ones runs set; and neither it nor the pages it
 * leads to point outside the repository. (Its minimal topology and scenario are validated by the
 * CLI in test/cli/readme.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eventKinds } from '../../core/event-kinds/registry';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { searchAttributeArgs } from '../../worker/dev-server';
import { eventTable, MARKERS, README } from '../../scripts/event-table';
import { between, tableCells } from '../support/markdown';

const ROOT = path.resolve(__dirname, '../..');
const readme = readFileSync(README, 'utf8');

test("the README's event table is the kinds' own (run `npx tsx scripts/event-table.ts` after changing a kind)", () => {
  const table = between(readme, MARKERS.start, MARKERS.end);
  expect(table).toBeDefined();
  expect(tableCells(table!)).toEqual(tableCells(eventTable()));
});

test.each(eventKinds().map((k) => [k.key, k.doc.example]))('the example of %s is a valid event: %s', (_key, example) => {
  const scenario = `name: x\nexperiment: x\nfleet: { local: fhc-4 }\nphases:\n  - phase: run\n    duration: 100\n    events:\n      - ${example}\n`;
  expect(() => checkScenarioShape(parseScenarioText(scenario))).not.toThrow();
});

test('the search attributes an operator is told to create are the ones runs set, with their types', () => {
  const told = [...readme.matchAll(/^temporal operator search-attribute create --name (\w+) --type (\w+)$/gm)].map((m) => ({
    name: m[1],
    type: m[2],
  }));
  expect(told).toEqual(expect.arrayContaining(searchAttributeArgs()));
  expect(told).toHaveLength(searchAttributeArgs().length);
});

test('the README and the pages beside it point at nothing outside the repository', () => {
  const pages = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => path.join('docs', f))].filter((f) =>
    f.endsWith('.md'),
  );
  const outside: string[] = [];
  for (const page of pages) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const resolved = path.resolve(ROOT, path.dirname(page), target);
      if (!resolved.startsWith(`${ROOT}${path.sep}`)) outside.push(`${page}: ${target}`);
    }
    for (const m of text.matchAll(/(\.\.\/shared|\/work\/|\/tmp\/[\w.-]+\.(?:sh|ts|js)|\bshared\/)/g)) outside.push(`${page}: ${m[1]}`);
  }
  expect(outside).toEqual([]);
});
