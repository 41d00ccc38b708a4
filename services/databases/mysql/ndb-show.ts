/**
 * Parsing `ndb_mgm -e show`, e.g.
 *   [ndbd(NDB)]     4 node(s)
 *   id=2    @198.51.100.10  (mysql-8.4.3 ndb-8.4.3, Nodegroup: 0, *)
 *   id=4    @198.51.100.30  (mysql-8.4.3 ndb-8.4.3, no nodegroup)
 *   id=5 (not connected, accepting connect from 198.51.100.40)
 */

export interface NdbNodeStatus {
  id: number;
  kind: 'ndbd' | 'ndb_mgmd' | 'mysqld';
  connected: boolean;
  /** Node group of a data node; undefined for nodes in no group (reserved or new) and non-data nodes. */
  nodegroup?: number;
  version?: string;
}

export function parseNdbShow(text: string): NdbNodeStatus[] {
  const nodes: NdbNodeStatus[] = [];
  let kind: NdbNodeStatus['kind'] | undefined;
  for (const line of text.split('\n')) {
    const section = /^\[(ndbd|ndb_mgmd|mysqld)\(/.exec(line);
    if (section) {
      kind = section[1] as NdbNodeStatus['kind'];
      continue;
    }
    const id = /^id=(\d+)\s/.exec(line);
    if (!id || !kind) continue;
    const connected = !line.includes('not connected');
    const group = /Nodegroup: (\d+)/.exec(line);
    const version = /\(mysql-\S+ ndb-([^,)]+)/.exec(line);
    nodes.push({
      id: Number(id[1]),
      kind,
      connected,
      nodegroup: group ? Number(group[1]) : undefined,
      version: version?.[1],
    });
  }
  return nodes;
}
