/**
 * What every adapter shares: its state file, a shell per node, and the membership checks that
 * turn a bad resize request into a clear error before anything runs.
 */
import { InputError } from '../../core/errors';
import type { Inventory, InventoryNode } from '../../core/inventory';
import type { ClusterInfo, DatabaseName } from '../../core/database';
import { NodeShell, type ExecProvider, type ProcessMarker } from './node-shell';
import { nodeDir, StateFile } from './state';

/** A database process an adapter started on a node. */
export interface Member {
  node: string;
  address: string;
  pid: number;
  /** The node's directory for this database (config, data, log); removed when it stops. */
  dir: string;
}

export abstract class ClusterAdapter<S extends { members: M[]; version: string; declaredDown?: string[] }, M extends Member = Member> {
  protected readonly state: StateFile<S>;

  constructor(
    readonly name: DatabaseName,
    protected readonly inventory: Inventory,
    protected readonly execOf: ExecProvider,
    /** How the database calls its cluster in messages, e.g. "the Redis cluster". */
    private readonly clusterNoun: string,
  ) {
    this.state = new StateFile(inventory.name, name);
  }

  protected shell(node: InventoryNode | string): NodeShell {
    const n = typeof node === 'string' ? this.inventory.nodes.find((x) => x.name === node) : node;
    if (!n) throw new Error(`${this.name}: node "${node}" is not in inventory ${this.inventory.name}`);
    return new NodeShell(n, this.execOf(n));
  }

  protected dirOf(node: string): string {
    return nodeDir(this.inventory.name, this.name, node);
  }

  /** Forming twice would orphan the first cluster's processes. */
  protected assertNotFormed(): void {
    const existing = this.state.read();
    if (existing) {
      throw new Error(
        `${this.name}: ${this.clusterNoun} already runs on ${this.inventory.name} (${existing.members.map((m) => m.node).join(', ')}); stop it first`,
      );
    }
  }

  protected memberOf(state: S, node: InventoryNode): M {
    return this.namedMember(state, node.name);
  }

  protected assertNotMember(state: S, node: InventoryNode): void {
    if (state.members.some((m) => m.node === node.name)) throw new InputError('node', `${node.name} is already a member of ${this.clusterNoun}`);
  }

  protected abstract stopMember(member: M, state: S): Promise<void>;

  /** What tells this member's server process from any other (a recycled PID runs something else). */
  protected abstract serverMarker(member: M, state: S): ProcessMarker;

  /** Starts the member's server again on its directory as it is; resolves with its PID once it serves. */
  protected abstract relaunch(member: M, state: S): Promise<number>;

  /** Members whose server is gone without the scenario's asking (a `kill` event's member is not one). */
  async deadMembers(): Promise<string[]> {
    const state = this.state.read();
    if (!state) return [];
    const dead: string[] = [];
    for (const member of state.members) {
      if (state.declaredDown?.includes(member.node) || member.node === this.leavingNode(state)) continue;
      if (!(await this.isServing(member, state))) dead.push(member.node);
    }
    return dead;
  }

  /** A member a removal under way may already have shut down (Redis's del-node does): not a crash. */
  protected leavingNode(_state: S): string | undefined {
    return undefined;
  }

  /** Marks members as stopped on purpose before they are, so that supervision never restarts them. */
  private declareDown(state: S, nodes: string[]): void {
    state.declaredDown = [...new Set([...(state.declaredDown ?? []), ...nodes])];
    this.state.write(state);
  }

  async restartMember(node: string): Promise<void> {
    const state = this.state.require(`${this.name} restartMember`);
    const member = this.namedMember(state, node);
    if (!(await this.isServing(member, state))) member.pid = await this.relaunch(member, state);
    state.declaredDown = state.declaredDown?.filter((n) => n !== node);
    this.state.write(state);
  }

  async killMember(node: string): Promise<void> {
    const state = this.state.require(`${this.name} killMember`);
    const member = this.namedMember(state, node);
    // Recorded first: supervision must not take the death for a crash and restart it.
    this.declareDown(state, [node]);
    if (await this.isServing(member, state)) await this.shell(member.node).run(['kill', '-KILL', String(member.pid)], { allowFailure: true });
  }

  private isServing(member: M, state: S): Promise<boolean> {
    return this.shell(member.node).isOurs(member.pid, this.serverMarker(member, state));
  }

  private namedMember(state: S, node: string): M {
    const member = state.members.find((m) => m.node === node);
    if (!member) throw new InputError('node', `${node} is not a member of ${this.clusterNoun} (members: ${state.members.map((m) => m.node).join(', ')})`);
    return member;
  }

  /**
   * Runs `form` (which records each member in `state` as it starts) and reports the cluster; if
   * anything fails, everything started so far is stopped before the error goes on.
   */
  protected async formWith(state: S, nonDefaultSettings: Record<string, string>, form: () => Promise<void>): Promise<ClusterInfo> {
    const started = Date.now();
    try {
      await form();
      this.state.write(state);
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
    return {
      database: this.name,
      version: state.version,
      members: state.members.map((m) => m.node),
      nonDefaultSettings,
      formedInMs: Date.now() - started,
    };
  }

  /** Stops members that have left the cluster and records the ones that stay. */
  protected async retire(state: S, leaving: M[]): Promise<void> {
    const names = leaving.map((m) => m.node);
    this.declareDown(state, names);
    for (const member of leaving) await this.stopMember(member, state);
    this.state.write({ ...state, members: state.members.filter((m) => !leaving.includes(m)), declaredDown: state.declaredDown?.filter((n) => !names.includes(n)) });
  }

  /**
   * Asks the cluster to take a started member (`join`); when it refuses, the member is stopped.
   * Returns when the cluster accepted it, with the member recorded in the state.
   */
  protected async admit(state: S, member: M, join: () => Promise<unknown>): Promise<number> {
    try {
      await join();
    } catch (err) {
      await this.stopMember(member, state);
      throw err;
    }
    const acceptedAt = Date.now();
    state.members.push(member);
    this.state.write(state);
    return acceptedAt;
  }

  /** Stops every member this fleet started and forgets the cluster; idempotent. */
  async stop(): Promise<void> {
    const state = this.state.read();
    if (!state) return;
    this.declareDown(state, state.members.map((m) => m.node));
    for (const member of state.members) await this.stopMember(member, state);
    this.state.remove();
  }
}
