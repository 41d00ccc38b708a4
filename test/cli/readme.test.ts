/**
 * The README's own topology and scenario, copied out of it into a directory as a user saves them,
 * are accepted by `fragbench validate` run there, and planned as the README says: the topology's
 * fleet, Redis on its three data nodes, the cut, the restore and the latency epoch.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from '../support/cli';
import { fencedBlock } from '../support/markdown';

jest.setTimeout(60_000);

const README = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("the README's minimal topology and scenario validate as written", () => {
  for (const file of ['my-topology.yaml', 'my-scenario.yaml']) {
    const text = fencedBlock(README, `yaml ${file}`);
    if (text === undefined) throw new Error(`README.md has no \`\`\`yaml ${file} block`);
    writeFileSync(path.join(scratch, file), text);
  }
  const result = spawnSync(process.execPath, [CLI, 'validate', 'my-scenario.yaml'], { cwd: scratch, encoding: 'utf8', timeout: 50_000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(/^fleet three-cities: lyon, oslo, rome, desk \(client desk\); 4 links$/m);
  expect(result.stdout).toMatch(/redis on lyon, oslo, rome; YCSB on desk/);
  expect(result.stdout).toMatch(
    /link lyon-oslo\/0 cut \(both ways\)\n.*link lyon-oslo\/0 restored\n.*every link's latency set to 2 x the reference\nno warnings/,
  );
});
