/** RTT over the overlay with ping, run on the sending node. */
import { CommandError, type NodeExec } from '../../core/exec';

export interface PingResult {
  /** Mean RTT of the replies; null when none came back. */
  avgMs: number | null;
  lossPercent: number;
  sent: number;
  /** Each reply's RTT, in arrival order. */
  samplesMs: number[];
}

/** Seconds between pings: fast enough for a matrix, slow enough not to queue behind each other. */
export const PING_INTERVAL_S = 0.2;

/** Below 0.2 s between pings needs root, which every fleet command has. */
export function pingArgv(address: string, count: number, intervalS = PING_INTERVAL_S): string[] {
  const deadline = Math.ceil(count * intervalS + 3);
  return ['ping', '-n', '-c', String(count), '-i', String(intervalS), '-W', '2', '-w', String(deadline), address];
}

/** Parses ping's reply and summary lines (iputils). */
export function parsePing(stdout: string): PingResult {
  const sent = /(\d+) packets transmitted/.exec(stdout);
  const loss = /([\d.]+)% packet loss/.exec(stdout);
  const rtt = /= [\d.]+\/([\d.]+)\/[\d.]+\/[\d.]+ ms/.exec(stdout);
  if (!sent || !loss) throw new Error(`cannot read ping's summary from: ${stdout.slice(-300)}`);
  const samplesMs = [...stdout.matchAll(/icmp_seq=\d+ ttl=\d+ time=([\d.]+) ms/g)].map((m) => Number(m[1]));
  return { avgMs: rtt ? Number(rtt[1]) : null, lossPercent: Number(loss[1]), sent: Number(sent[1]), samplesMs };
}

export async function ping(exec: NodeExec, address: string, count: number, intervalS = PING_INTERVAL_S): Promise<PingResult> {
  // ping exits 1 when replies are missing: that is a result here, not a failure.
  const argv = pingArgv(address, count, intervalS);
  const result = await exec.run(argv, { allowFailure: true, timeoutMs: (count * intervalS + 10) * 1000 });
  // Exit 1 is "some replies missing"; anything else means ping itself failed.
  if (result.code !== 0 && result.code !== 1) throw new CommandError(argv, exec.where, result);
  return parsePing(result.stdout);
}
