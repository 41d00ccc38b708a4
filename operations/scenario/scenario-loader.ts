/**
 * A scenario from its file to a validated plan: read it, check its shape, resolve its fleets
 * (offline against their topologies, or against the running fleet), plan it, and build the run
 * record `prepareRun` starts a run with. The only place a scenario meets the real fleet before
 * anything starts; `fragbench run` and the scenario activities both call it.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../../core/errors';
import type { Inventory } from '../../core/inventory';
import type { RunRecord } from '../../core/run-record';
import type { RunPlan, ScenarioFile } from '../../core/scenario';
import { fleetKey, fleetSpecs, planScenario, type PlanOptions } from '../../core/scenario-plan';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { withTraceRows } from '../../core/scenario-traces';
import { runHost } from '../../platform/command';
import { withCurrentPaths } from '../monitor/path-watch';
import { loadFleet, projectPath, type FleetMode, type LoadedFleet } from './scenario-fleet';
import { version as FRAGBENCH_VERSION } from '../../package.json';
import { version as TEMPORAL_SDK_VERSION } from '@temporalio/worker/package.json';

export interface LoadedScenario {
  file: ScenarioFile;
  plan: RunPlan;
  fleets: LoadedFleet[];
}

/** Reads a scenario file (YAML or JSON), relative to the project root unless absolute. */
export function readScenarioFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(projectPath(file), 'utf8');
  } catch (err) {
    throw new InputError('scenarioFile', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseScenarioText(text, file);
}

/** A trace file's text, relative to the project root unless absolute. */
export function readTraceFile(file: string): string {
  return readFileSync(projectPath(file), 'utf8');
}

/**
 * Shape, trace files, fleets, meaning: every check a scenario gets before anything starts. The
 * plan carries the traces' rows; `file` stays as written (the run record stores it so).
 */
export async function loadScenario(value: unknown, mode: FleetMode, options: PlanOptions = {}): Promise<LoadedScenario> {
  const file = checkScenarioShape(value);
  const withRows = withTraceRows(file, readTraceFile);
  const fleets = new Map<string, LoadedFleet>();
  for (const { spec, path } of fleetSpecs(file)) {
    if (!fleets.has(fleetKey(spec))) fleets.set(fleetKey(spec), await loadFleet(spec, path, mode));
  }
  const plan = planScenario(withRows, (spec) => fleets.get(fleetKey(spec))!, options);
  return { file, plan, fleets: [...fleets.values()] };
}

export interface PrepareRunInput {
  runId: string;
  scenario?: unknown;
  scenarioFile?: string;
  options?: PlanOptions;
}

export interface PreparedRun {
  plan: RunPlan;
  /** What results.recordRunStart stores. */
  record: RunRecord;
}

/** Software on this host that a run's figures depend on; each a best effort. */
async function hostVersions(): Promise<Record<string, string>> {
  const probes: Record<string, string[]> = {
    'wireguard-tools': ['wg', '--version'],
    boringtun: ['boringtun-cli', '--version'],
    tinc: ['tincd', '--version'],
    'redis-server': ['redis-server', '--version'],
    java: ['java', '-version'],
  };
  const versions: Record<string, string> = {
    fragbench: FRAGBENCH_VERSION,
    node: process.version,
    'temporal-sdk': TEMPORAL_SDK_VERSION,
  };
  for (const [name, argv] of Object.entries(probes)) {
    const out = await runHost(argv, { allowFailure: true, timeoutMs: 5_000 }).catch(() => undefined);
    const line = `${out?.stdout ?? ''}${out?.stderr ?? ''}`.split('\n')[0].trim();
    if (out?.code === 0 && line) versions[name] = line;
  }
  return versions;
}

/** Stringified database options the scenario sets: they differ from the defaults by definition. */
function nonDefaultSettings(plan: RunPlan): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const cell of plan.cells) {
    for (const [key, value] of Object.entries(cell.settings.options ?? {})) settings[`${cell.database}.${key}`] = String(value);
    if (cell.settings.replication !== undefined) settings[`${cell.database}.replication`] = String(cell.settings.replication);
  }
  return settings;
}

/** A seed of 53 bits, the most a JSON number carries exactly (the emulator takes the same range). */
function randomLossSeed(): number {
  return Math.floor(Math.random() * 2 ** 53);
}

export async function prepareRun(input: PrepareRunInput): Promise<PreparedRun> {
  if ((input.scenario === undefined) === (input.scenarioFile === undefined)) {
    throw new InputError(
      'scenario',
      'give exactly one of `scenario` (the scenario as JSON) or `scenarioFile` (a path such as scenarios/quickstart.yaml)',
    );
  }
  const value = input.scenario ?? readScenarioFile(input.scenarioFile!);
  const { file, plan: planned, fleets } = await loadScenario(value, 'running', input.options);
  // One seed for the run, given to every cell: a re-run with the recorded seed repeats the drops.
  const lossSeed = planned.lossSeed ?? randomLossSeed();
  const plan: RunPlan = { ...planned, lossSeed, cells: planned.cells.map((cell) => ({ ...cell, lossSeed })) };
  const record: RunRecord = {
    runId: input.runId,
    scenario: plan.scenario,
    experiment: plan.experiment,
    startedAt: Date.now(),
    status: 'running',
    settings: { scenario: file, reference: file.reference, timeScale: plan.timeScale, cells: plan.cells },
    nonDefaultSettings: nonDefaultSettings(plan),
    versions: await hostVersions(),
    // A run record keeps one inventory: the first fleet's (a matrix over fleets names the others in settings).
    inventory: await withCurrentPaths(fleets[0].inventory as Inventory),
    cellIds: plan.cells.map((c) => c.cellId),
    lossSeed,
  };
  return { plan, record };
}
