/**
 * The CLI's commands in groups, each with the top-level names it adds, so that main.ts loads only
 * the module of the command a user named (and every group for help, a version or a name it does
 * not know, so that commander's own listing and errors stay whole).
 */
import type { Command } from 'commander';

export interface CommandGroup {
  /** The top-level commands the group's register function adds, exactly. */
  names: readonly string[];
  load(): (program: Command) => void;
}

/**
 * A module of this folder, loaded when called. `require`, not `import()`: the CLI runs as CommonJS
 * through tsx's require hook (bin/fragbench.js), which a dynamic import would bypass.
 */
function late<T>(module: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading on demand is the point
  return require(module) as T;
}

export const COMMAND_GROUPS: readonly CommandGroup[] = [
  { names: ['fleet'], load: () => late<typeof import('./fleet')>('./fleet').registerFleetCommands },
  {
    names: ['dev', 'worker', 'run', 'cancel', 'abort', 'quickstart'],
    load: () => late<typeof import('./run')>('./run').registerRunCommands,
  },
  { names: ['validate'], load: () => late<typeof import('./validate')>('./validate').registerValidateCommand },
  { names: ['report', 'export', 'results'], load: () => late<typeof import('./report')>('./report').registerReportCommands },
  { names: ['runs', 'follow'], load: () => late<typeof import('./runs')>('./runs').registerRunsCommands },
  { names: ['compare'], load: () => late<typeof import('./compare')>('./compare').registerCompareCommand },
  { names: ['reproduce'], load: () => late<typeof import('./reproduce')>('./reproduce').registerReproduceCommands },
];

/** The groups to load for a command line whose first word is `first`. */
export function groupsFor(first: string | undefined, groups: readonly CommandGroup[]): readonly CommandGroup[] {
  const owner = groups.find((g) => first !== undefined && g.names.includes(first));
  return owner ? [owner] : groups;
}
