/**
 * `fragbench validate`: a scenario checked against its topology (or another fleet given on the
 * command line) and its plan printed, touching nothing. Its own module, apart from the commands
 * that run scenarios, so that checking a scenario loads none of the Temporal SDK (about a fifth of
 * the modules and of the CPU a `run` needs to start); `run` plans through the same functions.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { loadScenario, readScenarioFile } from '../operations/scenario/scenario-loader';
import { formatPlanView, planView } from '../core/plan-view';
import { PROJECT_ROOT } from '../operations/scenario/scenario-fleet';
import { InputError } from '../core/errors';
import type { PlanOptions } from '../core/scenario-plan';
import { positiveNumber } from './options';

/** A scenario argument: a path (from here or the project root) or a shipped scenario's name. */
export function scenarioPath(arg: string): string {
  const candidates = [path.resolve(arg), path.resolve(PROJECT_ROOT, arg), path.resolve(PROJECT_ROOT, 'scenarios', `${arg}.yaml`)];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new InputError('scenario', `no scenario file "${arg}"; give a path or the name of one in scenarios/ (e.g. quickstart)`);
  return found;
}

export function planOptions(opts: { timeScale?: number }): PlanOptions {
  return { timeScale: opts.timeScale };
}

/** A fleet given on the command line instead of the scenario's: a local topology (`--topology`), or a Pulumi stack of this project (`--stack`). */
export type FleetOverride = { local: string } | { pulumiStack: string; cwd: string };

export function fleetOverride(opts: { topology?: string; stack?: string }): FleetOverride | undefined {
  if (opts.stack !== undefined) return { pulumiStack: opts.stack, cwd: '.' };
  return opts.topology === undefined ? undefined : { local: opts.topology };
}

/**
 * The scenario on another fleet without editing its file: its fleet, and every matrix value's
 * own fleet, become the one given (a cloud scenario planned on a local topology of its shape, or
 * any scenario run on a stack's inventory).
 */
function onFleet(scenario: unknown, fleet: FleetOverride): void {
  if (!scenario || typeof scenario !== 'object') return;
  const value = scenario as { fleet?: unknown; matrix?: Record<string, unknown> };
  value.fleet = { ...fleet };
  for (const axis of Object.values(value.matrix ?? {})) {
    if (!Array.isArray(axis)) continue;
    for (const entry of axis) if (entry && typeof entry === 'object' && 'fleet' in entry) (entry as { fleet: unknown }).fleet = { ...fleet };
  }
}

/** The plan without touching the host (a stack's inventory is read): what `validate` prints, and what `run` prints first. */
export async function scenarioPlan(scenarioFile: string, options: PlanOptions, fleet?: FleetOverride) {
  const value = readScenarioFile(scenarioFile);
  if (fleet !== undefined) onFleet(value, fleet);
  const { plan, fleets } = await loadScenario(value, 'offline', options);
  return { value, plan, view: planView(plan, fleets[0].view, availableParallelism()) };
}

async function validateCommand(scenarioArg: string, opts: { timeScale?: number; json?: boolean; topology?: string; stack?: string }) {
  const { view } = await scenarioPlan(scenarioPath(scenarioArg), planOptions(opts), fleetOverride(opts));
  console.log(opts.json ? JSON.stringify(view, null, 2) : formatPlanView(view));
}

export function registerValidateCommand(program: Command): void {
  program
    .command('validate <scenario>')
    .description(
      'check a scenario against its topology and print its plan: fleet, cells, phases, each event at its time, expected duration, warnings; touches nothing',
    )
    .option('--time-scale <factor>', 'the plan with every interval shrunk, as `run --time-scale` would', positiveNumber)
    .option('--json', 'the same plan as JSON')
    .addOption(
      new Option(
        '--topology <name|file>',
        "plan on this local topology instead of the scenario's fleet (e.g. a cloud scenario on hybrid-virginia)",
      ).conflicts('stack'),
    )
    .option('--stack <name>', "plan on this Pulumi stack's inventory instead of the scenario's fleet")
    .action(validateCommand);
}
