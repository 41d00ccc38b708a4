/**
 * The project's one JSON-schema validator: a single Ajv instance compiles every published schema
 * (scenario, topology, inventory, a Pulumi stack's settings, the papers' published results), so options, formats and error
 * wording are set in one place. Validation answers with SchemaProblems (see describe-errors.ts)
 * or throws them as InputErrors whose field names the caller chooses.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import scenarioSchema from '../../scenarios/scenario.schema.json';
import topologySchema from '../../topologies/topology.schema.json';
import stackSettingsSchema from '../../infra/pulumi/settings.schema.json';
import inventorySchema from '../inventory.schema.json';
import publishedResultsSchema from '../reproduce/published-results.schema.json';
import { InputError, throwIfAny } from '../errors';
import { describeSchemaErrors, type SchemaProblem } from './describe-errors';

type SchemaObject = Record<string, unknown>;

/** The schemas published beside the files they describe, so editors complete and check them. */
export const PUBLISHED_SCHEMAS = {
  scenario: { file: 'scenarios/scenario.schema.json', schema: scenarioSchema as SchemaObject },
  topology: { file: 'topologies/topology.schema.json', schema: topologySchema as SchemaObject },
  inventory: { file: 'core/inventory.schema.json', schema: inventorySchema as SchemaObject },
  stackSettings: { file: 'infra/pulumi/settings.schema.json', schema: stackSettingsSchema as SchemaObject },
  publishedResults: { file: 'core/reproduce/published-results.schema.json', schema: publishedResultsSchema as SchemaObject },
} as const;

export type SchemaName = keyof typeof PUBLISHED_SCHEMAS;

/** How a caller names a field in its error lines, from its dotted path ('' is the value itself). */
export type FieldName = (path: string) => string;

const ajv = new Ajv({
  allErrors: true,
  // scenario values such as `latency: 0.2 | [0.2, 0.4]` are unions of types
  allowUnionTypes: true,
  // the offending value and its schema's description go into the error line
  verbose: true,
  // the inventory's addresses; the only format in use, so ajv-formats is not needed
  formats: { ipv4: /^(\d{1,3}\.){3}\d{1,3}$/ },
});

const compiled = new Map<SchemaName, { source: SchemaObject; check: ValidateFunction }>();

/**
 * The compiled validator of a schema. `source` replaces the published file where the schema is
 * completed at run time (the scenario's event part comes from the registered event kinds): it is
 * compiled again when a different object is passed, replacing the earlier one under its $id.
 */
export function validatorOf(name: SchemaName, source: SchemaObject = PUBLISHED_SCHEMAS[name].schema): ValidateFunction {
  const cached = compiled.get(name);
  if (cached?.source === source) return cached.check;
  if (cached) ajv.removeSchema(cached.source);
  const check = ajv.compile(source);
  compiled.set(name, { source, check });
  return check;
}

/** Every problem the value has against the schema; empty when it conforms. */
export function schemaProblems(name: SchemaName, value: unknown, source?: SchemaObject): SchemaProblem[] {
  const check = validatorOf(name, source);
  return check(value) ? [] : describeSchemaErrors(check.errors ?? [], check.schema as SchemaObject);
}

/** The problems as InputErrors, each named the caller's way. */
export function asInputErrors(problems: SchemaProblem[], fieldName: FieldName): InputError[] {
  return problems.map((p) => new InputError(fieldName(p.path), p.problem));
}

/** The value, typed, when it conforms; otherwise throws every problem at once. */
export function checkShape<T>(name: SchemaName, value: unknown, fieldName: FieldName, source?: SchemaObject): T {
  throwIfAny(asInputErrors(schemaProblems(name, value, source), fieldName));
  return value as T;
}
