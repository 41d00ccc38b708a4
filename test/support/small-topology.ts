/**
 * A small topology for plan tests: a client, three data nodes, two connection types (alpha and
 * beta joined twice), so some WireGuard interfaces carry one link and some carry two.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Topology } from '../../core/topology';
import { validateTopology } from '../../core/validate-topology';

export const smallTopology = validateTopology({
  name: 'plan',
  client: 'cl',
  nodes: [
    { name: 'alpha', site: 'x' },
    { name: 'beta', site: 'y' },
    { name: 'gamma', site: 'z' },
    { name: 'cl', site: 'x' },
  ],
  links: [
    { a: 'alpha', b: 'beta', latencyMs: 20, bandwidthMbps: 100 },
    { a: 'alpha', b: 'beta', type: 3, latencyMs: 40, bandwidthMbps: 50, estimated: true },
    { a: 'beta', b: 'gamma', latencyMs: 30, bandwidthMbps: 100 },
    { a: 'cl', b: 'alpha', latencyMs: 1, bandwidthMbps: 1000 },
  ],
});

/** The small topology as a file that `fragbench` commands take (`fleet up`, a scenario's `fleet.local`). */
export function writeSmallTopology(dir: string): string {
  const file = path.join(dir, `${smallTopology.name}.yaml`);
  writeFileSync(file, stringify(smallTopology));
  return file;
}

/**
 * A Redis scenario on the small topology's data nodes, written as a user's own file `<file>.yaml`
 * in `dir`; `fields` replace its top-level fields (name, phases, database, ...).
 */
export function writeSmallScenario(dir: string, file: string, fields: Record<string, unknown>): string {
  const scenario = {
    name: `fb-${file}`,
    experiment: 'A scenario a user wrote for the small topology',
    fleet: { local: writeSmallTopology(dir) },
    database: { name: 'redis', nodes: smallTopology.nodes.filter((n) => n.name !== smallTopology.client).map((n) => n.name) },
    ycsb: { workload: 'a', recordCount: 100, target: 50 },
    phases: [{ phase: 'run', duration: 30 }],
    ...fields,
  };
  const target = path.join(dir, `${file}.yaml`);
  writeFileSync(target, stringify(scenario));
  return target;
}

/** Three sites and a client, every pair linked: the end-to-end runs' fleet (`fragbench run`). */
export function writeThreeSitesTopology(file: string, name: string): string {
  const link = (a: string, b: string, latencyMs: number, bandwidthMbps = 200) => ({ a, b, latencyMs, bandwidthMbps });
  const topology = {
    name,
    client: 'desk',
    nodes: ['ant', 'bee', 'cow', 'desk'].map((n) => ({ name: n, site: n === 'desk' ? 'ant' : n })),
    links: [
      link('ant', 'bee', 4),
      link('bee', 'cow', 6),
      link('ant', 'cow', 8),
      link('desk', 'ant', 1, 1000),
      link('desk', 'bee', 4),
      link('desk', 'cow', 8),
    ],
  };
  writeFileSync(file, stringify(topology));
  return file;
}

/** Redis on the three sites, YCSB on desk: flush, load, then the run phase given. */
export function writeThreeSitesScenario(
  file: string,
  fields: { name: string; experiment: string; fleet: Record<string, string>; run: Record<string, unknown> },
): string {
  const scenario = {
    name: fields.name,
    experiment: fields.experiment,
    fleet: fields.fleet,
    database: { name: 'redis', nodes: ['ant', 'bee', 'cow'] },
    ycsb: { workload: 'a', recordCount: 200, threads: 2, fieldCount: 4, fieldLength: 8, target: 100 },
    phases: [{ phase: 'flush' }, { phase: 'load' }, { phase: 'run', ...fields.run }],
  };
  writeFileSync(file, stringify(scenario));
  return file;
}

/** One link of `sites`: its ends, its round trip, and its connection type when not the first (0). */
export type SiteLink = [a: string, b: string, latencyMs: number, type?: number];

/**
 * A topology of the nodes its links name, each node its own site, every link 100 Mbit/s unless
 * given: the small fleets tests and benchmarks build for one question each.
 */
export function linkedSites(name: string, links: SiteLink[], options: { client?: string; bandwidthMbps?: number } = {}): Topology {
  const nodes = [...new Set(links.flatMap(([a, b]) => [a, b]))];
  return {
    name,
    ...(options.client ? { client: options.client } : {}),
    nodes: nodes.map((node) => ({ name: node, site: node })),
    links: links.map(([a, b, latencyMs, type]) => ({ a, b, ...(type ? { type } : {}), latencyMs, bandwidthMbps: options.bandwidthMbps ?? 100 })),
  };
}

/**
 * Three sites every pair linked (one pair twice, its type 1 link the faster) and a client beside
 * `lsa` linked to each: a fleet a stack without an overlay can run (every pair has a direct link).
 */
export const meshTopology: Topology = {
  name: 'light',
  client: 'lsc',
  nodes: [
    { name: 'lsa', site: 'a' },
    { name: 'lsb', site: 'b' },
    { name: 'lsd', site: 'd' },
    { name: 'lsc', site: 'a' },
  ],
  links: [
    { a: 'lsa', b: 'lsb', latencyMs: 20, bandwidthMbps: 50 },
    { a: 'lsa', b: 'lsb', type: 1, latencyMs: 12, bandwidthMbps: 50 },
    { a: 'lsb', b: 'lsd', latencyMs: 30, bandwidthMbps: 50 },
    { a: 'lsa', b: 'lsd', latencyMs: 40, bandwidthMbps: 50 },
    { a: 'lsc', b: 'lsa', latencyMs: 2, bandwidthMbps: 200 },
    { a: 'lsc', b: 'lsb', latencyMs: 22, bandwidthMbps: 200 },
    { a: 'lsc', b: 'lsd', latencyMs: 42, bandwidthMbps: 200 },
  ],
};
