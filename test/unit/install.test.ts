/**
 * A clean install: package.json's `engines` is what the locked packages need (each branch's lowest
 * version satisfies every locked package's own `engines.node`, and the version just below it does
 * not, so the range is neither looser nor stricter than the lock), and every locked package with
 * an install script has been reviewed in `allowScripts` (npm 11 runs only the approved ones and
 * warns about the rest; CONTRIBUTING.md says why each is approved or denied), with no entry left
 * for a package the lock no longer has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { semver } from '../support/npm-semver';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean }>;
};

const locked = Object.entries(lock.packages).filter(([where]) => where !== '');
const nodeRanges = locked.flatMap(([where, p]) => (p.engines?.node ? [[where.replace(/^.*node_modules\//, ''), p.engines.node] as const] : []));
/** The lowest version of each branch of the range, e.g. 20.19.0, 22.13.0, 24.0.0. */
const lowest = pkg.engines.node.split('||').map((branch) => semver.minVersion(branch.trim())!.version);

test.each(lowest)('node %s, the lowest of a branch of engines.node, satisfies every locked package', (version) => {
  const refused = nodeRanges.filter(([, range]) => !semver.satisfies(version, range));
  expect(refused).toEqual([]);
});

test.each(lowest)('the version just below %s is refused by some locked package: the range is as tight as the lock', (version) => {
  const [major, minor] = version.split('.').map(Number);
  const below = minor > 0 ? `${major}.${minor - 1}.99` : `${major - 1}.99.99`;
  expect(nodeRanges.some(([, range]) => !semver.satisfies(below, range))).toBe(true);
});

test('every locked package with an install script is approved or denied in allowScripts, and nothing else is', () => {
  const withScripts = [...new Set(locked.filter(([, p]) => p.hasInstallScript).map(([where]) => where.replace(/^.*node_modules\//, '')))].sort();
  const reviewed = Object.keys(pkg.allowScripts ?? {})
    .map((entry) => entry.replace(/(.)@[^@]*$/, '$1'))
    .sort();
  expect(reviewed).toEqual(withScripts);
});
