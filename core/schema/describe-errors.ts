/**
 * The one translation from ajv's errors to the project's error lines: which field (a path such as
 * `phases[1].events[0].cut`), what is wrong with it, and what it should be. Every schema the
 * project validates goes through here, so a scenario, a topology, an inventory and a stack's
 * settings all complain the same way.
 */
import type { ErrorObject } from 'ajv';
import { pointerSegment, pointerSegments, pointerToPath } from './pointers';

type SchemaObject = Record<string, unknown>;

/** One bad field: where it is (JSON pointer and dotted path) and the sentence the user reads. */
export interface SchemaProblem {
  /** e.g. `/phases/1/events/0/cut`; a missing or unknown property's own pointer, not its parent's. */
  pointer: string;
  /** e.g. `phases[1].events[0].cut`; '' for the value itself. */
  path: string;
  problem: string;
}

/** Keywords whose branches each report their own errors; one summary line replaces them. */
const ALTERNATIVES = new Set(['anyOf', 'oneOf']);

/**
 * One problem per field, first error first. `root` is the schema validated against: it supplies
 * the description of a required property declared elsewhere than the `required` list (an
 * if/then branch).
 */
export function describeSchemaErrors(errors: ErrorObject[], root: SchemaObject): SchemaProblem[] {
  const branchPaths = new Set(errors.filter((e) => ALTERNATIVES.has(e.keyword)).map((e) => e.instancePath));
  const deeper = (p: string) => errors.some((e) => e.instancePath.startsWith(`${p}/`) && e.keyword !== 'if');
  const byPointer = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    const at = e.instancePath;
    if (branchPaths.has(at)) {
      // A value that matched no alternative: say once what the alternatives were, unless one of
      // them got far enough to complain about a field inside it (that line is the useful one).
      if (deeper(at) || byPointer.has(at)) continue;
      const wanted = errors.filter((x) => x.instancePath === at).flatMap(alternativeOf);
      byPointer.set(at, wanted.length ? `must be ${[...new Set(wanted)].join(' or ')}${got(e.data)}` : describeOne(e, root)[1]);
      continue;
    }
    const [pointer, problem] = describeOne(e, root);
    if (!byPointer.has(pointer)) byPointer.set(pointer, problem);
  }
  return [...byPointer].map(([pointer, problem]) => ({ pointer, path: pointerToPath(pointer), problem }));
}

/** What one branch of an anyOf/oneOf would have accepted, in words. */
function alternativeOf(e: ErrorObject): string[] {
  if (e.keyword === 'type') return [String(e.params.type)];
  if (e.keyword === 'const') return [JSON.stringify(e.params.allowedValue)];
  if (e.keyword === 'enum') return (e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v));
  return [];
}

function describeOne(e: ErrorObject, root: SchemaObject): [string, string] {
  const description = descriptionOf(e.parentSchema);
  switch (e.keyword) {
    case 'additionalProperties': {
      const allowed = Object.keys(propertiesOf(e.parentSchema));
      return [
        `${e.instancePath}/${pointerSegment(String(e.params.additionalProperty))}`,
        `unknown field; ${allowed.length ? `expected one of: ${allowed.join(', ')}` : 'remove it'}`,
      ];
    }
    case 'required': {
      const missing = String(e.params.missingProperty);
      const declared = propertiesOf(e.parentSchema)[missing] ?? propertyAt(root, e.instancePath, missing);
      const what = descriptionOf(declared);
      return [`${e.instancePath}/${pointerSegment(missing)}`, `is required${what ? `: ${what}` : ''}`];
    }
    case 'enum':
      return [e.instancePath, `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}${got(e.data)}`];
    case 'pattern':
      return [e.instancePath, `${description ? `must be ${description}` : `must match ${String(e.params.pattern)}`}${got(e.data)}`];
    default:
      return [e.instancePath, `${e.message ?? 'is invalid'}${got(e.data)}${description ? `: ${description}` : ''}`];
  }
}

/** The offending value, when it is short enough to quote (a scalar). */
function got(data: unknown): string {
  return data === null || typeof data !== 'object' ? ` (got ${JSON.stringify(data)})` : '';
}

function descriptionOf(schema: unknown): string | undefined {
  const description = (schema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' ? description : undefined;
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  return (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
}

/** The schema the root declares for `property` of the value at `pointer` (following local $refs). */
function propertyAt(root: SchemaObject, pointer: string, property: string): unknown {
  const resolve = (s: unknown): SchemaObject | undefined => {
    const ref = (s as { $ref?: unknown } | undefined)?.$ref;
    if (typeof ref !== 'string') return s as SchemaObject | undefined;
    return pointerSegments(ref.replace(/^#/, '')).reduce<unknown>((at, part) => (at as SchemaObject | undefined)?.[part], root) as
      SchemaObject | undefined;
  };
  let at = resolve(root);
  for (const part of pointerSegments(pointer)) {
    at = resolve(/^\d+$/.test(part) ? at?.items : (propertiesOf(at)[part] ?? at?.additionalProperties));
  }
  return propertiesOf(at)[property];
}
