import type { Command } from 'commander';

// Placeholder: the report commands are being written; this keeps the CLI loadable meanwhile.
export function registerReportCommands(_program: Command): void {}
