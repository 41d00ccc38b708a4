/**
 * Parsers for option values, handed to commander (`.option(flags, description, parser)`): commander
 * calls them while it parses and prints their InvalidArgumentError after the option's name, e.g.
 * `option '--time-scale <factor>' argument '0' is invalid. "0" is not a number above 0; ...`.
 * Enumerated options use commander's own `Option.choices`.
 */
import { InvalidArgumentError } from 'commander';

/** A factor such as a time or latency scale: a finite number above 0. */
export function positiveNumber(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`"${value}" is not a number above 0; give e.g. 0.5`);
  return n;
}

/** A count such as repetitions: a whole number of at least 1. */
export function wholeNumberAbove0(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a whole number of at least 1; give e.g. 3`);
  return n;
}
