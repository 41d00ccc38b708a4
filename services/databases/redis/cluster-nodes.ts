/** Parsing `CLUSTER NODES` and `CLUSTER INFO` replies (Redis 7 formats). */

export interface ClusterNodeLine {
  id: string;
  /** host:port, without the cluster-bus port or hostname. */
  address: string;
  flags: string[];
  /** Id of the master this node replicates, or undefined for a master. */
  masterId?: string;
  connected: boolean;
  /** Number of hash slots it serves (ranges and single slots; migration markers excluded). */
  slots: number;
  /** True while one of its slots is being migrated to or from it (`[slot->-id]` / `[slot-<-id]`). */
  migrating: boolean;
}

export const HASH_SLOTS = 16384;

export function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [id, endpoint, flags, master, , , , linkState, ...slotFields] = line.split(' ');
      let slots = 0;
      let migrating = false;
      for (const field of slotFields) {
        if (field.startsWith('[')) {
          migrating = true;
          continue;
        }
        const [from, to] = field.split('-').map(Number);
        slots += to === undefined ? 1 : to - from + 1;
      }
      return {
        id,
        address: endpoint.split('@')[0],
        flags: flags.split(','),
        masterId: master === '-' ? undefined : master,
        connected: linkState === 'connected',
        slots,
        migrating,
      };
    });
}

export function isMaster(line: ClusterNodeLine): boolean {
  return line.flags.includes('master');
}

/** The node that answered: CLUSTER NODES marks it `myself`. */
export function myself(lines: ClusterNodeLine[]): ClusterNodeLine {
  const me = lines.find((l) => l.flags.includes('myself'));
  if (!me) throw new Error('CLUSTER NODES reply has no "myself" line');
  return me;
}

/** `CLUSTER INFO` is `key:value` lines. */
export function parseClusterInfo(text: string): Record<string, string> {
  const info: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) info[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return info;
}
