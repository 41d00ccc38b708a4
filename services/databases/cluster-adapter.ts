/**
 * What every adapter shares: its state file, a shell per node, the membership checks that turn a
 * bad resize request into a clear error before anything runs, and the record that lets a resize
 * whose caller died be asked again and finished.
 */
import { InputError } from '../../core/errors';
import type { Inventory, InventoryNode } from '../../core/inventory';
import type { ClusterInfo, DatabaseName, ResizeTiming } from '../../core/database';
import { awaitServing, NodeShell, type ExecProvider, type ProcessMarker } from './node-shell';
import { CpuCapFile, nodeDir, StateFile } from './state';
import { cpuCapProblem } from '../../platform/cpu-cap';

/** A database process an adapter started on a node. */
export interface Member {
  node: string;
  address: string;
  pid: number;
  /** The node's directory for this database (config, data, log); removed when it stops. */
  dir: string;
}

/**
 * A resize under way, recorded before its first command so that the same resize asked again
 * after its caller died (a killed worker's retried activity) is finished rather than refused, and
 * reports its timing from the first request. What is left to do is read from the database, not
 * from this record.
 */
export interface Resize {
  kind: 'add' | 'remove';
  node: string;
  requestedAt: number;
  /**
   * When an attempt first saw the cluster take the request. An attempt that finds it taken with
   * none recorded (its predecessor died before looking) records its own first look: the earliest
   * time this side can vouch for.
   */
  acceptedAt?: number;
}

export abstract class ClusterAdapter<
  S extends { members: M[]; version: string; declaredDown?: string[]; resizing?: Resize },
  M extends Member = Member,
> {
  protected readonly state: StateFile<S>;
  /** The CPU each node's server may use, when the cluster was formed with one (`settings.cpusPerNode`). */
  readonly cpuCap: CpuCapFile;

  constructor(
    readonly name: DatabaseName,
    protected readonly inventory: Inventory,
    protected readonly execOf: ExecProvider,
    /** How the database calls its cluster in messages, e.g. "the Redis cluster". */
    private readonly clusterNoun: string,
  ) {
    this.state = new StateFile(inventory.name, name);
    this.cpuCap = new CpuCapFile(inventory.name, name);
  }

  protected shell(node: InventoryNode | string): NodeShell {
    const n = typeof node === 'string' ? this.inventory.nodes.find((x) => x.name === node) : node;
    if (!n) throw new Error(`${this.name}: node "${node as string}" is not in inventory ${this.inventory.name}`);
    return new NodeShell(n, this.execOf(n), this.cpuCap.of(n.name));
  }

  /**
   * Asks for a cap of `cpus` cores on each node's server from the next formation on (none: no
   * cap). Only where the nodes share this host (network namespaces): a VM's size sets its CPU.
   */
  useCpuCap(cpus: number | undefined, nodes: InventoryNode[]): void {
    if (this.state.read()) return; // formed already: formCluster refuses, and the cap stays the running cluster's
    if (cpus === undefined) return this.cpuCap.clear();
    const remote = nodes.filter((n) => n.exec.transport !== 'netns').map((n) => n.name);
    if (remote.length > 0)
      throw new InputError(
        'settings.cpusPerNode',
        `caps servers on nodes that share this host; ${remote.join(', ')} ${remote.length === 1 ? 'is a VM' : 'are VMs'}, whose size sets the CPU: leave it out`,
      );
    const problem = cpuCapProblem();
    if (problem) throw new InputError('settings.cpusPerNode', problem);
    this.cpuCap.write(cpus);
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
  private leavingNode(state: S): string | undefined {
    return state.resizing?.kind === 'remove' ? state.resizing.node : undefined;
  }

  /**
   * The resize of `node` an earlier attempt left unfinished, if that is what is asked again; a
   * different unfinished resize is refused (the cluster is mid-way through it).
   */
  protected unfinished(state: S, kind: Resize['kind'], node: InventoryNode): NonNullable<S['resizing']> | undefined {
    const pending = state.resizing;
    if (!pending) return undefined;
    if (pending.kind === kind && pending.node === node.name) return pending;
    throw new InputError(
      'node',
      `the ${pending.kind} of ${pending.node} was interrupted and is unfinished: ask for it again first (or stop the cluster)`,
    );
  }

  protected begin(state: S, kind: Resize['kind'], node: InventoryNode): NonNullable<S['resizing']> {
    const resize = { kind, node: node.name, requestedAt: Date.now() } as NonNullable<S['resizing']>;
    state.resizing = resize;
    this.state.write(state);
    return resize;
  }

  /** Saved at once: an attempt killed next still leaves the acceptance time to its successor. */
  protected noteAccepted(state: S, resize: Resize, at = Date.now()): void {
    if (resize.acceptedAt !== undefined) return;
    resize.acceptedAt = at;
    this.state.write(state);
  }

  /** Forgets a resize that left the cluster as it was (refused), so that another may start. */
  protected forgetResize(state: S): void {
    state.resizing = undefined;
    this.state.write(state);
  }

  /** The resize's timing, from its first request. */
  protected timingOf(resize: Resize, completedAt = Date.now()): ResizeTiming {
    return { node: resize.node, requestedAt: resize.requestedAt, acceptedAt: resize.acceptedAt ?? completedAt, completedAt };
  }

  /** An add the cluster has completed: its record goes, its timing is returned. */
  protected completed(state: S, resize: Resize): ResizeTiming {
    this.forgetResize(state);
    return this.timingOf(resize);
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
    if (!member)
      throw new InputError('node', `${node} is not a member of ${this.clusterNoun} (members: ${state.members.map((m) => m.node).join(', ')})`);
    return member;
  }

  /**
   * Runs `form` (which records each member in `state` as it starts) and reports the cluster, with
   * the settings that decide what it keeps and what a read sees (`consistency`); if anything
   * fails, everything started so far is stopped before the error goes on.
   */
  protected async formWith(
    state: S,
    nonDefaultSettings: Record<string, string>,
    form: () => Promise<void>,
    consistency?: Record<string, string>,
  ): Promise<ClusterInfo> {
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
      ...(consistency ? { consistency } : {}),
      formedInMs: Date.now() - started,
    };
  }

  /**
   * Stops members that have left the cluster and records the ones that stay; a removal of one of
   * them is complete with the same write, so that no attempt finds it half-recorded.
   */
  protected async retire(state: S, leaving: M[]): Promise<void> {
    const names = leaving.map((m) => m.node);
    this.declareDown(state, names);
    for (const member of leaving) await this.stopMember(member, state);
    state.members = state.members.filter((m) => !leaving.includes(m));
    state.declaredDown = state.declaredDown?.filter((n) => !names.includes(n));
    if (state.resizing?.kind === 'remove' && names.includes(state.resizing.node)) state.resizing = undefined;
    this.state.write(state);
  }

  /**
   * Asks the cluster to take a started member (`join`); when it refuses, the member is stopped and
   * the resize forgotten (the cluster is as it was, so another may start). Returns when the cluster
   * accepted it, with the member recorded in the state.
   */
  protected async admit(state: S, member: M, join: () => Promise<unknown>): Promise<number> {
    try {
      await join();
    } catch (err) {
      await this.stopMember(member, state);
      this.forgetResize(state);
      throw err;
    }
    const acceptedAt = Date.now();
    this.recordMember(state, member);
    return acceptedAt;
  }

  /** Replacing: an interrupted attempt may have recorded it already (with a PID now gone). */
  protected recordMember(state: S, member: M): void {
    state.members = [...state.members.filter((m) => m.node !== member.node), member];
    this.state.write(state);
  }

  /** Stops every member this fleet started and forgets the cluster; idempotent. */
  async stop(): Promise<void> {
    const state = this.state.read();
    if (!state) return;
    this.declareDown(
      state,
      state.members.map((m) => m.node),
    );
    // All at once: the cluster is going away, and each JVM's shutdown takes seconds.
    await Promise.all(state.members.map((member) => this.stopMember(member, state)));
    await this.stopNewcomer(state);
    this.cpuCap.removeGroups(this.inventory.nodes.map((n) => n.name));
    this.state.remove();
  }

  /** A node being added, as a member before its server runs (PID 0). */
  protected abstract newcomer(state: S, node: InventoryNode): M;

  /** The server an interrupted add started on a node it never recorded as a member, if any. */
  protected async stopNewcomer(state: S): Promise<void> {
    const adding = state.resizing?.kind === 'add' ? state.resizing.node : undefined;
    if (!adding || state.members.some((m) => m.node === adding)) return;
    const newcomer = this.newcomer(state, this.shell(adding).node);
    await this.stopUnrecorded(state, newcomer);
    await this.shell(adding).removeDir(newcomer.dir);
  }

  /**
   * Stops servers on the member's directory that no one recorded: started detached, they outlive
   * a caller that died before it could. Found by their marker, never by name.
   */
  protected async stopUnrecorded(state: S, member: M): Promise<void> {
    const shell = this.shell(member.node);
    const marker = this.serverMarker(member, state);
    for (const pid of await shell.findOurs(marker)) await shell.stopProcess(pid, marker, 30_000);
  }

  /**
   * An add's newcomer, serving: started afresh, or, for an add asked again, as the interrupted
   * attempt left it (resumedNewcomer). If it does not come up and the cluster has not taken it
   * (`taken`), the add is forgotten: the cluster is as it was.
   */
  protected async servingNewcomer(
    state: S,
    resumed: boolean,
    how: { newcomer: M; logFile: string; ready: () => Promise<boolean>; timeoutMs: number; fresh: () => Promise<M>; taken: boolean },
  ): Promise<M> {
    try {
      if (!resumed) return await how.fresh();
      const shell = this.shell(how.newcomer.node);
      const spec = { database: this.name, logFile: how.logFile, marker: this.serverMarker(how.newcomer, state) };
      const serving = (pid: number) => awaitServing(shell, spec, pid, how.ready, how.timeoutMs);
      return await this.resumedNewcomer(state, how.newcomer, { serving, logFile: how.logFile, fresh: how.fresh });
    } catch (err) {
      if (!how.taken) this.forgetResize(state);
      throw err;
    }
  }

  /** A removal the cluster took: complete once `settled` resolves; then its member is stopped. */
  protected async removalTaken(state: S, resize: Resize, leaving: M, settled: () => Promise<void>): Promise<ResizeTiming> {
    this.noteAccepted(state, resize);
    await settled();
    const completedAt = Date.now();
    await this.retire(state, [leaving]);
    return this.timingOf(resize, completedAt);
  }

  /**
   * The newcomer's server after an interrupted add, as that attempt left it: still running (it
   * outlived its caller), adopted once `serving` resolves; dead after a launch (its log is there),
   * started again on its directory; never launched, started afresh.
   */
  protected async resumedNewcomer(
    state: S,
    member: M,
    how: { serving: (pid: number) => Promise<unknown>; logFile: string; fresh: () => Promise<M> },
  ): Promise<M> {
    const shell = this.shell(member.node);
    const [running] = await shell.findOurs(this.serverMarker(member, state));
    if (running !== undefined) {
      await how.serving(running);
      return { ...member, pid: running };
    }
    const launched = await shell.run(['test', '-e', how.logFile], { allowFailure: true });
    if (launched.code === 0) return { ...member, pid: await this.relaunch(member, state) };
    return how.fresh();
  }
}
