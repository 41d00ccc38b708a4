/**
 * One `fleet up` or `fleet down` at a time: a lock file holding the PID of the process that has
 * it. A lock whose process is gone (a crash) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { processArgv } from './processes';
import { LOCK_FILE } from './state';

export async function withFleetLock<T>(what: string, work: () => Promise<T>): Promise<T> {
  acquire(what);
  try {
    return await work();
  } finally {
    rmSync(LOCK_FILE, { force: true });
  }
}

function acquire(what: string): void {
  mkdirSync(dirname(LOCK_FILE), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(LOCK_FILE, `${process.pid} ${what}\n`, { flag: 'wx', mode: 0o600 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const [pid, ...holder] = readFileSync(LOCK_FILE, 'utf8').trim().split(' ');
    if (processArgv(Number(pid)) !== undefined) {
      throw new Error(`another "fleet ${holder.join(' ')}" (PID ${pid}) is working on the local fleet; wait for it to finish`);
    }
    rmSync(LOCK_FILE, { force: true });
  }
  throw new Error(`could not take the fleet lock ${LOCK_FILE}`);
}
