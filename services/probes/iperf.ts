/** TCP throughput over the overlay with iperf3: a one-shot server on the receiver, stopped by PID. */
import type { NodeExec } from '../../core/exec';
import { sleep } from '../../platform/wait';

const BASE_PORT = 5201;

/** One port per sender, so several measurements towards one node can run at once. */
export function iperfPort(senderIndex: number): number {
  return BASE_PORT + senderIndex;
}

export function iperfServerArgv(bindAddress: string, port: number): string[] {
  return ['iperf3', '-s', '-1', '-B', bindAddress, '-p', String(port)];
}

/** `-O 1` leaves TCP's slow start out of the figure; `bitrateMbps` paces the flow (default: as fast as it goes). */
export function iperfClientArgv(serverAddress: string, port: number, seconds: number, bitrateMbps?: number): string[] {
  const pace = bitrateMbps === undefined ? [] : ['-b', `${bitrateMbps}M`];
  return ['iperf3', '-c', serverAddress, '-p', String(port), '-t', String(seconds), '-O', '1', ...pace, '-J'];
}

/** Received throughput in Mbit/s from iperf3's JSON report. */
export function parseIperf(json: string): number {
  const report = JSON.parse(json) as { error?: string; end?: { sum_received?: { bits_per_second: number } } };
  if (report.error) throw new Error(`iperf3: ${report.error}`);
  const bps = report.end?.sum_received?.bits_per_second;
  if (bps === undefined) throw new Error('iperf3 reported no received throughput');
  return bps / 1e6;
}

async function waitForListener(exec: NodeExec, port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { stdout } = await exec.run(['ss', '-Hltn', `sport = :${port}`], { allowFailure: true });
    if (stdout.trim()) return;
    await sleep(50);
  }
  throw new Error(`iperf3 server on ${exec.where} did not listen on port ${port}`);
}

export async function measureThroughput(opts: {
  sender: NodeExec;
  receiver: NodeExec;
  receiverAddress: string;
  port: number;
  seconds: number;
  bitrateMbps?: number;
}): Promise<number> {
  const { sender, receiver, receiverAddress, port, seconds, bitrateMbps } = opts;
  const pid = await receiver.spawnDetached(iperfServerArgv(receiverAddress, port), '/dev/null');
  try {
    await waitForListener(receiver, port);
    const { stdout } = await sender.run(iperfClientArgv(receiverAddress, port, seconds, bitrateMbps), {
      allowFailure: true,
      timeoutMs: (seconds + 30) * 1000,
    });
    return parseIperf(stdout);
  } finally {
    // `-1` ends the server after one test; this covers a client that never connected.
    await receiver.run(['kill', String(pid)], { allowFailure: true });
  }
}
