/**
 * The commands around a scenario that need no Temporal server and no fleet, run as a user runs
 * them: `validate` on a file of one's own (good and bad), the plan `run --dry-run` prints, the
 * `quickstart` command's wiring (its scenario and options, not its four-minute run: the engine
 * project runs a scenario through `run --local`), options that are not numbers, and `dev --stop`.
 * A refused option must start nothing: no server contacted, no dev server started.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PlanView } from '../../core/plan-view';
import { isAlive, signalPid } from '../../platform/pid';
import { ManagedProcess, spawnDetached, writePidFile } from '../../platform/process';
import { statePaths } from '../../platform/paths';
import { temporalBinary } from '../../worker/dev-server';
import { fragbench, scratchEnv } from '../support/cli';
import { freeLoopbackPort } from '../support/ports';
import { smallTopology, writeSmallScenario } from '../support/small-topology';

jest.setTimeout(60_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-scenarios-'));
const env = scratchEnv(scratch);
/** Where `dev --stop` and the quickstart look for the dev server, under this file's scratch state. */
const devServerFile = (file: 'db' | 'pid') => path.join(env.FRAGBENCH_STATE_DIR, path.basename(statePaths.temporalDev(file)));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const [alpha, beta, gamma, client] = smallTopology.nodes.map((n) => n.name);
const typedLink = `${alpha}-${beta}/3`;
const mine = () =>
  writeSmallScenario(scratch, 'cli-plan', {
    experiment: 'Does validate plan a file its user wrote?',
    ycsb: { workload: 'b', recordCount: 100, target: 50 },
    phases: [
      { phase: 'load' },
      {
        phase: 'run',
        duration: 20,
        events: [
          { at: 5, cut: typedLink },
          { at: 10, restore: typedLink },
        ],
      },
    ],
  });

test("validate: a scenario file of one's own is planned on its topology, every event at its time", async () => {
  const result = await fragbench(['validate', mine()], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(
    new RegExp(
      `^fleet ${smallTopology.name}: ${alpha}, ${beta}, ${gamma}, ${client} \\(client ${client}\\); ${smallTopology.links.length} links$`,
      'm',
    ),
  );
  expect(result.stdout).toMatch(new RegExp(`^\\s+at 5 s .*: link ${typedLink} cut \\(both ways\\)$`, 'm'));
  expect(result.stdout).toMatch(new RegExp(`^\\s+at 10 s .*: link ${typedLink} restored$`, 'm'));
});

test('validate --json --time-scale: the same plan as JSON, every interval scaled', async () => {
  const result = await fragbench(['validate', mine(), '--json', '--time-scale', '0.5'], env);
  expect(result.code).toBe(0);
  const plan = JSON.parse(result.stdout) as PlanView;
  expect(plan.timeScale).toBe(0.5);
  const run = plan.cells[0].phases.find((p) => p.kind === 'run');
  expect(run?.durationS).toBe(10);
  expect(run?.events.map((e) => e.phaseAtS)).toEqual([2.5, 5]);
});

test('validate: a bad file is refused with every problem named by its field (exit 2), and no plan', async () => {
  const bad = writeSmallScenario(scratch, 'cli-bad', {
    database: { name: 'redis', nodes: [alpha, beta, 'nowhere'] },
    phases: [{ phase: 'run', duration: 20, events: [{ at: 5, cut: `${beta}-${gamma}/7` }] }],
  });
  const result = await fragbench(['validate', bad], env);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^fragbench: invalid input$/m);
  expect(result.stderr).toMatch(/^database\.nodes\[2\]: "nowhere" is not a data node of fleet plan/m);
  expect(result.stderr).toMatch(new RegExp(`^phases\\[0\\]\\.events\\[0\\]\\.cut: unknown link "${beta}-${gamma}/7"`, 'm'));
});

test('validate: a file that is not there names the argument and where it looked', async () => {
  const result = await fragbench(['validate', path.join(scratch, 'absent.yaml')], env);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`scenario: no scenario file "${path.join(scratch, 'absent.yaml')}"`);
});

test('run --dry-run prints the plan validate prints and starts nothing', async () => {
  const noServer = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freeLoopbackPort()}` };
  const [dry, plan] = await Promise.all([fragbench(['run', mine(), '--dry-run'], noServer), fragbench(['validate', mine()], env)]);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toBe(plan.stdout);
  expect(dry.stderr).toBe('');
});

test('quickstart: its options are the run options it passes on (its scenario is planned by validate in the unit project)', async () => {
  const help = await fragbench(['quickstart', '--help'], env);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: fragbench quickstart \[options\]$/m);
  expect(help.stdout).toMatch(/^\s+--time-scale <factor>/m);
  const plan = await fragbench(['run', 'quickstart', '--dry-run', '--time-scale', '0.5'], env);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toMatch(/^quickstart: .*time scale 0\.5/m);
});

test('an option that is not a number above 0: commander names the option and the value, and nothing starts', async () => {
  const refused = [
    ['run', 'quickstart', '--time-scale', '-1'],
    ['run', 'quickstart', '--follow', '--time-scale', 'fast'],
    ['validate', 'quickstart', '--time-scale', '0'],
    ['quickstart', '--time-scale', 'abc'],
  ];
  // A server address nothing answers on: a command that got as far as connecting would say so.
  const noServer = { ...env, TEMPORAL_ADDRESS: `127.0.0.1:${await freeLoopbackPort()}` };
  const results = await Promise.all(refused.map((args) => fragbench(args, noServer)));
  for (const [i, result] of results.entries()) {
    const value = refused[i][refused[i].length - 1];
    expect({ args: refused[i], code: result.code === 0 ? 0 : 'not 0', stdout: result.stdout }).toEqual({
      args: refused[i],
      code: 'not 0',
      stdout: '',
    });
    expect(result.stderr).toMatch(new RegExp(`option '--time-scale <factor>' argument '${value}' is invalid`));
    expect(result.stderr).not.toMatch(/no Temporal server answered|dev server starting/);
  }
  expect(existsSync(devServerFile('pid'))).toBe(false);
});

describe('dev --stop', () => {
  test('with no dev server of ours: says so, exit 0', async () => {
    const result = await fragbench(['dev', '--stop'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('no dev server of ours was running');
  });

  test('a PID file naming a process that is not our dev server: that process is left alone', async () => {
    const stranger = spawnDetached(['sleep', '30'], path.join(scratch, 'stranger.log'));
    try {
      writePidFile(devServerFile('pid'), stranger);
      const result = await fragbench(['dev', '--stop'], env);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe('no dev server of ours was running');
      expect(isAlive(stranger)).toBe(true);
    } finally {
      signalPid(stranger, 'SIGKILL');
    }
  });

  test('our dev server (its history file in its command line): stopped by its PID, the PID file removed', async () => {
    const argv = [
      await temporalBinary(),
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(await freeLoopbackPort()),
      '--db-filename',
      devServerFile('db'),
      '--log-level',
      'error',
    ];
    const server = ManagedProcess.start({ argv, logFile: path.join(scratch, 'temporal.log'), marker: devServerFile('db') });
    try {
      writePidFile(devServerFile('pid'), server.pid);
      const result = await fragbench(['dev', '--stop'], env);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe('dev server stopped');
      expect(server.isAlive()).toBe(false);
      expect(existsSync(devServerFile('pid'))).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
