import { CommanderError } from 'commander';
import { InputError, InputErrors } from '../core/errors';

/** Prints an error the way a user needs it; returns the exit code (2 for bad input, 1 otherwise). */
export function reportCliError(err: unknown): number {
  // commander has printed its own line (a bad option value, a missing argument) and the help, or
  // the help or version that was asked for (exit code 0).
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  if (err instanceof InputError || err instanceof InputErrors) {
    console.error(`fragbench: invalid input\n${err.message}`);
    return 2;
  }
  const message = err instanceof Error ? err.message : String(err);
  console.error(`fragbench: ${message}`);
  if (process.env.FRAGBENCH_DEBUG && err instanceof Error) console.error(err.stack);
  return 1;
}
