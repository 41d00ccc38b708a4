/**
 * npm's own reading of version ranges (the semver package, locked at the top of node_modules as a
 * dependency of the toolchain): the only one npm agrees with. Typed here for what the tests use;
 * the project does not depend on it, so there is no type package for an import.
 */
export interface Semver {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped package, see above
export const semver = require('semver') as Semver;
