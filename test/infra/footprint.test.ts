/**
 * The README's cost and quota figures are footprint()'s output for the stack files as they are,
 * so changing a stack's sizes or layout changes the table (and this test says how).
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { footprint, footprintTable } from '../../infra/pulumi/footprint';
import type { HybridSettings } from '../../infra/pulumi/settings';
import { stackSettings } from './harness';
import { tableCells } from '../support/markdown';

const ROOT = join(__dirname, '..', '..');
const STACKS = readdirSync(ROOT)
  .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
  .filter((s): s is string => !!s)
  .sort();

function readmeTable(): string {
  const readme = readFileSync(join(ROOT, 'infra', 'pulumi', 'README.md'), 'utf8');
  const m = /<!-- footprint:start[^>]*-->\n([\s\S]*?)\n<!-- footprint:end -->/.exec(readme);
  if (!m) throw new Error('infra/pulumi/README.md has no footprint table between its markers');
  return m[1];
}

test("the README's table is footprint() of every stack file", () => {
  expect(tableCells(readmeTable())).toEqual(tableCells(footprintTable(STACKS.map((s) => [s, stackSettings(s)]))));
});

test('the donor broker keeps its own size when the public nodes grow', () => {
  const b8 = stackSettings('hybrid-vertical-b8ms') as HybridSettings;
  expect([b8.publicSize.name, b8.donorSize.name]).toEqual(['Standard_B8ms', 'Standard_B1ms']);
  // One B8ms public node plus the B1ms donor: 9 Azure vCPUs, not 16.
  expect(footprint(b8).azureVcpus).toBe(9);
});

test('fhc-8dc holds 18 OpenStack vCPUs, 36 GiB and 9 floating IPs', () => {
  expect(footprint(stackSettings('fhc-8dc'))).toMatchObject({ openstackVcpus: 18, openstackMemoryGiB: 36, floatingIps: 9, azureVms: 0 });
});
