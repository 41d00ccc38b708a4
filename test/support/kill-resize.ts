/**
 * A resize whose caller dies part-way, as a killed worker's does: the resize runs in a child
 * process (resize-in-child.ts), SIGKILLed at the moment a test chooses.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseName } from '../../activities/contracts';
import type { Inventory } from '../../core/inventory';
import { sleep } from '../../platform/wait';

/**
 * Starts the resize and SIGKILLs it once `partWay` returns something (a failing look counts as
 * not yet); resolves with that, once the child is gone. `partWay` is asked every 20 ms.
 */
export async function killResizePartWay<T>(
  resize: { inventory: Inventory; database: DatabaseName; kind: 'add' | 'remove'; node: string; pauseBefore?: string },
  partWay: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fb-resize-'));
  const file = path.join(dir, 'inventory.json');
  writeFileSync(file, JSON.stringify(resize.inventory));
  const argv = [
    '-r',
    'tsx/cjs',
    path.join(__dirname, 'resize-in-child.ts'),
    file,
    resize.database,
    resize.kind,
    resize.node,
    ...(resize.pauseBefore ? [resize.pauseBefore] : []),
  ];
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `the ${resize.kind} of ${resize.node} ended (${child.exitCode ?? child.signalCode}) before it could be killed part-way: ${stderr.trim().slice(-2000)}`,
        );
      }
      // A check that throws counts as not yet, whether it is async or not.
      const seen = await Promise.resolve()
        .then(partWay)
        .catch(() => undefined);
      if (seen !== undefined) {
        child.kill('SIGKILL');
        await exited;
        return seen;
      }
      await sleep(20);
    }
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
