/**
 * The CLI loads only the module of the command named: each group's names are exactly the commands
 * its module adds (a name missing there would make the command unknown), and `fleet status` run as
 * a user runs it, or `validate`, loads none of the Temporal SDK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { COMMAND_GROUPS, groupsFor } from '../../cli/command-groups';
import { runHost } from '../../platform/command';
import { CLI, scratchEnv } from '../support/cli';

// A CLI process per case: 1-2 s alone, over jest's default 5 s beside stage 1's lanes (CI of dc1d7a5).
jest.setTimeout(60_000);

test('each group names exactly the top-level commands its module adds, and no name is in two', () => {
  for (const group of COMMAND_GROUPS) {
    const program = new Command('fragbench');
    group.load()(program);
    expect(program.commands.map((c) => c.name()).sort()).toEqual([...group.names].sort());
  }
  const names = COMMAND_GROUPS.flatMap((g) => g.names);
  expect(new Set(names).size).toBe(names.length);
});

test('a known command loads its group alone; help, a version or an unknown word load every group', () => {
  expect(groupsFor('follow', COMMAND_GROUPS).map((g) => g.names)).toEqual([['runs', 'follow']]);
  for (const first of [undefined, '--help', '-V', 'nosuch']) expect(groupsFor(first, COMMAND_GROUPS)).toHaveLength(COMMAND_GROUPS.length);
});

test.each([
  [['fleet', 'status'], /no local fleet/],
  [['validate', 'quickstart'], /^fleet /m],
])('`fragbench %s` loads none of the Temporal SDK', async (args, printed) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-cli-groups-'));
  try {
    // Preloaded into the CLI's process: at exit, how many modules it had loaded, and of them the
    // Temporal SDK's code (a package.json read for its version number is not the SDK).
    const probe = path.join(dir, 'count-modules.js');
    writeFileSync(
      probe,
      "process.on('exit', () => { const all = Object.keys(require.cache); process.stderr.write(`modules ${all.length} temporal ${all.filter((m) => m.includes('@temporalio') && !m.endsWith('package.json')).length}\\n`); });",
    );
    const result = await runHost([process.execPath, '-r', probe, CLI, ...args], { env: scratchEnv(dir), allowFailure: true });
    expect(result.stdout).toMatch(printed);
    const [, modules, temporal] = /modules (\d+) temporal (\d+)/.exec(result.stderr)!;
    expect(Number(temporal)).toBe(0);
    expect(Number(modules)).toBeGreaterThan(50);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
