/**
 * Shape checks for a scenario (the JSON schema in scenarios/), with messages that name the field
 * and say what it should be. Meaning checks (nodes, links, membership) are in scenario-plan.ts.
 */
import { parse as parseYaml } from 'yaml';
import { InputError } from './errors';
import { registryGeneration } from './event-kinds/registry';
import { withEventKinds } from './event-kinds/schema';
import { PUBLISHED_SCHEMAS, checkShape } from './schema/validator';
import type { ScenarioFile } from './scenario';

let completed: { generation: number; schema: Record<string, unknown> } | undefined;

/** The published schema with its event part from the registered kinds, made again only after a kind was registered. */
function scenarioSchema(): Record<string, unknown> {
  if (completed?.generation !== registryGeneration()) {
    const published = PUBLISHED_SCHEMAS.scenario.schema as Parameters<typeof withEventKinds>[0];
    completed = { generation: registryGeneration(), schema: withEventKinds(published) };
  }
  return completed.schema;
}

/** Parses a scenario file's text; YAML is a superset of JSON, so both are accepted. */
export function parseScenarioText(text: string, where = 'scenario'): unknown {
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new InputError(where, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Checks the scenario's shape; throws InputError(s) naming each bad field. */
export function checkScenarioShape(value: unknown): ScenarioFile {
  return checkShape<ScenarioFile>('scenario', value, (path) => path || 'scenario', scenarioSchema());
}
