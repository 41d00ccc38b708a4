/**
 * The event kinds are the source of the scenario schema's event part: the published file editors
 * read (scenarios/scenario.schema.json) must say what the modules declare. And the kinds are core:
 * the workflows import them, so they import nothing outside core.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eventDefinition, eventKindDefinitions } from '../../core/event-kinds/schema';
import { eventKinds } from '../../core/event-kinds/registry';

const schema = JSON.parse(readFileSync(path.resolve(__dirname, '../../scenarios/scenario.schema.json'), 'utf8')) as {
  definitions: Record<string, unknown>;
};

test("the JSON schema's event definition is what the event-kind modules declare", () => {
  expect(schema.definitions.event).toEqual(eventDefinition());
});

test('definitions a kind brings (the ramped client) are in the JSON schema as declared', () => {
  const declared = eventKindDefinitions();
  expect(Object.keys(declared)).toEqual(['client']);
  for (const [name, definition] of Object.entries(declared)) expect(schema.definitions[name]).toEqual(definition);
});

test('every kind has its own key and kind, in the order validate lists them', () => {
  expect(eventKinds().map((k) => k.key)).toEqual([
    'latency',
    'bandwidth',
    'add',
    'remove',
    'kill',
    'revive',
    'cut',
    'restore',
    'network',
    'ramp',
    'partition',
    'heal',
    'flap',
    'replay',
    'move',
    'clientStart',
    'clientStop',
    'measureRtt',
    'measureTraffic',
  ]);
  expect(new Set(eventKinds().map((k) => k.kind)).size).toBe(eventKinds().length);
});

test('core/event-kinds imports only core (the workflows bundle it)', () => {
  const dir = path.resolve(__dirname, '../../core/event-kinds');
  const core = path.resolve(dir, '..');
  const outside = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...readFileSync(path.join(dir, f), 'utf8').matchAll(/from\s+'([^']+)'/g)].map((m) => [f, m[1]] as const))
    .filter(([, spec]) => !spec.startsWith('.') || !path.resolve(dir, spec).startsWith(`${core}${path.sep}`));
  expect(outside).toEqual([]);
});
