/**
 * Shape checks for a scenario (the JSON schema in scenarios/), with messages that name the field
 * and say what it should be. Meaning checks (nodes, links, membership) are in scenario-plan.ts.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import schema from '../scenarios/scenario.schema.json';
import { InputError, throwIfAny } from './errors';
import { registryGeneration } from './event-kinds/registry';
import { withEventKinds } from './event-kinds/schema';
import { jsonPointerToPath } from './validate-inventory';
import type { ScenarioFile } from './scenario';

let compiled: { generation: number; check: ValidateFunction } | undefined;

/** The schema's validator, compiled again only after an event kind was registered. */
function checkSchema(): ValidateFunction {
  if (compiled?.generation !== registryGeneration()) {
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, verbose: true });
    compiled = { generation: registryGeneration(), check: ajv.compile(withEventKinds(schema)) };
  }
  return compiled.check;
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
  const check = checkSchema();
  if (!check(value)) throwIfAny(describeSchemaErrors(check.errors ?? []));
  return value as ScenarioFile;
}

/** Turns ajv's errors into one message per field, dropping the noise `anyOf`/`if` branches add. */
export function describeSchemaErrors(errors: ErrorObject[]): InputError[] {
  const branchPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const deeper = (p: string) => errors.some((e) => e.instancePath.startsWith(`${p}/`) && e.keyword !== 'if');
  const byPath = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    const at = e.instancePath;
    if (branchPaths.has(at)) {
      // A value that matched no alternative: say what the alternatives were, once.
      if (deeper(at)) continue;
      const wanted = errors
        .filter((x) => x.instancePath === at && (x.keyword === 'type' || x.keyword === 'const'))
        .map((x) => (x.keyword === 'type' ? String(x.params.type) : JSON.stringify(x.params.allowedValue)));
      byPath.set(at, `must be ${[...new Set(wanted)].join(' or ')}`);
      continue;
    }
    const [path, message] = describeOne(e);
    if (!byPath.has(path)) byPath.set(path, message);
  }
  return [...byPath].map(([path, message]) => new InputError(fieldName(path), message));
}

function describeOne(e: ErrorObject): [string, string] {
  switch (e.keyword) {
    case 'additionalProperties': {
      const field = String(e.params.additionalProperty);
      const allowed = Object.keys(schemaPropertiesAt(e.parentSchema));
      return [`${e.instancePath}/${field}`, `unknown field${allowed.length ? `; expected one of: ${allowed.join(', ')}` : ''}`];
    }
    case 'required':
      return [`${e.instancePath}/${String(e.params.missingProperty)}`, 'is required'];
    case 'enum':
      return [e.instancePath, `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`];
    case 'pattern': {
      const description = (e.parentSchema as { description?: string } | undefined)?.description;
      return [e.instancePath, description ? `must be ${description}` : `must match ${String(e.params.pattern)}`];
    }
    default:
      return [e.instancePath, e.message ?? 'is invalid'];
  }
}

function schemaPropertiesAt(parentSchema: unknown): Record<string, unknown> {
  const props = (parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ?? {};
}

/** `/phases/1/events/0/cut` -> `phases[1].events[0].cut`; the root is `scenario`. */
function fieldName(pointer: string): string {
  return jsonPointerToPath(pointer).replace(/^\./, '') || 'scenario';
}
