/**
 * `fragbench fleet ...` run as a user runs it, on the small topology (four nodes, one pair
 * joined by two connection types): up, status (text and JSON), shape, cut, route, restore, down,
 * and what each refuses (a scale that is not a number above 0, an unknown link, a fleet a run
 * holds). The fleet's state lives in a scratch state directory, so a lease or dev server of
 * another run on this host is never read or touched; the namespaces are the host's, so run this
 * file under the netns lock (`flock /tmp/fb-netns.lock npx jest --selectProjects netns
 * --testPathPatterns cli-fleet`). afterAll takes the fleet down whatever happened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FleetLease } from '../../core/fleet-lease';
import type { FleetStatus } from '../../infra/local/status';
import { runHost } from '../../platform/command';
import { writeJsonAtomic } from '../../platform/files';
import { statePaths } from '../../platform/paths';
import { fragbench, scratchEnv } from '../support/cli';
import { smallTopology, writeSmallTopology } from '../support/small-topology';

jest.setTimeout(120_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'fb-cli-fleet-'));
const env = scratchEnv(scratch);
const topologyFile = writeSmallTopology(scratch);
const namespaces = smallTopology.nodes.map((n) => `fb-${n.name}`);
const [alpha, beta, gamma] = smallTopology.nodes.map((n) => n.name);
const cutOne = `${alpha}-${beta}/0`;

afterAll(async () => {
  const down = await fragbench(['fleet', 'down', '--force'], env);
  // The scratch directory holds the fleet's state: keep it if the fleet could not be taken down.
  if (down.code === 0) rmSync(scratch, { recursive: true, force: true });
  else console.error(`fleet down failed; its state stays in ${scratch}:\n${down.stderr}`);
}, 120_000);

async function fleet(...args: string[]): Promise<string> {
  const result = await fragbench(['fleet', ...args], env, 100_000);
  if (result.code !== 0) throw new Error(`fragbench fleet ${args.join(' ')} exited with ${result.code}:\n${result.stderr}`);
  return result.stdout;
}

const status = async () => JSON.parse(await fleet('status', '--json')) as FleetStatus;
const hostNamespaces = async () => (await runHost(['ip', 'netns', 'list'])).stdout.split('\n').map((line) => line.split(' ')[0]);

test('status with no fleet: says so', async () => {
  expect((await fleet('status')).trim()).toMatch(/^no local fleet/);
});

test('up: every node in its namespace, every link and process; status says up in text and JSON', async () => {
  await fleet('up', topologyFile);
  expect(await hostNamespaces()).toEqual(expect.arrayContaining(namespaces));
  const now = await status();
  expect([now.up, now.name]).toEqual([true, smallTopology.name]);
  expect(now.nodes.map((n) => [n.name, n.namespaceExists])).toEqual(smallTopology.nodes.map((n) => [n.name, true]));
  expect(now.links.map((l) => [l.id, l.cut])).toEqual([
    [cutOne, false],
    [`${alpha}-${beta}/3`, false],
    [`${beta}-${gamma}/0`, false],
    [`cl-${alpha}/0`, false],
  ]);
  expect(now.processes.length).toBeGreaterThan(0);
  expect(now.processes.filter((p) => !p.alive)).toEqual([]);
  const text = await fleet('status');
  expect(text).toMatch(new RegExp(`^fleet ${smallTopology.name} \\(.*\\): up, (\\d+)/\\1 processes alive$`, 'm'));
  expect(text).toMatch(/^shaping: latency x1, bandwidth x1; cut: none;/m);
});

test('shape: every link at the new scale; a scale that is not a number above 0 is refused, naming the option, and changes nothing', async () => {
  const reference = await status();
  expect((await fleet('shape', '--latency-scale', '0.5')).trim()).toBe('shaped: latency x0.5, bandwidth xunchanged');
  const shaped = await status();
  expect(shaped.settings?.latencyScale).toBe(0.5);
  for (const link of shaped.links) {
    const before = reference.links.find((l) => l.id === link.id);
    // What ping over the link should show: half the reference RTT, plus the overlay's own cost
    // (measured at up, the same before and after), and never less than that cost: the stack adds
    // it whatever the delay (0.78 ms on one host, more than this 1 ms link's half).
    expect(link.expectedRttMs).toBeCloseTo(Math.max((before?.expectedRttMs ?? NaN) - link.latencyMs / 2, shaped.baseRttMs ?? NaN), 1);
  }
  const refusals = [['--latency-scale', '-2'], ['--bandwidth-scale', 'lots'], []];
  const results = await Promise.all(refusals.map((bad) => fragbench(['fleet', 'shape', ...bad], env)));
  for (const [i, refused] of results.entries()) {
    const bad = refusals[i];
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(bad[0] ?? '--latency-scale');
    if (bad[1]) expect(refused.stderr).toContain(`"${bad[1]}"`);
  }
  expect((await status()).settings).toEqual(shaped.settings);
});

test('cut: the emulator drops the link and status shows it cut; route still finds the way; restore brings it back', async () => {
  expect((await fleet('cut', cutOne)).trim()).toBe(`cut ${cutOne}`);
  const cut = await status();
  expect(cut.links.filter((l) => l.cut).map((l) => l.id)).toEqual([cutOne]);
  expect(await fleet('status')).toMatch(new RegExp(`; cut: ${cutOne};`));
  // gamma hangs off beta alone: whatever way alpha reaches beta, the overlay passes through it.
  expect((await fleet('route', alpha, gamma)).trim()).toBe(`${alpha} -> ${beta} -> ${gamma}`);
  expect((await fleet('restore', cutOne)).trim()).toBe(`restored ${cutOne}`);
  expect((await status()).links.filter((l) => l.cut)).toEqual([]);
});

test('cut of a link the fleet does not have: refused, naming it', async () => {
  const refused = await fragbench(['fleet', 'cut', `${alpha}-${gamma}/0`], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(`${alpha}-${gamma}/0`);
  expect((await status()).links.filter((l) => l.cut)).toEqual([]);
});

test('down: refused while a run holds the fleet; --force takes it down; a second down finds nothing', async () => {
  const lease: FleetLease = { runId: 'fb-cli-someone', topology: smallTopology.name, since: Date.now(), broughtUp: true };
  writeJsonAtomic(path.join(env.FRAGBENCH_STATE_DIR, path.basename(statePaths.runLease())), lease);
  const refused = await fragbench(['fleet', 'down'], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/fleet busy: run fb-cli-someone on plan since .*; if that run is gone, add --force/);
  expect((await status()).up).toBe(true);

  expect(await fleet('down', '--force')).toMatch(/^fleet removed in \d+\.\d s$/m);
  const left = await hostNamespaces();
  expect(namespaces.filter((ns) => left.includes(ns))).toEqual([]);
  expect((await fleet('down', '--force')).trim()).toBe('no local fleet to remove');
  expect((await fleet('status')).trim()).toMatch(/^no local fleet/);
});
