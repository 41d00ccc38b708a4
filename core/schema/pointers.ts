/** JSON pointers (RFC 6901), as ajv reports where a problem is, turned into field paths. */

/** `/a~1b/0` -> ['a/b', '0'] (the escapes undone). */
export function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A property name as one pointer segment. */
export function pointerSegment(property: string): string {
  return property.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `/nodes/0/name` -> `nodes[0].name`; the root is ''. */
export function pointerToPath(pointer: string): string {
  return pointerSegments(pointer)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
}

/**
 * A copy of the value without what the pointers point at (a pointer to nothing is passed over):
 * what is left of a value once its bad fields are set aside, so that checks a schema cannot
 * express still run on the good ones and every problem is reported in one pass.
 */
export function withoutFields<T>(value: T, pointers: string[]): T {
  const copy = structuredClone(value);
  for (const pointer of pointers) {
    const segments = pointerSegments(pointer);
    const last = segments.pop();
    const parent = segments.reduce<unknown>((at, part) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined), copy);
    if (last === undefined || !parent || typeof parent !== 'object') continue;
    if (Array.isArray(parent)) parent.splice(Number(last), 1, undefined);
    else delete (parent as Record<string, unknown>)[last];
  }
  return copy;
}
