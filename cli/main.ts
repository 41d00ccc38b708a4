import { Command } from 'commander';
import { registerFleetCommands } from './fleet';
import { registerRunCommands } from './run';
import { registerReportCommands } from './report';
import { registerReproduceCommands } from './reproduce';
import { reportCliError } from './errors';

const program = new Command('fragbench')
  .description('Build hybrid and fragmented clouds (or emulate them on this host) and measure distributed databases on them')
  .showHelpAfterError()
  // commander throws instead of exiting, so a bad option value exits 2 like any other bad input
  // (set before the commands are added: they inherit it)
  .exitOverride();

registerFleetCommands(program);
registerRunCommands(program);
registerReportCommands(program);
registerReproduceCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  // Exit now: a connection the SDK is still retrying would otherwise keep the process alive for
  // its own deadline after the user has been told what went wrong.
  process.exit(reportCliError(err));
});
