/**
 * The tc back end, for fleets of VMs: each end of a link is shaped on egress of that node's
 * WireGuard interface for the link's connection type (delay = half the RTT per direction), so the
 * two ends together shape both directions. Commands for one node go out as one `tc -batch`.
 */
import type { ExecResult, NodeExec } from '../../core/exec';
import { findNode, type Inventory, type InventoryLink } from '../../core/inventory';
import { execFor, rootArgv } from '../../services/exec/transports';
import { DIRECTIONS, type Direction, type DirectionConditions, type LinkConditions } from '../../core/link-conditions';
import type { LinkShaper, ShapeItem } from './shaper';
import {
  MAX_TC_LINKS,
  batchLine,
  UNKNOWN_QDISC,
  cutEndCommand,
  deleteRootCommand,
  netemProbeCommands,
  restoreEndCommand,
  rootCommands,
  setupEndCommands,
  shapeEndCommands,
  showQdiscsCommand,
  type TcEnd,
  type TcShape,
} from './tc-commands';

interface NodeEnd {
  node: string;
  end: TcEnd;
}

const UNSHAPED: TcShape = { delayMs: 0, rateMbps: null, lossPercent: 0, jitterMs: 0 };

export function tcShape(d: DirectionConditions): TcShape {
  return { delayMs: d.delayMs, rateMbps: d.bandwidthMbps, lossPercent: d.lossPercent, jitterMs: d.jitterMs };
}

export class TcShaper implements LinkShaper {
  /** Interfaces whose htb root and per-link rules are known to exist, `node/iface`. */
  private readonly ready = new Map<string, Promise<void>>();
  /** Nodes whose kernel has no netem: rate caps and cuts only. */
  private readonly withoutNetem = new Set<string>();
  /** What was asked and not applied, one line each (results carry them). */
  private readonly unapplied = new Set<string>();

  constructor(
    private readonly inventory: Inventory,
    private readonly execOf: (node: string) => NodeExec = (node) => execFor(findNode(inventory, node).exec),
  ) {
    if (inventory.links.length > MAX_TC_LINKS) {
      throw new Error(`the tc back end numbers rules by link index and handles at most ${MAX_TC_LINKS} links`);
    }
  }

  async apply(link: InventoryLink, conditions: LinkConditions): Promise<void> {
    await this.applyMany([{ link, conditions }]);
  }

  async applyMany(items: ShapeItem[]): Promise<void> {
    const byNode = new Map<string, { link: InventoryLink; end: TcEnd; shape: TcShape }[]>();
    for (const { link, conditions } of items) {
      // Each end shapes what it sends: end a the a -> b direction, end b the b -> a one.
      this.ends(link).forEach(({ node, end }, i) => {
        byNode.set(node, [...(byNode.get(node) ?? []), { link, end, shape: tcShape(conditions[DIRECTIONS[i]]) }]);
      });
    }
    await Promise.all(
      [...byNode].map(async ([node, ends]) => {
        await this.setUp(node);
        const netem = !this.withoutNetem.has(node);
        if (!netem) for (const e of ends) this.noteUnapplied(node, e.link, e.shape);
        await this.batch(
          node,
          ends.flatMap((e) => shapeEndCommands(e.end, e.shape, netem)),
        );
      }),
    );
  }

  /**
   * Conditions this back end could not apply: on a kernel without netem (this host's), delay,
   * loss and jitter; rate caps and cuts are applied. Empty when everything asked was applied.
   */
  unappliedConditions(): string[] {
    return [...this.unapplied].sort();
  }

  private noteUnapplied(node: string, link: InventoryLink, shape: TcShape): void {
    const missing = [
      shape.delayMs > 0 && `delay ${shape.delayMs} ms`,
      shape.lossPercent > 0 && `loss ${shape.lossPercent} %`,
      shape.jitterMs > 0 && `jitter ${shape.jitterMs} ms`,
    ].filter(Boolean);
    if (missing.length)
      this.unapplied.add(`${link.id} from ${node}: ${missing.join(', ')} not applied (no netem in the kernel; rate caps and cuts are)`);
  }

  async cut(link: InventoryLink, direction?: Direction): Promise<void> {
    await Promise.all(
      this.sendingEnds(link, direction).map(async ({ node, end }) => {
        await this.setUp(node);
        // Deleting an earlier cut filter first keeps a repeated cut from stacking filters.
        await this.run(node, restoreEndCommand(end), true);
        await this.run(node, cutEndCommand(end));
      }),
    );
  }

  async restore(link: InventoryLink, direction?: Direction): Promise<void> {
    await Promise.all(this.sendingEnds(link, direction).map(({ node, end }) => this.run(node, restoreEndCommand(end), true)));
  }

  /** The end whose egress carries a direction (a for a -> b), or both ends. */
  private sendingEnds(link: InventoryLink, direction?: Direction): NodeEnd[] {
    const ends = this.ends(link);
    return direction ? [ends[DIRECTIONS.indexOf(direction)]] : ends;
  }

  /** netem draws its loss from the kernel's own generator: iproute2 before 6.5 (Debian 12's 6.1) has no
   *  `seed` for it, so a VM fleet's drops are not repeatable and the run's seed applies to the emulator only. */
  async seedDraws(): Promise<void> {}

  async clear(): Promise<void> {
    this.ready.clear();
    await Promise.all(this.inventory.nodes.flatMap((node) => node.wireguard.map((wg) => this.run(node.name, deleteRootCommand(wg.name), true))));
  }

  /** The two ends of a link as tc sees them: the near interface and the far node's mesh address. */
  ends(link: InventoryLink): NodeEnd[] {
    const index = this.inventory.links.indexOf(link);
    const linkIndex = index >= 0 ? index : this.inventory.links.findIndex((l) => l.id === link.id);
    if (linkIndex < 0) throw new Error(`link ${link.id} is not in inventory ${this.inventory.name}`);
    return link.ends.map((near, i) => {
      const far = link.ends[1 - i];
      const peer = findNode(this.inventory, far.node).wireguard.find((w) => w.type === link.type);
      if (!peer) throw new Error(`node ${far.node} has no WireGuard interface for connection type ${link.type}`);
      return { node: near.node, end: { iface: near.interface, peerAddress: peer.address, linkIndex } };
    });
  }

  /** Creates the htb root and every link's rules on each of the node's interfaces, once. */
  private setUp(node: string): Promise<void> {
    let done = this.ready.get(node);
    if (!done) {
      done = this.setUpNode(node);
      this.ready.set(node, done);
      done.catch(() => this.ready.delete(node));
    }
    return done;
  }

  private async setUpNode(node: string): Promise<void> {
    const ends = this.inventory.links.flatMap((link) => this.ends(link)).filter((e) => e.node === node);
    const ifaces = [...new Set(ends.map((e) => e.end.iface))];
    await Promise.all(
      ifaces.map(async (iface) => {
        const { stdout } = await this.run(node, showQdiscsCommand(iface));
        if (/\bhtb 1: root\b/.test(stdout)) {
          // Set up before, maybe by another process (a later activity): every link end got a
          // netem child then, unless the kernel has none.
          if (!/\bnetem\b/.test(stdout)) this.withoutNetem.add(node);
          return;
        }
        const netem = await this.hasNetem(node, iface);
        const commands = [
          ...rootCommands(iface),
          ...ends.filter((e) => e.end.iface === iface).flatMap((e) => setupEndCommands(e.end, UNSHAPED, netem)),
        ];
        await this.batch(node, commands);
      }),
    );
  }

  private async hasNetem(node: string, iface: string): Promise<boolean> {
    const probe = await this.batch(node, netemProbeCommands(iface), true);
    if (probe.code === 0) return true;
    if (!probe.stderr.includes(UNKNOWN_QDISC)) throw new Error(`tc on ${node}: could not probe for netem on ${iface}: ${probe.stderr.trim()}`);
    this.withoutNetem.add(node);
    return false;
  }

  private batch(node: string, commands: string[][], allowFailure = false): Promise<ExecResult> {
    return this.run(node, ['tc', '-batch', '-'], allowFailure, commands.map(batchLine).join('\n') + '\n');
  }

  private run(node: string, argv: string[], allowFailure = false, input?: string): Promise<ExecResult> {
    return this.execOf(node).run(rootArgv(findNode(this.inventory, node).exec, argv), { allowFailure, input });
  }
}
