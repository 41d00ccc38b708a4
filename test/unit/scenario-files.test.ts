/**
 * Every scenario shipped in scenarios/ parses, matches the schema, and checks out against the
 * fleet it names: local topologies as `fleet up` would build them, Pulumi stacks as their
 * configs in Pulumi.<stack>.yaml plan them. The link-removal files match their generator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { topologyView } from '../../operations/scenario/scenario-fleet';
import { linkId } from '../../core/inventory';
import { loadTopology } from '../../core/load-topology';
import type { FleetSpec, RunPlan } from '../../core/scenario';
import { fleetKey, planScenario, type FleetView, type ResolvedFleet } from '../../core/scenario-plan';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import { withTraceRows } from '../../core/scenario-traces';
import { readTraceFile } from '../../operations/scenario/scenario-loader';
import { planFragmented } from '../../infra/pulumi/plan-fragmented';
import { planHybrid } from '../../infra/pulumi/plan-hybrid';
import type { FleetPlan } from '../../infra/pulumi/plan';
import {
  meshTopology,
  removalOrder,
  renderScenario,
  renderTopology,
  SCENARIO_FILE,
  TOPOLOGY_FILE,
  REMOVALS,
  MESH_LINKS,
  REPRODUCTION_FAILOVERS,
  reproductionTopology,
  reproductionTopologyFile,
} from '../../scenarios/link-removal';
import { stackSettings } from '../infra/harness';

const DIR = path.resolve(__dirname, '..', '..', 'scenarios');
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function planView(plan: FleetPlan): FleetView {
  return {
    name: plan.name,
    clientNode: plan.clientNode,
    nodes: plan.nodes.map((n) => ({ name: n.name, role: n.role })),
    links: plan.links.map((l) => ({ id: linkId(l.a, l.b, l.type) })),
  };
}

const fleets = new Map<string, ResolvedFleet>();

/** The fleet a spec names, without building it (once per spec: loading a stack's plan takes a while). */
function offlineFleet(spec: FleetSpec): ResolvedFleet {
  const key = fleetKey(spec);
  if (!fleets.has(key)) fleets.set(key, resolveOffline(spec));
  return fleets.get(key)!;
}

function resolveOffline(spec: FleetSpec): ResolvedFleet {
  if ('local' in spec) return { ref: { kind: 'local' as const }, view: topologyView(loadTopology(spec.local)) };
  if ('pulumiStack' in spec) {
    const settings = stackSettings(spec.pulumiStack);
    const plan = settings.kind === 'hybrid' ? planHybrid(settings) : planFragmented(settings);
    return { ref: { kind: 'pulumi' as const, stack: spec.pulumiStack }, view: planView(plan) };
  }
  throw new Error(`shipped scenarios name no inventory files (got ${spec.inventoryFile})`);
}

const plans = new Map<string, RunPlan>();

function planFile(file: string): RunPlan {
  if (!plans.has(file)) plans.set(file, planFresh(file));
  return plans.get(file)!;
}

function planFresh(file: string): RunPlan {
  const value = parseScenarioText(readFileSync(path.join(DIR, file), 'utf8'), file);
  return planScenario(withTraceRows(checkScenarioShape(value), readTraceFile), offlineFleet);
}

const EXPERIMENTS = [
  'latency-epochs',
  'traffic',
  'single-resize',
  'resize-on-the-fly',
  'link-removal',
  'bursting',
  'distance',
  'horizontal-scaling',
  'vertical-scaling',
  'vm-packing',
  'timed-events',
  'quickstart',
];

describe('shipped scenarios', () => {
  test.each(files)('%s validates against its fleet', (file) => {
    const plan = planFile(file);
    expect(plan.scenario).toBe(file.replace(/\.yaml$/, ''));
    expect(plan.cells.length).toBeGreaterThan(0);
  });

  test('every experiment of SPEC.md §4 has a scenario', () => {
    const kinds = new Set(files.map((f) => planFile(f).experiment));
    expect(EXPERIMENTS.filter((k) => !kinds.has(k as never))).toEqual([]);
  });

  test('latency-epochs: 2 databases x 6 workloads x 5 LSFs, the 5X cell first in each group and normalizing the others', () => {
    const plan = planFile('latency-epochs.yaml');
    expect(plan.cells).toHaveLength(60);
    const first = plan.cells.slice(0, 5);
    expect(first.map((c) => c.coordinates.latencyScale)).toEqual([1, 0.2, 0.4, 0.6, 0.8]);
    expect(first.every((c) => c.referenceCellId === first[0].cellId)).toBe(true);
    const e = plan.cells.find((c) => c.coordinates.workload === 'e')!;
    const run = e.phases.find((p) => p.kind === 'run')!;
    expect(run.kind === 'run' && [run.ycsb.recordCount, run.operations]).toEqual([1000, 10000]);
  });

  test('resize-on-the-fly: 8 -> 2 -> 8 in 120 s steps after an 8-node baseline', () => {
    const cell = planFile('resize-on-the-fly.yaml').cells[0];
    expect(cell.nodes).toHaveLength(8);
    const resize = cell.phases.find((p) => p.name === 'resize');
    if (resize?.kind !== 'run') throw new Error('no resize phase');
    expect(resize.events.map((e) => [e.atS, e.action.kind])).toEqual([
      ...[120, 240, 360, 480, 600, 720].map((t) => [t, 'resize-remove']),
      ...[840, 960, 1080, 1200, 1320, 1440].map((t) => [t, 'resize-add']),
    ]);
  });

  test('bursting: every layout 8_0 .. 1_7 with n private and m public nodes', () => {
    const cells = planFile('bursting.yaml').cells.filter((c) => c.coordinates.database === 'redis' && c.coordinates.workload === 'a');
    expect(cells.map((c) => c.coordinates.layout)).toEqual(['8_0', '7_1', '6_2', '5_3', '4_4', '3_5', '2_6', '1_7']);
    for (const cell of cells) {
      const [n, m] = String(cell.coordinates.layout).split('_').map(Number);
      expect([cell.nodes.filter((x) => x.startsWith('prv')).length, cell.nodes.filter((x) => x.startsWith('pub')).length]).toEqual([n, m]);
    }
  });

  test('the link-removal mesh and scenario are what their seeded generator makes', () => {
    const topology = meshTopology();
    expect(readFileSync(TOPOLOGY_FILE, 'utf8')).toBe(renderTopology(topology));
    const order = removalOrder(topology);
    expect(readFileSync(SCENARIO_FILE, 'utf8')).toBe(renderScenario(order));
    const meshLinks = topology.links.filter((l) => l.a !== topology.client && l.b !== topology.client);
    expect(meshLinks).toHaveLength(MESH_LINKS);
    expect(new Set(order).size).toBe(REMOVALS);
    const run = planFile('link-removal.yaml').cells[0].phases.find((p) => p.kind === 'run');
    if (run?.kind !== 'run') throw new Error('no run phase');
    const cuts = run.events.filter((e) => e.action.kind === 'link-cut');
    expect(cuts.map((e) => e.atS)).toEqual(order.map((_, i) => 60 + 120 * i));
    // A ping matrix 20 s before and 40 s after every cut.
    const pings = run.events.filter((e) => e.action.kind === 'measure-rtt').map((e) => e.atS);
    expect(cuts.every((c) => pings.includes(c.atS - 20) && pings.includes(c.atS + 40))).toBe(true);
  });

  test('the reproduction’s meshes: the same 64 links, the client on Singapore alone, one per failover profile, as generated', () => {
    const mesh = meshTopology();
    for (const failover of REPRODUCTION_FAILOVERS) {
      const topology = reproductionTopology(failover);
      expect(readFileSync(reproductionTopologyFile(failover), 'utf8')).toBe(renderTopology(topology));
      expect(topology).toMatchObject({ name: `fhc-8dc-mesh64-${failover}`, failover });
      const client = topology.links.filter((l) => l.a === topology.client || l.b === topology.client);
      expect(client.map((l) => [l.a, l.b].sort().join('-'))).toEqual(['client-singapore']);
      expect(topology.links.filter((l) => !client.includes(l))).toEqual(mesh.links.filter((l) => l.a !== mesh.client && l.b !== mesh.client));
      // The same removals apply: the order is drawn over the mesh's links alone.
      expect(removalOrder(topology)).toEqual(removalOrder(mesh));
    }
  });
});
