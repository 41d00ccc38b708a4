/**
 * Plans one 100 s run phase of scenario events against a topology, as `validate` would, for the
 * tests of event kinds: the plan, or the problems validation names.
 */
import { planScenario, type ResolvedFleet } from '../../core/scenario-plan';
import { checkScenarioShape, parseScenarioText } from '../../core/scenario-schema';
import type { Topology } from '../../core/topology';
import { validateTopology } from '../../core/validate-topology';
import { topologyView } from '../../operations/scenario/scenario-fleet';
import { inputProblems } from './input-problems';

/** `events` is the YAML list under the phase's `events:`, indented six spaces. */
export function eventPlanner(topology: Topology, redisNodes: string[]) {
  const fleet: ResolvedFleet = { ref: { kind: 'local' }, view: topologyView(validateTopology(topology)) };
  const scenario = (events: string) => `
name: t
experiment: events
fleet: { local: ${topology.name} }
database: { name: redis, nodes: [${redisNodes.join(', ')}] }
ycsb: { workload: a, recordCount: 100 }
phases:
  - phase: run
    duration: 100
    events:
${events}`;
  const plan = (events: string) => planScenario(checkScenarioShape(parseScenarioText(scenario(events))), () => fleet, {});
  const problems = (events: string) => inputProblems(() => plan(events)).map((e) => e.message);
  return { fleet, plan, problems };
}
