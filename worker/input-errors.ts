/**
 * Activities throw InputError (core/errors.ts) for bad input. Temporal would retry any error it
 * does not know is final; this interceptor turns InputError into a non-retryable
 * ApplicationFailure of type `InputError` carrying the fields, so a bad scenario fails at once.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { InputError, InputErrors } from '../core/errors';

function fieldsOf(err: InputError | InputErrors): string[] {
  return 'errors' in err ? err.errors.map((e) => e.field) : [err.field];
}

export function asNonRetryable(err: unknown): unknown {
  // By name, not instanceof: the error may come from another copy of the module.
  if (!(err instanceof Error) || err.name !== 'InputError') return err;
  const input = err as InputError | InputErrors;
  return ApplicationFailure.create({ type: 'InputError', message: input.message, nonRetryable: true, details: [{ fields: fieldsOf(input) }] });
}

export const inputErrorInterceptor: ActivityInterceptorsFactory = () => ({
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
