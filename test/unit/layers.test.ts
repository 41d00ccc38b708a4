/**
 * The house plan's first rules, checked on the source: `core/` (domain types, schemas, plans)
 * imports nothing from outside `core/` (besides packages), so every other layer can depend on it
 * and it on none of them; `platform/` (processes, files, paths, waits) imports only itself, core
 * and node's built-ins, so infra, services and activities can all share it. Import cycles across
 * the tree are checked by `npm run check:imports`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const CORE = path.resolve(__dirname, '../../core');
const PLATFORM = path.resolve(__dirname, '../../platform');

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]);
}

// The JSON schemas published for editors beside the scenario and topology files are data, not a
// layer: core reads them.
const isData = (spec: string) => spec.endsWith('.schema.json');

test('core imports only core (and packages, and the published JSON schemas)', () => {
  const outside = readdirSync(CORE)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => importsOf(path.join(CORE, f)).filter((spec) => spec.startsWith('.') && !isData(spec) && !path.resolve(CORE, spec).startsWith(`${CORE}${path.sep}`)).map((spec) => `${f} -> ${spec}`));
  expect(outside).toEqual([]);
});

test('the check sees an import that leaves core', () => {
  // The pattern the test relies on, tried on a line that breaks the rule.
  const line = "import type { X } from '../activities/contracts';";
  expect([...line.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].map((m) => m[1])).toEqual(['../activities/contracts']);
});

test('platform imports only platform, core and node built-ins', () => {
  const inside = (spec: string) => [PLATFORM, CORE].some((dir) => path.resolve(PLATFORM, spec).startsWith(`${dir}${path.sep}`));
  const allowed = (spec: string) => spec.startsWith('node:') || (spec.startsWith('.') && inside(spec));
  const outside = readdirSync(PLATFORM)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => importsOf(path.join(PLATFORM, f)).filter((spec) => !allowed(spec)).map((spec) => `${f} -> ${spec}`));
  expect(outside).toEqual([]);
});
