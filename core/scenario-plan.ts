/**
 * From a scenario file (shape already checked) and the fleets it names to the plan the engine
 * runs: one CellPlan per matrix cell, with settings merged, every interval time-scaled, and every
 * node, link and client checked against the fleet. Pure: the caller loads the fleets.
 */
import { databaseOptionProblems } from './database-options';
import { InputError, throwIfAny } from './errors';
import type { FleetRef } from './fleet-ref';
import type { Inventory, InventoryNode } from './inventory';
import type { Stack } from './stack';
import { coordinateRecord, expandMatrix, type MatrixCell } from './scenario-matrix';
import { eventKindOf } from './event-kinds/registry';
import type { TimelineState } from './event-kinds/event-kind';
import { expandEvents } from './scenario-events';
import type { Position } from './site-motion';
import {
  YCSB_DEFAULTS,
  type CellPlan,
  type DatabaseSpec,
  type FleetSpec,
  type PlannedPhase,
  type RunPlan,
  type ScenarioFile,
  type YcsbSpec,
} from './scenario';
import { VM_ONLY_NOT_EXECUTED_HERE, type DatabaseName } from './database';
import type { YcsbSettings } from './ycsb';

/** What validation needs to know of a fleet; an Inventory is one. */
export interface FleetView {
  name: string;
  clientNode: string;
  nodes: Pick<InventoryNode, 'name' | 'role' | 'tags' | 'position'>[];
  /** The topology's distance model, where it gave one (moves check against it). */
  distance?: Inventory['distance'];
  /** The network stack between the nodes, where known (a local fleet's); absent: the published one. */
  stack?: Stack;
  /** Reference latency (RTT, ms) and bandwidth where known: `validate` estimates resize times from them. */
  links: { id: string; a?: string; b?: string; latencyMs?: number; bandwidthMbps?: number }[];
}

export interface ResolvedFleet {
  ref: FleetRef;
  view: FleetView;
}

/** Looks up a fleet the caller loaded beforehand (see `fleetSpecs`). */
export type FleetLookup = (spec: FleetSpec) => ResolvedFleet;

export interface PlanOptions {
  /** Overrides the scenario's timeScale (e.g. `fragbench run --time-scale 0.1`). */
  timeScale?: number;
}

/** Nodes a database needs to form a cluster at all. */
const MIN_CLUSTER_NODES: Record<DatabaseName, number> = { redis: 3, cassandra: 1, mongodb: 1, mysql: 2, riak: 1, couchdb: 1 };

/** Every fleet a scenario names, each with where it is written; throws if one is malformed. */
export function fleetSpecs(file: ScenarioFile): { spec: FleetSpec; path: string }[] {
  const specs = [{ spec: file.fleet, path: 'fleet' }];
  for (const [dimension, values] of Object.entries(file.matrix ?? {})) {
    values.forEach((v, i) => {
      if (typeof v === 'object' && v.fleet) specs.push({ spec: v.fleet, path: `matrix.${dimension}[${i}].fleet` });
    });
  }
  const errors: InputError[] = [];
  for (const { spec, path } of specs) {
    const kinds = (['local', 'inventoryFile', 'pulumiStack'] as const).filter((k) => k in spec);
    if (kinds.length !== 1)
      errors.push(new InputError(path, 'needs exactly one of `local: <topology>`, `inventoryFile: <path>` or `pulumiStack: <stack>`'));
    else if ('cwd' in spec && kinds[0] !== 'pulumiStack') errors.push(new InputError(`${path}.cwd`, 'only a `pulumiStack` fleet takes `cwd`'));
    else if ('stack' in spec && kinds[0] !== 'local')
      errors.push(new InputError(`${path}.stack`, 'only a `local` fleet takes `stack` (a VM fleet runs the stack its Pulumi program built)'));
  }
  throwIfAny(errors);
  return specs;
}

export function fleetKey(spec: FleetSpec): string {
  return JSON.stringify(spec);
}

/** Validates the scenario against its fleets and expands it; throws InputError(s) naming each bad field. */
export function planScenario(file: ScenarioFile, lookup: FleetLookup, options: PlanOptions = {}): RunPlan {
  fleetSpecs(file);
  const errors: InputError[] = [];
  const timeScale = options.timeScale ?? file.timeScale ?? 1;
  if (!(timeScale > 0)) errors.push(new InputError('timeScale', 'must be a number above 0 (1 = real time, 0.1 = ten times faster)'));
  if (file.windowSeconds !== undefined) {
    errors.push(
      new InputError('windowSeconds', 'was removed: each client now runs as one process for its whole phase (no load windows); delete this setting'),
    );
  }
  const cells = expandMatrix(file, errors);
  throwIfAny(errors);

  // A problem in every cell is said once; one that only some cells have names them.
  const problems = new Map<string, { error: InputError; cells: string[] }>();
  const plans = cells.map((cell) => {
    const cellErrors: InputError[] = [];
    const plan = planCell(file, cell, lookup, timeScale, cellErrors);
    for (const e of cellErrors) {
      const seen = problems.get(e.message) ?? { error: e, cells: [] };
      seen.cells.push(cell.cellId);
      problems.set(e.message, seen);
    }
    return plan;
  });
  throwIfAny(
    [...problems.values()].map(({ error, cells: where }) =>
      where.length === cells.length || cells.length === 1
        ? error
        : new InputError(error.field, `${error.problem} (in cell${where.length > 1 ? 's' : ''} ${where.join(', ')})`),
    ),
  );
  return {
    scenario: file.name,
    experiment: file.experiment,
    timeScale,
    ...(file.lossSeed === undefined ? {} : { lossSeed: file.lossSeed }),
    cells: plans,
  };
}

/** `flush`, `load`, `run`, or with the index where a kind repeats (`run2`), or the run phase's label. */
function phaseName(file: ScenarioFile, i: number): string {
  const phase = file.phases[i];
  if (phase.phase === 'run' && phase.label) return phase.label;
  return file.phases.filter((p) => p.phase === phase.phase).length > 1 ? `${phase.phase}${i}` : phase.phase;
}

/** The scenario's settings with each coordinate's overrides applied in dimension order. */
function mergedSettings(file: ScenarioFile, cell: MatrixCell) {
  let fleet = file.fleet;
  let database: DatabaseSpec & { namePath: string; nodesPath: string; optionsPath: string } = {
    ...file.database,
    namePath: 'database.name',
    nodesPath: 'database.nodes',
    optionsPath: 'database.options',
  };
  let client = { name: file.client, path: 'client' };
  let ycsb: YcsbSpec = { ...file.ycsb };
  let latencyScale: number | undefined;
  let bandwidthScale: number | undefined;
  for (const c of cell.coordinates) {
    const o = c.overrides;
    if (o.fleet) fleet = o.fleet;
    if (o.database) {
      database = {
        ...database,
        ...o.database,
        namePath: o.database.name ? `${c.path}.database.name` : database.namePath,
        nodesPath: o.database.nodes ? `${c.path}.database.nodes` : database.nodesPath,
        optionsPath: o.database.options ? `${c.path}.database.options` : database.optionsPath,
      };
    }
    if (o.client) client = { name: o.client, path: `${c.path}.client` };
    if (o.ycsb) ycsb = { ...ycsb, ...o.ycsb };
    if (c.dimension === 'database') database = { ...database, name: c.name as DatabaseName, namePath: c.path };
    if (c.dimension === 'workload') ycsb.workload = c.name as YcsbSettings['workload'];
    if (c.dimension === 'latencyScale') latencyScale = c.name as number;
    if (c.dimension === 'bandwidthScale') bandwidthScale = c.name as number;
  }
  return { fleet, database, client, ycsb: { ...YCSB_DEFAULTS, ...ycsb }, latencyScale, bandwidthScale };
}

function planCell(file: ScenarioFile, cell: MatrixCell, lookup: FleetLookup, timeScale: number, errors: InputError[]): CellPlan {
  const s = mergedSettings(file, cell);
  const { ref, view } = lookup(s.fleet);
  const dataNodes = view.nodes.filter((n) => n.role === 'data').map((n) => n.name);

  const database = s.database.name;
  if (!database)
    errors.push(
      new InputError(
        'database.name',
        'is required: name the database (redis, cassandra, mongodb, mysql, riak, couchdb) or add a `database` matrix dimension',
      ),
    );
  const nodes = s.database.nodes === undefined || s.database.nodes === 'all' ? dataNodes : s.database.nodes;
  nodes.forEach((node, i) => {
    const where = s.database.nodes === 'all' || s.database.nodes === undefined ? s.database.nodesPath : `${s.database.nodesPath}[${i}]`;
    if (!dataNodes.includes(node))
      errors.push(new InputError(where, `"${node}" is not a data node of fleet ${view.name}; data nodes: ${dataNodes.join(', ')}`));
    if (nodes.indexOf(node) !== i) errors.push(new InputError(where, `"${node}" is listed twice`));
  });
  if (database && nodes.length < MIN_CLUSTER_NODES[database]) {
    errors.push(new InputError(s.database.nodesPath, `${database} needs at least ${MIN_CLUSTER_NODES[database]} nodes to form a cluster; list more`));
  }
  if (database && VM_ONLY_NOT_EXECUTED_HERE.includes(database) && 'local' in s.fleet) {
    errors.push(
      new InputError(
        s.database.namePath,
        `${database} runs only on VM fleets (inventoryFile or pulumiStack), where its adapter installs the vendor's packages; ` +
          `it has never been executed here and cannot run on local fleet ${view.name}: choose redis or cassandra, or a VM fleet`,
      ),
    );
  }
  if (s.database.cpus !== undefined && !('local' in s.fleet)) {
    errors.push(
      new InputError(
        'database.cpus',
        `caps each server's CPU on a local fleet, whose nodes share this host's cores; on fleet ${view.name} each node is a VM whose size sets its CPU: leave it out`,
      ),
    );
  }
  if (database) errors.push(...databaseOptionProblems(database, s.database.options, s.database.optionsPath, s.database.replication));
  const client = s.client.name ?? view.clientNode;
  if (!view.nodes.some((n) => n.name === client)) {
    errors.push(new InputError(s.client.path, `"${client}" is not a node of fleet ${view.name}; nodes: ${view.nodes.map((n) => n.name).join(', ')}`));
  }

  const phases = file.phases.map((phase, i): PlannedPhase => {
    const path = `phases[${i}]`;
    const name = phaseName(file, i);
    if (phase.phase === 'flush') return { kind: 'flush', name, fieldCount: s.ycsb.fieldCount };
    const ycsb: YcsbSettings = { ...s.ycsb, ...phase.ycsb };
    if (phase.phase === 'load') return { kind: 'load', name, ycsb };
    const operations = phase.operations ?? (phase.duration === undefined ? ycsb.operationCount : undefined);
    return {
      kind: 'run',
      name,
      durationS: phase.duration === undefined ? undefined : phase.duration * timeScale,
      operations,
      ycsb,
      warmup: phase.warmup ?? false,
      waitForResizes: phase.waitForResizes ?? false,
      measure: phase.measure ?? [],
      events: expandEvents(phase.events ?? [], path, timeScale, phase.duration, errors),
    };
  });
  const names = phases.map((p) => p.name);
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i)
      errors.push(new InputError(`phases[${i}].label`, `phase name "${n}" is used twice; give each run phase its own label`));
  });
  checkTimeline(phases, nodes, dataNodes, view, errors);

  return {
    cellId: cell.cellId,
    coordinates: coordinateRecord(cell),
    fleet: ref,
    database: database ?? 'redis',
    nodes,
    client,
    settings: {
      replication: s.database.replication,
      options: s.database.options,
      ...(s.database.cpus !== undefined ? { cpusPerNode: s.database.cpus } : {}),
    },
    latencyScale: s.latencyScale,
    bandwidthScale: s.bandwidthScale,
    phases,
    referenceCellId: cell.referenceCellId,
  };
}

/**
 * Walks the events in time order with the state they change (cluster members, cut links,
 * running clients), so a scenario cannot remove a node that is not there or restore a link
 * that is not cut. State carries over from one run phase to the next, except clients.
 */
function checkTimeline(phases: PlannedPhase[], startNodes: string[], dataNodes: string[], view: FleetView, errors: InputError[]): void {
  const members = new Set(startNodes);
  const cut = new Set<string>();
  const down = new Set<string>();
  const linkIds = new Set(view.links.map((l) => l.id));
  const nodeNames = view.nodes.map((n) => n.name);
  const positions = new Map<string, Position>();
  for (const phase of phases) {
    if (phase.kind !== 'run') continue;
    const state: TimelineState = { members, cut, down, clients: new Set<string>(), linkIds, nodeNames, dataNodes, positions, fleet: view };
    for (const event of phase.events) {
      // Each kind checks what it contradicts and applies its own change to the state.
      const problem = eventKindOf(event.action).check?.(event.action, state, `at ${event.atS} s`);
      if (problem) errors.push(new InputError(event.path, problem));
    }
  }
}
