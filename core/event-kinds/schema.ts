/**
 * The event part of the scenario schema, made from the event kinds: the timing fields every event
 * has, then each kind's key. scenarios/scenario.schema.json holds the same (editors read that
 * file); a unit test keeps the two equal, and validation uses this one so a kind registered at
 * run time validates too.
 */
import type { JsonSchema } from './event-kind';
import { eventKinds } from './registry';

const TIMING_PROPERTIES: JsonSchema = {
  at: { $ref: '#/definitions/seconds' },
  every: { type: 'number', exclusiveMinimum: 0 },
  times: { type: 'integer', minimum: 1 },
  label: { type: 'string' },
};

/** `definitions.event`. */
export function eventDefinition(): JsonSchema {
  const actions = Object.fromEntries(eventKinds().map((k) => [k.key, k.schema]));
  return { type: 'object', additionalProperties: false, required: ['at'], properties: { ...TIMING_PROPERTIES, ...actions } };
}

/** Definitions the kinds bring with them (e.g. `client`), by name. */
export function eventKindDefinitions(): Record<string, JsonSchema> {
  return Object.fromEntries(eventKinds().flatMap((k) => Object.entries(k.definitions ?? {})));
}

/** The scenario schema with its event part taken from the kinds. */
export function withEventKinds(schema: JsonSchema & { definitions: Record<string, JsonSchema> }): JsonSchema {
  return { ...schema, definitions: { ...schema.definitions, ...eventKindDefinitions(), event: eventDefinition() } };
}
