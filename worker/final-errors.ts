/**
 * Errors no retry can mend. Temporal retries any error it does not know is final; this
 * interceptor turns the project's final ones (core/errors.ts) into non-retryable
 * ApplicationFailures of the same type, so the run fails at once and says why:
 * - InputError: bad input, carrying the fields;
 * - StorageError: the disk refused a write of the run's records (full, read-only, failing),
 *   carrying the file and the errno's code.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { InputError, InputErrors, StorageError } from '../core/errors';

function fieldsOf(err: InputError | InputErrors): string[] {
  return 'errors' in err ? err.errors.map((e) => e.field) : [err.field];
}

export function asNonRetryable(err: unknown): unknown {
  // By name, not instanceof: the error may come from another copy of the module.
  if (!(err instanceof Error)) return err;
  if (err.name === 'InputError') {
    const input = err as InputError | InputErrors;
    return ApplicationFailure.create({ type: 'InputError', message: input.message, nonRetryable: true, details: [{ fields: fieldsOf(input) }] });
  }
  if (err.name === 'StorageError') {
    const { file, code } = err as StorageError;
    return ApplicationFailure.create({ type: 'StorageError', message: err.message, nonRetryable: true, details: [{ file, code }] });
  }
  return err;
}

export const finalErrorInterceptor: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        throw asNonRetryable(err);
      }
    },
  },
});
