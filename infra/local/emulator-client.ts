/**
 * The WAN link emulator of the local fleet (`emulator/`, binary `fb-wan`) as TypeScript sees it:
 * the types of its config file, a client for its control socket, and the function that starts it
 * (stop it with its ManagedProcess: on SIGTERM it closes its sockets and removes its control
 * socket). The emulator relays every link's WireGuard UDP between two node namespaces,
 * each direction with its own one-way delay and jitter, rate cap and random loss (seeded, so a run
 * can be repeated); links can be changed, cut and restored while traffic flows.
 */
import { createConnection } from 'node:net';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { netnsArgv } from '../../platform/command';
import { ManagedProcess } from '../../platform/process';
import { networkCpuPrefix } from './network-cpus';

/** The emulator binary, built by `scripts/build.d/emulator.sh`. */
export const EMULATOR_BINARY = path.resolve(__dirname, '..', '..', 'emulator', 'bin', 'fb-wan');
/** What the emulator prints on stdout once its sockets are bound and its control socket listens. */
export const EMULATOR_READY_LINE = 'fb-wan ready';

// ---- config file -------------------------------------------------------------------------

/** What one direction of a link does to its packets. */
export interface DirectionShaping {
  /** One-way delay (half of a symmetric link's RTT). */
  delayMs: number;
  /** Cap on the UDP payload bit rate (the WireGuard datagrams); null or 0 = no cap. */
  rateMbps: number | null;
  /** Random loss, 0..100. */
  lossPercent: number;
  /** Standard deviation of the one-way delay: each packet's delay is normal around delayMs,
   *  clamped at 0, and packets are never reordered (packets closer together than ~3 jitterMs
   *  therefore see more delay and less spread). Absent: 0. */
  jitterMs?: number;
  /** Starts the loss and jitter draws: the same seed and the same packets give the same drops
   *  and delays. A whole number up to Number.MAX_SAFE_INTEGER; absent: the emulator picks one
   *  and reports it in stats. */
  seed?: number;
}

/** One node's side of a link, as the emulator sees it. */
export interface EmulatorEnd {
  /** Address:port the emulator listens on for this node; the node's WireGuard endpoint for the
   *  other node must be exactly this (WireGuard roams to whatever source last spoke). */
  listen: string;
  /** The node's own WireGuard address:port; datagrams from anywhere else are dropped. */
  peer: string;
}

/** A datagram arriving on `a.listen` goes through `ab` and leaves from `b.listen` to `b.peer`;
 *  the reverse goes through `ba` and leaves from `a.listen` to `a.peer`. */
export interface EmulatorLinkConfig {
  /** `<a>-<b>/<type>`, the inventory's link id. */
  id: string;
  a: EmulatorEnd;
  b: EmulatorEnd;
  ab: DirectionShaping;
  ba: DirectionShaping;
}

/** The emulator's config file (`fb-wan -config <file>`). */
export interface EmulatorConfig {
  links: EmulatorLinkConfig[];
}

// ---- control protocol --------------------------------------------------------------------

export type LinkDirection = 'ab' | 'ba' | 'both';

/** A shaping change; only the fields given change. It applies to packets arriving from then on. */
export interface ShapingChange {
  link: string;
  dir: LinkDirection;
  delayMs?: number;
  /** null removes the cap. */
  rateMbps?: number | null;
  lossPercent?: number;
  /** 0 removes the jitter. */
  jitterMs?: number;
  /** Restarts the direction's loss and jitter draws from this seed. */
  seed?: number;
}

/** Dropped datagrams by reason. */
export interface DropCounts {
  cut: number;
  loss: number;
  /** Rate-cap queue full (or the direction's memory bound reached). */
  queue: number;
  /** From an address other than the configured peer. */
  foreign: number;
  /** Refused by the kernel when sending. */
  send: number;
}

/** A direction's current shaping and its counters since the emulator started. fb-wan always
 *  reports jitterMs and the seed in use (given or picked: store it to repeat a run); they stay
 *  optional, as in DirectionShaping, so that stats written without them still type-check. */
export interface DirectionStats extends DirectionShaping {
  /** Forwarded datagrams and their UDP payload bytes. */
  packets: number;
  bytes: number;
  /** Datagrams held right now (queued or in propagation). */
  queued: number;
  drops: DropCounts;
  /** This direction drops everything (a one-way cut cuts one direction); absent from older stats. */
  cut?: boolean;
  /** Forwarded datagrams that left over 1, 3 and 10 ms after their due time, and the most late
   *  one: the emulator's own error (a busy host or a stolen vCPU), absent from older stats. */
  late?: LateCounts;
}

export interface LateCounts {
  over1ms: number;
  over3ms: number;
  over10ms: number;
  maxMs: number;
}

export interface LinkStats {
  id: string;
  cut: boolean;
  ab: DirectionStats;
  ba: DirectionStats;
}

/** The emulator rejected a request; the message is the emulator's own error text. */
export class EmulatorError extends Error {
  constructor(
    readonly op: string,
    message: string,
  ) {
    super(message);
    this.name = 'EmulatorError';
  }
}

interface Response {
  ok: boolean;
  error?: string;
  links?: LinkStats[];
}

const DEFAULT_TIMEOUT_MS = 5_000;

/** Talks to a running emulator over its control socket, one connection per request. */
export class EmulatorClient {
  constructor(
    readonly socketPath: string,
    readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  async ping(): Promise<void> {
    await this.request({ op: 'ping' });
  }

  async set(change: ShapingChange): Promise<void> {
    await this.request({ op: 'set', ...change });
  }

  /** Applies every change or, if one is invalid, none. */
  async setMany(changes: ShapingChange[]): Promise<void> {
    await this.request({ op: 'setMany', items: changes });
  }

  /** Drops everything on the link (one direction, or both ways when none is given), including
   *  what it holds, until restore. */
  async cut(linkId: string, dir?: 'ab' | 'ba'): Promise<void> {
    await this.request({ op: 'cut', link: linkId, ...(dir ? { dir } : {}) });
  }

  async restore(linkId: string, dir?: 'ab' | 'ba'): Promise<void> {
    await this.request({ op: 'restore', link: linkId, ...(dir ? { dir } : {}) });
  }

  async stats(): Promise<LinkStats[]> {
    return (await this.request({ op: 'stats' })).links ?? [];
  }

  private request(body: { op: string } & Record<string, unknown>): Promise<Response> {
    const where = `emulator control socket ${this.socketPath}`;
    return new Promise((resolve, reject) => {
      const socket = createConnection(this.socketPath);
      let received = '';
      const fail = (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new Error(`${where}: no answer to ${body.op} within ${this.timeoutMs} ms`)), this.timeoutMs);
      socket.setEncoding('utf8');
      socket.on('connect', () => socket.write(`${JSON.stringify(body)}\n`));
      socket.on('error', (err) => fail(new Error(`${where}: ${err.message} (is fb-wan running?)`)));
      socket.on('close', () => fail(new Error(`${where}: closed before answering ${body.op}`)));
      socket.on('data', (chunk: string) => {
        received += chunk;
        const end = received.indexOf('\n');
        if (end < 0) return;
        clearTimeout(timer);
        socket.removeAllListeners('close');
        socket.end();
        let response: Response;
        try {
          response = JSON.parse(received.slice(0, end)) as Response;
        } catch {
          reject(new Error(`${where}: answered ${body.op} with something that is not JSON: ${received.slice(0, 200)}`));
          return;
        }
        if (response.ok) resolve(response);
        else reject(new EmulatorError(body.op, response.error ?? `${body.op} failed without a reason`));
      });
    });
  }
}

// ---- process -------------------------------------------------------------------------------

export interface StartEmulatorOptions {
  /** The namespace it runs in (the WAN namespace, `fb-wan`); none: this host's own network. */
  namespace?: string;
  configPath: string;
  controlPath: string;
  /** stdout and stderr are appended here. */
  logPath: string;
  /** SCHED_FIFO priority (chrt -f); the measured precision assumes one. null: normal priority. */
  realtimePriority?: number | null;
  /** The CPUs it runs on (network-cpus.ts); undefined: not pinned. */
  cpus: string | undefined;
  readyTimeoutMs?: number;
}

export interface RunningEmulator {
  pid: number;
  process: ManagedProcess;
  client: EmulatorClient;
}

/**
 * Starts the emulator detached and waits for its ready line. If it exits or does not become
 * ready in time, it is stopped and the error carries the end of its log.
 */
export async function startEmulator(options: StartEmulatorOptions): Promise<RunningEmulator> {
  const { configPath, controlPath, logPath, realtimePriority = 10, readyTimeoutMs = 10_000 } = options;
  if (!existsSync(EMULATOR_BINARY)) {
    throw new Error(`${EMULATOR_BINARY} is missing: build it with scripts/build.d/emulator.sh (or make setup)`);
  }
  const priority = [...networkCpuPrefix(options.cpus), ...(realtimePriority === null ? [] : ['chrt', '-f', String(realtimePriority)])];
  // Not GODEBUG=schedtrace (which keeps Go's sysmon from parking and halved fb-wan's CPU per
  // operation): with it, the emulator's RTT test saw p99 5.3 ms late on a 20 ms link in 2 of 5 runs.
  const emulator = ManagedProcess.start({
    prefix: options.namespace ? netnsArgv(options.namespace, priority) : priority,
    argv: [EMULATOR_BINARY, '-config', configPath, '-control', controlPath],
    logFile: logPath,
    name: `fb-wan in ${options.namespace ?? 'this host'}`,
  });
  await emulator.waitReady({ logLine: EMULATOR_READY_LINE }, { what: 'its ready line', timeoutMs: readyTimeoutMs, intervalMs: 20 });
  return { pid: emulator.pid, process: emulator, client: new EmulatorClient(controlPath) };
}
