/**
 * Resolves a FleetRef to a validated Inventory: the local fleet's state directory, an inventory
 * file, or a Pulumi stack's `inventory` output.
 */
import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../core/errors';
import type { FleetRef } from '../../core/fleet-ref';
import type { Inventory } from '../../core/inventory';
import { validateInventory } from '../../core/validate-inventory';
import { runHost } from '../../platform/command';
import { CommandError } from '../../core/exec';
import { statePaths } from '../../platform/paths';

const LOCAL_INVENTORY = statePaths.fleetInventory();

export async function loadInventory(fleet: FleetRef): Promise<Inventory> {
  switch (fleet.kind) {
    case 'local':
      if (!existsSync(LOCAL_INVENTORY)) {
        throw new InputError('fleet', 'no local fleet is up; start one with `npx fragbench fleet up <topology>`');
      }
      return validateInventory(readJson(LOCAL_INVENTORY, 'fleet'), 'local inventory');
    case 'file':
      if (!existsSync(fleet.path)) throw new InputError('fleet.path', `no such file: ${fleet.path}`);
      return validateInventory(readJson(fleet.path, 'fleet.path'), fleet.path);
    case 'pulumi':
      return validateInventory(await pulumiInventory(fleet.stack, fleet.cwd), `pulumi stack ${fleet.stack}`);
    default:
      throw new InputError('fleet.kind', `unknown kind "${(fleet as { kind: string }).kind}"; use local, file or pulumi`);
  }
}

function readJson(file: string, field: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(field, `${file} is not valid JSON: ${(err as Error).message}`);
  }
}

async function pulumiInventory(stack: string, cwd?: string): Promise<unknown> {
  const argv = ['pulumi', 'stack', 'output', 'inventory', '--json', '-s', stack, ...(cwd ? ['--cwd', cwd] : [])];
  let stdout: string;
  try {
    ({ stdout } = await runHost(argv));
  } catch (err) {
    if (err instanceof CommandError && err.result.code === -1 && /ENOENT/.test(err.result.stderr)) {
      // eslint-disable-next-line preserve-caught-error -- the missing CLI is the whole story; a cause would add the failed spawn to an activity's failure
      throw new Error(
        'the pulumi CLI is not installed (https://www.pulumi.com/docs/install/); install it, or export the stack output to a file and use {"kind":"file"}',
      );
    }
    // A stack never brought up (or gone) has no inventory output: bad input, which the caller says how to make.
    if (err instanceof CommandError) {
      const said = err.result.stderr.split('\n').find((line) => line.trim() !== '') ?? `exit code ${err.result.code}`;
      throw new InputError('fleet.stack', `stack ${stack} has no inventory (pulumi said: ${said.trim()})`);
    }
    throw err;
  }
  try {
    return JSON.parse(stdout);
  } catch {
    throw new InputError('fleet.stack', `stack ${stack}'s "inventory" output is not JSON`);
  }
}
