/**
 * What the Riak adapter says to Riak, as argv and files (tested as such against the Riak KV
 * documentation's "Adding / Removing Nodes" and "Cluster Administration Commands" pages), and how
 * it reads `riak admin member-status` and `riak admin transfers`.
 */
import type { VendorDeb } from '../vendor-apt';

export const RIAK_VERSION = '3.2.0';
export const RIAK_HTTP_PORT = 8098;
export const RIAK_PB_PORT = 8087;
/** The package's release root: erlexec hands it to the VM as `-root`, which tells Riak's process. */
export const RIAK_ROOT = '/usr/lib/riak';

/**
 * Riak 3.x is published as one .deb per Ubuntu release (TI Tokyo builds the open-source releases
 * since Basho); the URL follows their layout and could not be fetched from this machine.
 */
export const RIAK_DEB: VendorDeb = {
  package: 'riak',
  url: (codename) => `https://files.tiot.jp/riak/kv/3.2/${RIAK_VERSION}/ubuntu/${codename}64/riak_${RIAK_VERSION}-OTP25_amd64.deb`,
  disableServices: ['riak'],
};

export const riakName = (address: string) => `riak@${address}`;

/**
 * The whole riak.conf (Riak's defaults for anything not set). It holds the Erlang cookie, so it
 * is written mode 0600 and through standard input.
 */
export function riakConf(c: { address: string; dir: string; cookie: string; nVal: number }): string {
  return `## Written by fragbench; anything not set here is Riak's default.
nodename = ${riakName(c.address)}
distributed_cookie = ${c.cookie}
listener.http.internal = ${c.address}:${RIAK_HTTP_PORT}
listener.protobuf.internal = ${c.address}:${RIAK_PB_PORT}
handoff.ip = ${c.address}
platform_bin_dir = /usr/sbin
platform_etc_dir = /etc/riak
platform_lib_dir = ${RIAK_ROOT}/lib
platform_data_dir = ${c.dir}/data
platform_log_dir = ${c.dir}/log
buckets.default.n_val = ${c.nVal}
`;
}

export type ClusterAction = 'join' | 'leave' | 'plan' | 'commit' | 'clear';

/** `riak admin cluster <action> [node]`: Riak 3's form of 2.x's `riak-admin cluster ...`. */
export function clusterCommand(action: ClusterAction, node?: string): string[] {
  return ['riak', 'admin', 'cluster', action, ...(node ? [node] : [])];
}

export function memberStatusCommand(): string[] {
  return ['riak', 'admin', 'member-status'];
}

export interface RiakMemberStatus {
  node: string;
  status: 'valid' | 'joining' | 'leaving' | 'exiting' | 'down';
}

/**
 * Rows of `riak admin member-status`, e.g.
 *   valid      34.4%      --      'riak@198.18.0.1'
 *   joining     0.0%      --      'riak@198.18.0.4'
 */
export function parseMemberStatus(text: string): RiakMemberStatus[] {
  const rows: RiakMemberStatus[] = [];
  for (const line of text.split('\n')) {
    const row = /^(valid|joining|leaving|exiting|down)\s+\S+\s+\S+\s+'([^']+)'/.exec(line.trim());
    if (row) rows.push({ status: row[1] as RiakMemberStatus['status'], node: row[2] });
  }
  return rows;
}

/** `riak admin transfers` with nothing moving and nothing waiting to move. */
export function transfersDone(text: string): boolean {
  return /No transfers active/.test(text) && !/waiting to handoff/.test(text);
}
