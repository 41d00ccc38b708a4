/**
 * Riak KV: one node per VM, named riak@<overlay address>, from the vendor's .deb (Riak 3.x,
 * ./riak-commands.ts). Membership changes are Riak's staged ones: `riak admin cluster join`
 * (on the joining node) or `cluster leave <node>`, then `cluster plan` and `cluster commit`; Riak
 * then hands partitions off by itself. A resize completes when no transfer is left and the ring
 * is ready (every member agrees on it); a leaving node shuts itself down once handed off.
 *
 * A resize asked again after its caller died resumes from `riak admin member-status`: a newcomer
 * the ring already lists is not joined again (joining: only plan and commit are left; valid:
 * only the handoff), a leaving node whose leave was committed (leaving, exiting, or gone) is not
 * asked to leave again. A leave staged but not committed leaves no trace in member-status, so a
 * leave is staged after `cluster clear`, which drops whatever an interrupted attempt had staged.
 *
 * Only on VMs, and never executed here (no Riak package reachable from this machine): tested at
 * the command level, against the Riak documentation's sequences (test/unit/databases-riak.test.ts).
 */
import { join } from 'node:path';
import type { ClusterInfo, ClusterSettings, DatabaseAdapter, ResizeTiming, YcsbBinding } from '../../../core/database';
import { InputError } from '../../../core/errors';
import type { Inventory, InventoryNode } from '../../../core/inventory';
import { waitFor } from '../../../platform/wait';
import { ClusterAdapter, type Member, type Resize } from '../cluster-adapter';
import { clusterSecrets, generatedSecret } from '../credentials';
import { defaultExecProvider, startServer, type ExecProvider, type ProcessMarker } from '../node-shell';
import { installDebFromVendor } from '../vendor-apt';
import {
  RIAK_DEB,
  RIAK_HTTP_PORT,
  RIAK_ROOT,
  clusterCommand,
  memberStatusCommand,
  parseMemberStatus,
  riakConf,
  riakName,
  transfersDone,
  type RiakMemberStatus,
} from './riak-commands';

interface RiakState {
  version: string;
  nVal: number;
  /** YCSB's bucket is `usertable-<generation>`: a flush starts a new, empty one (see flush). */
  generation: number;
  members: Member[];
  resizing?: Resize;
}

const START_TIMEOUT_MS = 120_000;
const HANDOFF_TIMEOUT_MS = 60 * 60_000;

export class RiakAdapter extends ClusterAdapter<RiakState> implements DatabaseAdapter {
  constructor(inventory: Inventory, execOf: ExecProvider = defaultExecProvider) {
    super('riak', inventory, execOf, 'the Riak cluster');
  }

  private cookie(): string {
    return clusterSecrets(this.inventory.name, 'riak', () => ({ cookie: generatedSecret() })).cookie;
  }

  async install(node: InventoryNode): Promise<void> {
    const shell = this.shell(node);
    if (node.exec.transport !== 'ssh') {
      throw new InputError('database.name', `riak runs only on VM fleets (it was never executed here); ${shell.label} is a local node`);
    }
    await installDebFromVendor(shell, RIAK_DEB);
  }

  private admin(node: string, argv: string[], allowFailure = false) {
    return this.shell(node).run(argv, { allowFailure, timeoutMs: 120_000 });
  }

  /** Every node the ring lists, with its status, as a member that serves sees it. */
  private async memberStatus(via: Member): Promise<RiakMemberStatus[]> {
    return parseMemberStatus((await this.admin(via.node, memberStatusCommand())).stdout);
  }

  private statusOf(statuses: RiakMemberStatus[], node: InventoryNode | Member): RiakMemberStatus['status'] | undefined {
    const address = 'overlayAddress' in node ? node.overlayAddress : node.address;
    return statuses.find((s) => s.node === riakName(address))?.status;
  }

  protected newcomer(_state: RiakState, node: InventoryNode): Member {
    return { node: node.name, address: node.overlayAddress, pid: 0, dir: this.dirOf(node.name) };
  }

  /** erlexec passes the release root to the VM as `-root /usr/lib/riak`: one Riak per VM. */
  protected serverMarker(): ProcessMarker {
    return RIAK_ROOT;
  }

  private serverSpec(member: Member) {
    return { database: 'riak', logFile: join(member.dir, 'riak.log'), marker: this.serverMarker() };
  }

  private pings(member: Member): () => Promise<boolean> {
    return async () => (await this.admin(member.node, ['riak', 'ping'], true)).stdout.trim() === 'pong';
  }

  /**
   * `riak foreground` rather than the documentation's `riak start`: the same node, but its PID is
   * the one started here, so that supervision can tell a crash and restart it in place.
   */
  protected relaunch(member: Member): Promise<number> {
    return startServer(this.shell(member.node), { ...this.serverSpec(member), argv: ['riak', 'foreground'] }, this.pings(member), START_TIMEOUT_MS);
  }

  private async startMember(state: RiakState, node: InventoryNode): Promise<Member> {
    const shell = this.shell(node);
    const member = this.newcomer(state, node);
    await this.stopUnrecorded(state, member);
    await shell.removeDir(member.dir);
    await shell.makeDir(join(member.dir, 'data'));
    await shell.writePrivateFile(
      '/etc/riak/riak.conf',
      riakConf({ address: node.overlayAddress, dir: member.dir, cookie: this.cookie(), nVal: state.nVal }),
    );
    member.pid = await this.relaunch(member);
    return member;
  }

  protected async stopMember(member: Member): Promise<void> {
    const shell = this.shell(member.node);
    await shell.stopProcess(member.pid, this.serverMarker(), 30_000);
    await shell.removeDir(member.dir);
  }

  /** Plan, then commit: Riak commits only a plan it has shown. */
  private async planAndCommit(via: Member): Promise<void> {
    await this.admin(via.node, clusterCommand('plan'));
    const commit = await this.admin(via.node, clusterCommand('commit'));
    if (/fail|error/i.test(commit.stdout)) throw new Error(`riak: cluster commit on ${via.node} failed: ${commit.stdout.trim()}`);
  }

  /** Settled: exactly `members`, each valid, no transfer left, and every member agreeing on the ring. */
  private async waitSettled(via: Member, members: Member[], timeoutMs: number): Promise<void> {
    const want = members
      .map((m) => riakName(m.address))
      .sort()
      .join(',');
    await waitFor(
      async () => {
        const statuses = await this.memberStatus(via);
        if (
          statuses
            .map((s) => s.node)
            .sort()
            .join(',') !== want ||
          statuses.some((s) => s.status !== 'valid')
        )
          return undefined;
        if (!transfersDone((await this.admin(via.node, ['riak', 'admin', 'transfers'])).stdout)) return undefined;
        return /^TRUE/m.test((await this.admin(via.node, ['riak', 'admin', 'ringready'], true)).stdout) ? true : undefined;
      },
      { what: `the Riak ring to be ${members.map((m) => m.node).join(', ')} with every handoff done`, timeoutMs, intervalMs: 2000 },
    );
  }

  async formCluster(nodes: InventoryNode[], settings: ClusterSettings = {}): Promise<ClusterInfo> {
    this.assertNotFormed();
    if (nodes.length === 0) throw new InputError('nodes', 'at least one node is needed');
    const nVal = settings.replication ?? 3;
    if (!Number.isInteger(nVal) || nVal < 1) throw new InputError('settings.replication', `Riak's n_val is a whole number >= 1, got ${nVal}`);
    const state: RiakState = { version: '', nVal, generation: 0, members: [] };
    return this.formWith(state, nVal === 3 ? {} : { n_val: String(nVal) }, async () => {
      for (const node of nodes) {
        state.members.push(await this.startMember(state, node));
        this.state.write(state);
      }
      const [first, ...others] = state.members;
      for (const member of others) await this.admin(member.node, clusterCommand('join', riakName(first.address)));
      if (others.length > 0) await this.planAndCommit(first);
      await this.waitSettled(first, state.members, HANDOFF_TIMEOUT_MS);
      state.version = (await this.shell(first.node).output(['dpkg-query', '-W', '-f', '${Version}', RIAK_DEB.package])) || 'unknown';
    });
  }

  async addNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('riak addNode');
    const resumed = this.unfinished(state, 'add', node);
    if (!resumed) this.assertNotMember(state, node);
    const resize = resumed ?? this.begin(state, 'add', node);
    const via = state.members.find((m) => m.node !== node.name)!;
    let status = this.statusOf(await this.memberStatus(via), node);
    const newcomer = this.newcomer(state, node);
    const member = await this.servingNewcomer(state, resumed !== undefined, {
      newcomer,
      logFile: this.serverSpec(newcomer).logFile,
      ready: this.pings(newcomer),
      timeoutMs: START_TIMEOUT_MS,
      fresh: () => this.startMember(state, node),
      taken: status !== undefined,
    });
    if (status === undefined) {
      await this.admit(state, member, () => this.admin(node.name, clusterCommand('join', riakName(via.address))));
      status = 'joining';
    } else {
      // An attempt that died after staging the join (joining) or committing it (valid).
      this.recordMember(state, member);
    }
    if (status === 'joining') await this.planAndCommit(via);
    this.noteAccepted(state, resize);
    await this.waitSettled(via, state.members, HANDOFF_TIMEOUT_MS);
    return this.completed(state, resize);
  }

  async removeNode(node: InventoryNode): Promise<ResizeTiming> {
    const state = this.state.require('riak removeNode');
    const resumed = this.unfinished(state, 'remove', node);
    const leaving = this.memberOf(state, node);
    const remaining = state.members.filter((m) => m !== leaving);
    if (remaining.length === 0) throw new InputError('node', `${node.name} is the last member of the Riak cluster; stop the cluster instead`);
    const via = remaining[0];
    const status = this.statusOf(await this.memberStatus(via), leaving);
    const resize = resumed ?? this.begin(state, 'remove', node);
    if (status === 'valid') {
      // Whatever an interrupted attempt staged goes first: a staged leave does not show in member-status.
      await this.admin(via.node, clusterCommand('clear'));
      await this.admin(via.node, clusterCommand('leave', riakName(leaving.address)));
      await this.planAndCommit(via);
    }
    // Complete when the ring no longer lists it: its partitions handed off, it shuts itself down.
    return this.removalTaken(state, resize, leaving, () => this.waitSettled(via, remaining, HANDOFF_TIMEOUT_MS));
  }

  async status(): Promise<{ members: string[]; healthy: boolean }> {
    const state = this.state.read();
    if (!state) return { members: [], healthy: false };
    for (const via of state.members) {
      const result = await this.admin(via.node, memberStatusCommand(), true);
      if (result.code !== 0) continue;
      const statuses = parseMemberStatus(result.stdout);
      const members = state.members.filter((m) => this.statusOf(statuses, m) === 'valid').map((m) => m.node);
      return { members, healthy: members.length === state.members.length && statuses.length === state.members.length };
    }
    return { members: [], healthy: false };
  }

  /**
   * Riak has no truncate, and deleting every key lists the whole keyspace: a flush points YCSB at
   * a new bucket instead. The old bucket's objects stay on disk until the cluster is stopped.
   */
  flush(): Promise<void> {
    const state = this.state.require('riak flush');
    this.state.write({ ...state, generation: state.generation + 1 });
    return Promise.resolve();
  }

  ycsbBinding(options: { timeoutMs: number; retries: number }): YcsbBinding {
    const state = this.state.require('riak ycsbBinding');
    return {
      dbClass: 'fragbench.ycsb.RiakClient',
      properties: {
        'riak.urls': state.members.map((m) => `http://${m.address}:${RIAK_HTTP_PORT}`).join(','),
        'riak.bucket': `usertable-${state.generation}`,
        'riak.timeoutMs': String(options.timeoutMs),
        'riak.retries': String(options.retries),
      },
    };
  }
}
