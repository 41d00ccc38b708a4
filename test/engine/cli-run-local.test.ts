/**
 * `fragbench run <scenario> --local` on a host with only the project installed: the CLI starts the
 * local Temporal dev server (if none answers), runs a worker in its own process for the run, and
 * the run brings its fleet up, measures, reports and takes the fleet down, as the quickstart does.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { stopDevServer } from '../../worker/dev-server';
import { writeThreeSitesScenario, writeThreeSitesTopology } from '../support/small-topology';

jest.setTimeout(240_000);

const CLI = path.join(__dirname, '../../bin/fragbench.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-local-'));

afterAll(async () => {
  await stopDevServer();
  rmSync(scratch, { recursive: true, force: true });
});

test('run --local: dev server and worker started for the run; the run completes, reports and leaves no fleet', async () => {
  const topology = writeThreeSitesTopology(path.join(scratch, 'two-by-one.yaml'), 'cli-three');
  const scenario = writeThreeSitesScenario(path.join(scratch, 'mine.yaml'), {
    name: 'cli-local',
    experiment: 'Does the CLI run a scenario with nothing prepared?',
    fleet: { local: topology },
    run: { duration: 6 },
  });
  const results = path.join(scratch, 'results');
  const run = spawnSync(process.execPath, [CLI, 'run', scenario, '--local'], {
    env: { ...process.env, FRAGBENCH_RESULTS_DIR: results },
    encoding: 'utf8',
    timeout: 200_000,
  });
  expect(run.stderr).not.toMatch(/no Temporal server answered/);
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^started run cli-local-/m);
  const report = /^report: (.+)$/m.exec(run.stdout)?.[1];
  expect(report && existsSync(report)).toBe(true);
  const { stdout } = await runHost(['ip', 'netns', 'list']);
  expect(stdout).not.toMatch(/^fb-(ant|bee|cow|desk)\b/m);
});
