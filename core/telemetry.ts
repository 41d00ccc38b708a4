/**
 * Host telemetry: one sample a second, stored beside the load samples on the same clock, so every
 * result carries the evidence that the tool stayed out of the way (DESIGN.md, "Measuring the
 * measurer"). The sampler that produces it is `operations/telemetry/`; `core/verdict.ts` judges it.
 */
import type { DatabaseName } from './database';
import type { FleetRef } from './fleet-ref';
import type { SampleSink } from './ycsb';

/**
 * What a process is counted as. `ycsb:<client>` and `db:<node>` name the node they run on; the
 * fixed roles are the tool's own parts. `other` is never assigned to a process: it is what is left
 * of the host's busy time once every named role is taken away.
 */
export type Role = `ycsb:${string}` | `db:${string}` | FixedRole;
export type FixedRole = 'emulator' | 'wireguard' | 'tinc' | 'temporal' | 'worker' | 'other';

export const YCSB_ROLE_PREFIX = 'ycsb:';
export const DB_ROLE_PREFIX = 'db:';

export const ycsbRole = (client: string): Role => `${YCSB_ROLE_PREFIX}${client}`;
export const dbRole = (node: string): Role => `${DB_ROLE_PREFIX}${node}`;
export const isYcsbRole = (role: string): boolean => role.startsWith(YCSB_ROLE_PREFIX);
export const isDbRole = (role: string): boolean => role.startsWith(DB_ROLE_PREFIX);

/** Bytes that crossed an interface (or a link) during one sample's interval. */
export interface ByteCounts {
  rxBytes: number;
  txBytes: number;
}

export interface TelemetrySample {
  /** Wall-clock time at the end of the second it covers, epoch ms (a whole second, like Sample.time). */
  time: number;
  /** Span the deltas below were taken over, ms: about 1000, more when a tick ran late. */
  intervalMs: number;
  /** CPU busy time of all cores together, 0..100 (100 = every core busy). Steal counts as busy. */
  hostBusyPercent: number;
  /** Idle time (idle + iowait) of all cores together, 0..100; busy + idle = 100. */
  hostIdlePercent: number;
  /** Online cores counted in /proc/stat. */
  cores: number;
  /** MemTotal − MemAvailable: memory the host cannot hand out without swapping or evicting. */
  memUsedMb: number;
  /** MemAvailable: what new work could still get. */
  memAvailableMb: number;
  /**
   * CPU of each role as % of one core (100 = one core busy the whole interval), summed over the
   * role's processes (user + system time). Keyed by Role; a role with no process this interval
   * is absent, `other` is always present.
   */
  roles: Record<string, number>;
  /** The most a role can show: cores × 100. */
  roleMaxPercent: number;
  /** Bytes per interface, keyed `<namespace>/<interface>` (`host/<interface>` outside any named
   *  namespace); loopback is left out. */
  interfaces: Record<string, ByteCounts>;
  /**
   * Bytes per link id, as seen from the link's `a` end: txBytes went a → b, rxBytes b → a. From
   * the back end's per-link counters (the local emulator's); empty without them, or when they
   * could not be read that second.
   */
  links: Record<string, ByteCounts>;
  /** The PIDs counted for each role this second (a phase's YCSB JVM starts are counted from them). */
  pids?: Record<string, number[]>;
  /** The sampler's own CPU for this second (its reads of /proc), % of one core. */
  selfCpuPercent?: number;
}

/** A process as the sampler sees it when it classifies it. */
export interface ProcessInfo {
  pid: number;
  /** Kernel command name (/proc/<pid>/comm, at most 15 characters). */
  comm: string;
  /** Command line; empty for kernel threads. */
  argv: string[];
  /** Named network namespace it runs in (from /run/netns), or undefined for the host's or an unnamed one. */
  namespace: string | undefined;
}

/** Decides a process's role; undefined counts it as `other`. Each back end supplies its own. */
export type ProcessClassifier = (process: ProcessInfo) => Role | undefined;

export interface MonitorInput {
  fleet: FleetRef;
  sink: SampleSink;
  /** The cluster's nodes; the client node is probed too. */
  nodes: string[];
  /** Pairs pinged each second (one echo each). */
  probesPerSecond?: number;
  /** Host-clock origin of the phase, for the offsets of the faults it records. */
  originMs?: number;
  /** The cluster's database: a member whose server dies unasked is recorded and restarted. */
  database?: DatabaseName;
}
