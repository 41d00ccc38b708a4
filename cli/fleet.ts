import type { Command } from 'commander';

// Placeholder: the fleet commands are being written; this keeps the CLI loadable meanwhile.
export function registerFleetCommands(_program: Command): void {}
