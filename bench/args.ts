/** Command-line options every benchmark reads the same way. */

/** A value of `--name <value>` on the command line, or the fallback. */
export function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${JSON.stringify(process.argv[i + 1])}`);
  return value;
}

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/**
 * `--short`: the mode CI runs, on every benchmark, so that none can break unseen. Its figures
 * come from fewer samples and are not the ones to quote.
 */
export const SHORT = flag('short');
