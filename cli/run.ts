import type { Command } from 'commander';

// Placeholder: the run commands are being written; this keeps the CLI loadable meanwhile.
export function registerRunCommands(_program: Command): void {}
