/**
 * A small topology for plan tests: a client, three data nodes, two connection types (alpha and
 * beta joined twice), so some WireGuard interfaces carry one link and some carry two.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
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
