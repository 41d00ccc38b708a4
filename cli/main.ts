import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { reportCliError } from './errors';
import { COMMAND_GROUPS, groupsFor } from './command-groups';

/** The version a user reports a problem with: package.json's, the one place it is kept. */
const { version } = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };

const program = new Command('fragbench')
  .version(version, '-V, --version', 'print the version of fragbench and exit')
  .description('Build hybrid and fragmented clouds (or emulate them on this host) and measure distributed databases on them')
  .showHelpAfterError()
  // An option belongs to the command it follows (`runs --json` and `runs show <run> --json` are two).
  .enablePositionalOptions()
  // commander throws instead of exiting, so a bad option value exits 2 like any other bad input
  // (set before the commands are added: they inherit it)
  .exitOverride();

async function main(): Promise<void> {
  // Only the group that owns the command named loads: `fleet status` needs none of the Temporal
  // SDK, which is most of what loading everything costs (1,024 modules against 219).
  for (const group of groupsFor(process.argv[2], COMMAND_GROUPS)) group.load()(program);
  await program.parseAsync(process.argv);
}

main().catch((err: unknown) => {
  // Exit now: a connection the SDK is still retrying would otherwise keep the process alive for
  // its own deadline after the user has been told what went wrong.
  process.exit(reportCliError(err));
});
