/**
 * The host telemetry sampler: once a second, on the wall-clock second like the load samples, it
 * reads /proc/stat, /proc/meminfo, the CPU of every classified process and the interface counters
 * of every named network namespace, and hands over a `TelemetrySample`. Everything is read from
 * /proc (no exec): reading a namespace's /proc/<pid>/net/dev needs no `ip netns exec`. Its own
 * cost is measured by `npm run bench:telemetry`.
 */
import type { ByteCounts, ProcessClassifier, TelemetrySample } from '../../core/telemetry';
import { parseMeminfo, parseNetDev, parseProcStat, parseUptimeTicks, type InterfaceBytes } from '../../platform/proc';
import { classifyByProgram } from './classify';
import { ProcessTable, readText } from './process-table';
import { telemetrySample, unclassifiedPercent, type Reading } from './sample';

export interface TelemetrySamplerOptions {
  /** Role of each process; default: the sampler's own process is `worker`, the rest by program alone. */
  classify?: ProcessClassifier;
  /**
   * Seconds between scans of /proc for new processes. Scanning reads every PID; the seconds in
   * between read only the classified ones. A second whose unclassified CPU (`other`) reaches
   * RESCAN_AT_OTHER_PERCENT scans at once, so a process that starts between scans (a YCSB JVM, at
   * over a core) is found in the second it starts, not up to five seconds later, and counts whole
   * there: a process found by a scan counts from its start when it started since the last reading.
   */
  scanEverySeconds?: number;
  /**
   * Cumulative bytes per link id as seen from the link's `a` end (tx = a → b), read once a
   * second. An interface carries every link of its type at its node, so in a mesh only the back
   * end's own per-link counters tell links apart (locally: `emulatorLinkBytes`).
   */
  linkBytes?: () => Promise<Record<string, ByteCounts>>;
  /**
   * A tick that fails is skipped, and link counters that cannot be read leave that second's
   * `links` empty; either is reported here (default: ignored, the next tick retries).
   */
  onError?: (err: Error) => void;
}

/** Label of the sampler's own namespace in interface keys. */
export const HOST_NAMESPACE = 'host';
/** Just after the second turns, so the sample's second has ended. */
const TICK_OFFSET_MS = 5;
/**
 * % of one core of unclassified CPU in a second at which /proc is scanned at once. A quiet
 * fleet's `other` is 0-8 % (kernel work no process is charged with, short-lived commands); a
 * starting JVM's is over 100 %.
 */
export const RESCAN_AT_OTHER_PERCENT = 20;

export class TelemetrySampler {
  private readonly table: ProcessTable;
  private readonly scanEveryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private last: Reading | undefined;
  private lastScanAt = 0;
  private pending = false;

  constructor(private readonly options: TelemetrySamplerOptions = {}) {
    this.table = new ProcessTable(options.classify ?? byProgram);
    this.scanEveryMs = (options.scanEverySeconds ?? 5) * 1000;
  }

  /** Takes a first reading now, then calls onSample once a second until stop(). */
  async start(onSample: (sample: TelemetrySample) => void): Promise<void> {
    if (this.timer) throw new Error('telemetry sampler already started');
    await this.begin();
    const tick = async () => {
      this.timer = setTimeout(() => void tick(), msToNextSecond()).unref();
      // A second whose link counters still have not answered is skipped, never run twice at once.
      if (this.pending) return this.report(new Error('telemetry: the previous second is still being read; skipped one'));
      this.pending = true;
      try {
        const sample = await this.sample();
        // stop() while the link counters were read: nothing more after it returned.
        if (this.timer !== undefined) onSample(sample);
      } catch (err) {
        this.report(err as Error);
      } finally {
        this.pending = false;
      }
    };
    // A first second shorter than half a second would be mostly noise: skip to the next one.
    const first = msToNextSecond();
    this.timer = setTimeout(() => void tick(), first < 500 ? first + 1000 : first).unref();
  }

  /** The first reading, which the first sample is taken against (start() takes it itself). */
  async begin(): Promise<void> {
    this.scan();
    const reading = this.readHost();
    this.table.roleTicks(); // baseline for every classified process
    this.last = { ...reading, links: await this.readLinks() };
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Processes per role at the last scan. */
  classified(): Record<string, number> {
    return this.table.countByRole();
  }

  /** The sample since the last reading (or since begin()). */
  async sample(): Promise<TelemetrySample> {
    // The sampler's own CPU: its synchronous reads of /proc, where nearly all its work is.
    const cpuBefore = process.cpuUsage();
    const before = this.last;
    if (!before) throw new Error('telemetry sampler: sample() before begin()');
    const due = Date.now() - this.lastScanAt >= this.scanEveryMs - TICK_OFFSET_MS * 2;
    if (due) this.scan(before.bootTicks);
    // The host's ticks and the processes' ticks are read back to back, so they cover the same interval.
    const host = this.readHost();
    const roleTicks = this.table.roleTicks();
    // A process started since the last scan hides in `other`: find it now, and count it whole if it started in this interval.
    if (!due && unclassifiedPercent(before, host, roleTicks) >= RESCAN_AT_OTHER_PERCENT) {
      this.scan(before.bootTicks);
      for (const [role, ticks] of this.table.roleTicks()) roleTicks.set(role, (roleTicks.get(role) ?? 0) + ticks);
    }
    const mem = parseMeminfo(readText('/proc/meminfo') ?? '');
    const pids = this.table.pidsByRole();
    const used = process.cpuUsage(cpuBefore);
    const after = { ...host, links: await this.readLinks() };
    this.last = after;
    const sample = telemetrySample(before, after, roleTicks, mem);
    return { ...sample, pids, selfCpuPercent: Math.round(((used.user + used.system) / 1000 / Math.max(sample.intervalMs, 1)) * 10_000) / 100 };
  }

  private scan(countFrom?: number): void {
    this.table.scan(countFrom);
    this.lastScanAt = Date.now();
  }

  private readHost(): Omit<Reading, 'links'> {
    return {
      at: Date.now(),
      bootTicks: parseUptimeTicks(readText('/proc/uptime') ?? ''),
      cpu: parseProcStat(readText('/proc/stat') ?? ''),
      interfaces: this.interfaceBytes(),
    };
  }

  private async readLinks(): Promise<Record<string, ByteCounts>> {
    if (!this.options.linkBytes) return {};
    try {
      return await this.options.linkBytes();
    } catch (err) {
      this.report(err as Error);
      return {};
    }
  }

  private report(err: Error): void {
    this.options.onError?.(err);
  }

  private interfaceBytes(): InterfaceBytes {
    const all: InterfaceBytes = {};
    const add = (namespace: string, text: string | undefined) => {
      if (text === undefined) return false;
      for (const [name, bytes] of Object.entries(parseNetDev(text))) if (name !== 'lo') all[`${namespace}/${name}`] = bytes;
      return true;
    };
    add(HOST_NAMESPACE, readText('/proc/self/net/dev'));
    // Any process inside a namespace shows that namespace's interfaces; try the next if one just ended.
    for (const [namespace, pids] of this.table.namespacePids()) pids.some((pid) => add(namespace, readText(`/proc/${pid}/net/dev`)));
    return all;
  }
}

/** Without a back end's knowledge: no nodes, so only the tool's daemons and YCSB (on `host`). */
const byProgram: ProcessClassifier = (p) =>
  p.pid === process.pid
    ? 'worker'
    : classifyByProgram(
        p,
        () => undefined,
        () => false,
      );

function msToNextSecond(): number {
  return 1000 - (Date.now() % 1000) + TICK_OFFSET_MS;
}
