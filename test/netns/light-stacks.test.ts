/**
 * The light network stacks for real (core/stack.ts), each brought up on a small full mesh: without
 * tinc (static routes), without WireGuard (VXLAN links), and without both. Each must carry every
 * pair at its configured round trip and carry TCP, run none of the daemons it leaves out, say in
 * its inventory which stack it is, and leave nothing behind. Without an overlay a cut link cuts its
 * pair off (nothing routes around it) until it is restored.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { findNode } from '../../core/inventory';
import type { StackChoice } from '../../core/stack';
import { fleetDown, fleetUp } from '../../infra/local/fleet';
import { listNamespaces } from '../../infra/local/namespaces';
import { readState } from '../../infra/local/state';
import { cutLink, measureBandwidth, restoreLink } from '../../operations/network/network-operations';
import { NetnsExec } from '../../services/exec/transports';
import { loadInventory } from '../../services/inventory/inventory-loader';
import { ping } from '../../services/probes/ping';
import { median } from '../../services/probes/quantile';
import { pingReplies } from '../support/ping';
import { meshTopology } from '../support/small-topology';

jest.setTimeout(120_000);

const fleet = { kind: 'local' } as const;
const dir = mkdtempSync(join(tmpdir(), 'fb-light-stacks-test-'));
/** Each pair's fastest link's round trip: the one a static route takes. */
const FASTEST: [string, string, number][] = [
  ['lsa', 'lsb', 12],
  ['lsb', 'lsd', 30],
  ['lsa', 'lsd', 40],
  ['lsc', 'lsa', 2],
  ['lsc', 'lsb', 22],
  ['lsc', 'lsd', 42],
];
const file = join(dir, 'light.yaml');
writeFileSync(file, stringify(meshTopology));

afterAll(async () => {
  await fleetDown();
  rmSync(dir, { recursive: true, force: true });
});

async function rttMs(from: string, to: string): Promise<number | undefined> {
  const inventory = await loadInventory(fleet);
  const { samplesMs } = await ping(new NetnsExec(`fb-${from}`), findNode(inventory, to).overlayAddress, 10, 0.05);
  return samplesMs.length > 0 ? median(samplesMs) : undefined;
}

const STACKS: [string, StackChoice, string[]][] = [
  ['overlay none (static routes over WireGuard)', { overlay: 'none' }, ['emulator', 'wireguard']],
  ['encryption off (tinc over VXLAN)', { encryption: 'off' }, ['emulator', 'tinc']],
  ['overlay none and encryption off (static routes over VXLAN)', { overlay: 'none', encryption: 'off' }, ['emulator']],
];

describe.each(STACKS)('%s', (_label, stack, daemons) => {
  beforeAll(async () => {
    await fleetUp(file, () => undefined, { stack });
  });
  afterAll(async () => {
    await fleetDown();
  });

  test('says which stack it is, and runs only its own daemons', async () => {
    const inventory = await loadInventory(fleet);
    expect(inventory.stack).toEqual({ overlay: 'tinc', encryption: 'wireguard', ...stack });
    expect([...new Set(readState()!.processes.map((p) => p.kind))].sort()).toEqual(daemons);
    if (stack.encryption === 'off') expect(inventory.nodes.every((n) => n.wireguard.every((w) => w.publicKey === undefined))).toBe(true);
  });

  test('every pair at its fastest link round trip, within max(1 ms, 2 %), and TCP carried', async () => {
    for (const [a, b, configured] of FASTEST) {
      const measured = await rttMs(a, b);
      expect({ pair: `${a}-${b}`, off: Math.abs((measured ?? Infinity) - configured) <= Math.max(1, 0.02 * configured) }).toEqual({
        pair: `${a}-${b}`,
        off: true,
      });
    }
    // Carried at all: with its checksums left to an absent NIC, relayed TCP was dropped whole (0).
    // How fast is not this test's (tinc carries this multi-type fleet's data TCP in TCP).
    const { mbps } = await measureBandwidth({ fleet, from: 'lsc', to: 'lsb', seconds: 2 });
    expect(mbps).toBeGreaterThan(1);
  });

  if (stack.overlay === 'none') {
    test('a cut link cuts its pair off, nothing routes around it, and a restore brings it back', async () => {
      const inventory = await loadInventory(fleet);
      const exec = new NetnsExec('fb-lsb');
      const address = findNode(inventory, 'lsd').overlayAddress;
      await cutLink({ fleet, link: 'lsb-lsd/0' });
      expect(await pingReplies(exec, address, 3)).toBe(0);
      await restoreLink({ fleet, link: 'lsb-lsd/0' });
      expect(await pingReplies(exec, address, 3)).toBe(3);
    });
  }
});

test('nothing of the light fleets is left', async () => {
  await fleetDown();
  const left = (await listNamespaces()).filter((ns) => /^fb-(ls[abcd]|wan)$/.test(ns));
  expect(left).toEqual([]);
});
