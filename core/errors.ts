/**
 * Bad input is reported as an InputError: it names the field (a JSON-path-like string such as
 * `phases[1].events[0].cut`) and says how to fix it. Nothing may have been started when one is
 * thrown. The Temporal layer turns it into a non-retryable ApplicationFailure of type
 * `InputError` so a scenario with bad input fails at once instead of retrying.
 */
export class InputError extends Error {
  readonly field: string;
  readonly problem: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'InputError';
    this.field = field;
    this.problem = problem;
  }
}

/** Several problems found in one pass over an input, reported together. */
export class InputErrors extends Error {
  readonly errors: InputError[];

  constructor(errors: InputError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'InputError';
    this.errors = errors;
  }
}

/** Throws all collected problems at once, or nothing when there are none. */
export function throwIfAny(errors: InputError[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new InputErrors(errors);
}
