/**
 * One `fleet up` or `fleet down` at a time: a lock file holding the PID and start tick of the
 * process that has it. A lock whose process is gone (a crash) is taken over, also when its PID
 * now runs another process (pid_max is 32768 here: a PID comes back within minutes on a busy host).
 */
import { readFileSync, rmSync } from 'node:fs';
import { createExclusive } from '../../platform/files';
import { identify, isSameProcessAlive } from '../../platform/pid';
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
  const me = identify(process.pid)!;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(LOCK_FILE, `${me.pid} ${me.startTicks} ${what}\n`)) return;
    const [pid, startTicks, ...holder] = readFileSync(LOCK_FILE, 'utf8').trim().split(' ');
    if (isSameProcessAlive({ pid: Number(pid), startTicks: Number(startTicks) })) {
      throw new Error(`another "fleet ${holder.join(' ')}" (PID ${pid}) is working on the local fleet; wait for it to finish`);
    }
    rmSync(LOCK_FILE, { force: true });
  }
  throw new Error(`could not take the fleet lock ${LOCK_FILE}`);
}
