/**
 * Writes the event part of scenarios/scenario.schema.json from the event-kind modules, so that a
 * new kind reaches editors without hand-editing JSON: `npx tsx scripts/write-event-schema.ts`.
 * test/unit/event-kind-schema.test.ts fails until it has been run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventDefinition } from '../core/event-kinds/schema';

const file = path.resolve(__dirname, '..', 'scenarios', 'scenario.schema.json');
const schema = JSON.parse(readFileSync(file, 'utf8')) as { definitions: Record<string, unknown> };
const event = eventDefinition();
schema.definitions.event = event;
writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`wrote definitions.event (${Object.keys(event.properties as object).length} keys) to ${path.relative(process.cwd(), file)}`);
