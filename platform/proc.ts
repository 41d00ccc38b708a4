/**
 * Parsers for the /proc files host telemetry reads (proc(5)). Pure: text in, numbers out, so they
 * are tested on text recorded from a real host. CPU times stay in clock ticks: telemetry divides
 * one tick count by another taken from /proc/stat over the same interval, so USER_HZ cancels out.
 */

/** Aggregate CPU time of all cores, in ticks since boot. */
export interface HostCpuTicks {
  /** user + nice + system + irq + softirq + steal (guest time is already inside user and nice). */
  busy: number;
  /** idle + iowait. */
  idle: number;
  /** Online cores: the `cpuN` lines. */
  cores: number;
}

/** /proc/stat: the `cpu` line and the number of `cpuN` lines. */
export function parseProcStat(text: string): HostCpuTicks {
  let total: number[] | undefined;
  let cores = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('cpu ')) total = line.trim().split(/\s+/).slice(1).map(Number);
    else if (/^cpu\d+ /.test(line)) cores++;
  }
  if (!total || total.length < 4) throw new Error('/proc/stat has no aggregate "cpu" line');
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = total;
  return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait, cores };
}

/**
 * Clock ticks a second in /proc's per-process times: USER_HZ, which Linux fixes at 100 for user
 * space on every architecture it runs on (what `getconf CLK_TCK` prints).
 */
export const USER_HZ = 100;

/** /proc/uptime's first field (seconds since boot) in clock ticks: the clock /proc/<pid>/stat's start time is on. */
export function parseUptimeTicks(text: string): number {
  const seconds = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`not a /proc/uptime line: ${text.slice(0, 80)}`);
  return Math.floor(seconds * USER_HZ);
}

/** The fields of /proc/<pid>/stat that telemetry uses. */
export interface PidStat {
  pid: number;
  comm: string;
  /** R, S, D, Z, … */
  state: string;
  ppid: number;
  /** User and system CPU time, ticks. */
  utime: number;
  stime: number;
  /** User and system CPU time of its children that it has waited for (and theirs), ticks. */
  childTicks: number;
  /** Ticks after boot the process started: with pid, tells a recycled PID from the old process. */
  startTime: number;
  /** Resident set size, pages (the page size is the host's: `getconf PAGESIZE`). */
  rssPages: number;
}

/**
 * /proc/<pid>/stat. The command name sits in parentheses and may itself hold spaces and
 * parentheses (`(npm exec tsx be)`, `((sd-pam))`), so the fields after it are found from the
 * last `)`, never by splitting the whole line.
 */
export function parsePidStat(text: string): PidStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${text.slice(0, 80)}`);
  // rest[0] is field 3 (state); utime, stime, cutime, cstime, starttime and rss are fields 14-17, 22 and 24.
  const rest = text
    .slice(close + 2)
    .trim()
    .split(' ');
  const field = (n: number) => Number(rest[n - 3]);
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state: rest[0],
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    childTicks: field(16) + field(17),
    startTime: field(22),
    rssPages: field(24),
  };
}

export interface MemInfo {
  totalKb: number;
  availableKb: number;
}

/** /proc/meminfo's MemTotal and MemAvailable (kB, which the kernel means as KiB). */
export function parseMeminfo(text: string): MemInfo {
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    if (!m) throw new Error(`/proc/meminfo has no ${key}`);
    return Number(m[1]);
  };
  return { totalKb: kb('MemTotal'), availableKb: kb('MemAvailable') };
}

/** Cumulative bytes per interface since it was created. */
export type InterfaceBytes = Record<string, { rxBytes: number; txBytes: number }>;

/**
 * /proc/<pid>/net/dev: the interfaces of that process's network namespace. After two header
 * lines, `name: rx bytes, packets, errs, drop, fifo, frame, compressed, multicast, tx bytes, …`;
 * a long name may touch its first number (`fbsingapore-0:1762639`), so split at the colon.
 */
export function parseNetDev(text: string): InterfaceBytes {
  const result: InterfaceBytes = {};
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const numbers = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    result[line.slice(0, colon).trim()] = { rxBytes: numbers[0], txBytes: numbers[8] };
  }
  return result;
}
