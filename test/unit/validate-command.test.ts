/**
 * `fragbench validate`: every shipped scenario prints its plan without touching the host; one
 * written for cloud stacks says how to plan it locally, and `--topology` does.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

jest.setTimeout(120_000);

const CLI = path.join(__dirname, '../../bin/fragbench.js');
const ROOT = path.join(__dirname, '../..');
const validate = (...args: string[]) => spawnSync(process.execPath, [CLI, 'validate', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

const CLOUD_ONLY = ['distance', 'vertical', 'vm-packing'];
const shipped = readdirSync(path.join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));

test.each(shipped.filter((s) => !CLOUD_ONLY.includes(s)))('%s: its plan, from the topology alone', (scenario) => {
  const result = validate(`scenarios/${scenario}.yaml`, '--json');
  expect(result.stderr).not.toMatch(/invalid input/);
  expect(result.status).toBe(0);
  const plan = JSON.parse(result.stdout) as { cells: unknown[] };
  expect(plan.cells.length).toBeGreaterThan(0);
});

test.each(CLOUD_ONLY)('%s (cloud stacks): refused with the fix named, then planned on a local topology with --topology', (scenario) => {
  const refused = validate(`scenarios/${scenario}.yaml`);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toMatch(/pulumiStack: .*`fragbench validate <scenario> --topology <topology>`/);
  const planned = validate(`scenarios/${scenario}.yaml`, '--topology', 'hybrid-virginia');
  expect(planned.status).toBe(0);
  expect(planned.stdout).toMatch(/^fleet hybrid-virginia: /m);
  expect(planned.stdout).not.toMatch(/pulumiStack/);
});
