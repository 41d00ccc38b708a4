import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { registerFleetCommands } from './fleet';
import { registerRunCommands } from './run';
import { registerReportCommands } from './report';
import { registerRunsCommands } from './runs';
import { registerCompareCommand } from './compare';
import { registerReproduceCommands } from './reproduce';
import { reportCliError } from './errors';

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

registerFleetCommands(program);
registerRunCommands(program);
registerReportCommands(program);
registerRunsCommands(program);
registerCompareCommand(program);
registerReproduceCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  // Exit now: a connection the SDK is still retrying would otherwise keep the process alive for
  // its own deadline after the user has been told what went wrong.
  process.exit(reportCliError(err));
});
