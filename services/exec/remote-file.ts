/**
 * A file a node wrote, copied to this host line by line as it is read (a checked history can be
 * hundreds of MB: it is never held in memory), then removed from the node.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ExecTarget } from '../../core/inventory';
import { startCommand } from '../../platform/command';
import { execFor, hostArgvFor } from './transports';

/**
 * Copies `remote` on `target` to `local` (replaced) and removes `remote`. Returns whether the
 * copy is whole; a copy that fails leaves `local` empty or partial and says why on stderr,
 * never throws: the caller judges what it has.
 */
export async function fetchRemoteFile(target: ExecTarget, remote: string, local: string): Promise<boolean> {
  const out = createWriteStream(local);
  const failed = once(out, 'error').then(([err]) => err as Error);
  try {
    const command = startCommand(hostArgvFor(target, ['cat', remote]), { onStdoutLine: (line) => out.write(`${line}\n`) });
    const code = await command.exited;
    out.end();
    const problem = await Promise.race([failed, once(out, 'finish').then(() => undefined)]);
    if (code !== 0 || problem) {
      console.error(`fragbench: could not copy ${remote} from ${execFor(target).where}: ${problem?.message ?? command.stderr().trim()}`);
      return false;
    }
    await execFor(target).run(['rm', '-f', remote], { allowFailure: true });
    return true;
  } catch (err) {
    out.destroy();
    console.error(`fragbench: could not copy ${remote} from ${execFor(target).where}: ${(err as Error).message}`);
    return false;
  }
}
