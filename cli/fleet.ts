/** `fragbench fleet ...`: the local emulated fleet (build, inspect, shape, cut, remove). */
import { Option, type Command } from 'commander';
import { InputError } from '../core/errors';
import type { StackChoice } from '../core/stack';
import { builtInTopologies } from '../core/load-topology';
import { applyBandwidthEpoch, applyLatencyEpoch, cutLink, overlayRoute, restoreLink } from '../operations/network/network-operations';
import { fleetBusyMessage } from '../core/fleet-lease';
import { fleetDown, fleetUp } from '../infra/local/fleet';
import { readLease } from '../infra/local/lease';
import { fleetStatus, formatStatus } from '../infra/local/status';
import { positiveNumber } from './options';

const local = { kind: 'local' } as const;
const say = (line: string) => console.log(line);

/** A run's fleet is not the user's to rebuild or remove under it; --force is for a lease a crash left. */
function refuseWhileLeased(force: boolean | undefined): void {
  const lease = readLease();
  if (lease && !force) throw new Error(`${fleetBusyMessage(lease)}; if that run is gone, add --force`);
}

export function registerFleetCommands(program: Command): void {
  const fleet = program
    .command('fleet')
    .description('the local emulated fleet: one network namespace per node, a WAN emulator, a WireGuard mesh and a tinc overlay');

  fleet
    .command('up')
    .argument('<topology>', `a built-in topology (${builtInTopologies().join(', ')}) or a topology file`)
    .description('build the fleet (removes a fleet left behind by a crash first)')
    .option('--force', 'even while a run holds the fleet (for a lease left by a run that is gone)')
    .addOption(new Option('--overlay <kind>', 'tinc (the published stack) or none (static routes over direct links)').choices(['tinc', 'none']))
    .addOption(new Option('--encryption <kind>', 'wireguard (the published stack) or off (VXLAN links)').choices(['wireguard', 'off']))
    .action(async (topology: string, options: { force?: boolean } & StackChoice) => {
      refuseWhileLeased(options.force);
      await fleetUp(topology, say, { stack: { overlay: options.overlay, encryption: options.encryption } });
    });

  fleet
    .command('down')
    .description('stop every fleet process and delete its namespaces and state (idempotent)')
    .option('--force', 'even while a run holds the fleet (for a lease left by a run that is gone)')
    .action(async (options: { force?: boolean }) => {
      refuseWhileLeased(options.force);
      const { removed, seconds } = await fleetDown(say);
      say(removed ? `fleet removed in ${seconds.toFixed(1)} s` : 'no local fleet to remove');
    });

  fleet
    .command('status')
    .option('--json', 'print JSON')
    .description('nodes, links, current shaping, cut links, processes')
    .action(async (options: { json?: boolean }) => {
      const status = await fleetStatus();
      say(options.json ? JSON.stringify(status, null, 2) : formatStatus(status));
    });

  fleet
    .command('shape')
    .option('--latency-scale <factor>', 'every link latency = reference x factor (e.g. 0.2)', positiveNumber)
    .option('--bandwidth-scale <factor>', 'every link bandwidth cap = reference x factor', positiveNumber)
    .description('apply a latency and/or bandwidth epoch to every link')
    .action(async (options: { latencyScale?: number; bandwidthScale?: number }) => {
      const { latencyScale: latency, bandwidthScale: bandwidth } = options;
      if (latency === undefined && bandwidth === undefined) {
        throw new InputError('--latency-scale', 'give --latency-scale and/or --bandwidth-scale');
      }
      if (latency !== undefined) await applyLatencyEpoch({ fleet: local, scale: latency });
      if (bandwidth !== undefined) await applyBandwidthEpoch({ fleet: local, scale: bandwidth });
      say(`shaped: latency x${latency ?? 'unchanged'}, bandwidth x${bandwidth ?? 'unchanged'}`);
    });

  const linkCommands = [
    { name: 'cut', description: 'drop every packet on a link, both ways', act: cutLink, done: 'cut' },
    { name: 'restore', description: 'bring a cut link back', act: restoreLink, done: 'restored' },
  ];
  for (const { name, description, act, done } of linkCommands) {
    fleet
      .command(name)
      .argument('<link>', 'link id, e.g. sydney-pune/0')
      .description(description)
      .action(async (link: string) => {
        await act({ fleet: local, link });
        say(`${done} ${link}`);
      });
  }

  fleet
    .command('route')
    .argument('<from>')
    .argument('<to>')
    .description('the nodes a packet passes through on the overlay, as tinc forwards it')
    .action(async (from: string, to: string) => {
      const { hops } = await overlayRoute({ fleet: local, from, to });
      say(hops.join(' -> '));
    });
}
