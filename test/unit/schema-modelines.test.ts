/**
 * Every shipped scenario and topology names its JSON schema on its first line, the way YAML
 * editors (yaml-language-server) find it, so a user's editor completes and checks the file; the
 * schema named is the one the code validates with.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

test.each([
  ['scenarios', 'scenario.schema.json'],
  ['topologies', 'topology.schema.json'],
])('every YAML file in %s/ starts with the modeline for %s', (dir, schema) => {
  const files = readdirSync(path.join(ROOT, dir)).filter((f) => f.endsWith('.yaml'));
  expect(files.length).toBeGreaterThan(3);
  for (const file of files) {
    const first = readFileSync(path.join(ROOT, dir, file), 'utf8').split('\n')[0];
    expect(`${file}: ${first}`).toBe(`${file}: # yaml-language-server: $schema=${schema}`);
  }
  expect(existsSync(path.join(ROOT, dir, schema))).toBe(true);
});
