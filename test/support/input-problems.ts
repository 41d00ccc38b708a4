import { InputError, InputErrors } from '../../core/errors';

/** The InputErrors `work` is rejected with; fails the test when it is accepted or fails otherwise. */
export function inputProblems(work: () => unknown): InputError[] {
  try {
    work();
  } catch (err) {
    if (err instanceof InputErrors) return err.errors;
    if (err instanceof InputError) return [err];
    throw err;
  }
  throw new Error('the input was accepted');
}
