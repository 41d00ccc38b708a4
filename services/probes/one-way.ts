/**
 * One-way delay, loss and reordering between two nodes of the local fleet, over the overlay. Each
 * node is a namespace of this host, and network namespaces share the host's monotonic clock, so a
 * datagram stamped with CLOCK_MONOTONIC when sent and read again when received gives its one-way
 * delay exactly (no clock sync): the measure an asymmetric link needs, which ping (a round trip)
 * cannot give. Sender and receiver are short node scripts run in the two namespaces.
 */
import { netnsArgv, runHost, startCommand } from '../../platform/command';
import { waitFor } from '../../platform/wait';

/** Prints `<seq> <sent, monotonic ns> <one-way ms>` per datagram; exits on `end` or after `idleMs` without one. */
const RECEIVER = `
const s = require('dgram').createSocket('udp4');
const [address, port, idleMs] = process.argv.slice(1);
let timer;
const arm = () => { clearTimeout(timer); timer = setTimeout(() => process.exit(0), Number(idleMs)); };
s.on('message', (m) => {
  const now = process.hrtime.bigint();
  const [seq, sent] = m.toString().split(' ');
  if (seq === 'end') process.exit(0);
  process.stdout.write(seq + ' ' + sent + ' ' + (Number(now - BigInt(sent)) / 1e6).toFixed(3) + '\\n');
  arm();
});
s.bind(Number(port), address, () => { process.stdout.write('ready\\n'); arm(); });
`;

/** Sends `count` stamped datagrams `intervalMs` apart, then `end` once the last can have arrived. */
const SENDER = `
const s = require('dgram').createSocket('udp4');
const [address, port, count, intervalMs, drainMs] = process.argv.slice(1).map((v, i) => (i === 0 ? v : Number(v)));
const start = process.hrtime.bigint();
let i = 0;
const tick = () => {
  if (i < count) {
    s.send(i + ' ' + process.hrtime.bigint(), port, address);
    i++;
    // Paced against the start, so timer lateness does not stretch the run.
    const next = Number(start / 1000000n) + i * intervalMs - Number(process.hrtime.bigint() / 1000000n);
    setTimeout(tick, Math.max(0, next));
  } else setTimeout(() => s.send('end 0', port, address, () => s.close()), drainMs);
};
tick();
`;

export interface OneWayResult {
  sent: number;
  /** One-way delays in ms, in arrival order. */
  delaysMs: number[];
  /** When each of them was sent, on the host's monotonic clock (process.hrtime), ms. */
  sentAtMs: number[];
  lossPercent: number;
  /** Datagrams that arrived after one sent later than them. */
  reordered: number;
  /** The sequence numbers (0 .. sent-1) that arrived, in arrival order: the others were lost. */
  received: number[];
}

export interface OneWayOptions {
  /** The receiver's overlay address and a free UDP port on it. */
  address: string;
  port: number;
  count: number;
  intervalMs: number;
  /** How long the slowest datagram may take, ms (the receiver waits this long after the last one). */
  maxDelayMs?: number;
}

export function parseOneWay(stdout: string, sent: number): OneWayResult {
  const rows = [...stdout.matchAll(/^(\d+) (\d+) ([\d.]+)$/gm)].map((m) => ({
    seq: Number(m[1]),
    sentAtMs: Number(BigInt(m[2]) / 1000n) / 1000,
    ms: Number(m[3]),
  }));
  let highest = -1;
  let reordered = 0;
  for (const { seq } of rows) {
    if (seq < highest) reordered++;
    highest = Math.max(highest, seq);
  }
  return {
    sent,
    delaysMs: rows.map((r) => r.ms),
    sentAtMs: rows.map((r) => r.sentAtMs),
    lossPercent: sent === 0 ? 0 : (100 * (sent - rows.length)) / sent,
    reordered,
    received: rows.map((r) => r.seq),
  };
}

/** Measures from namespace `from` to namespace `to` (both of this host). */
export async function oneWay(fromNamespace: string, toNamespace: string, options: OneWayOptions): Promise<OneWayResult> {
  const drainMs = (options.maxDelayMs ?? 2000) + 500;
  const receiver = startCommand(
    netnsArgv(toNamespace, [process.execPath, '-e', RECEIVER, options.address, String(options.port), String(drainMs + 2000)]),
    {
      input: '',
      diesWithCaller: true,
    },
  );
  try {
    await waitFor(() => receiver.stdout().startsWith('ready'), { what: `the one-way receiver in ${toNamespace}`, timeoutMs: 10_000 });
    const runMs = options.count * options.intervalMs + drainMs;
    await runHost(
      netnsArgv(fromNamespace, [
        process.execPath,
        '-e',
        SENDER,
        options.address,
        String(options.port),
        String(options.count),
        String(options.intervalMs),
        String(drainMs),
      ]),
      { timeoutMs: runMs + 10_000 },
      fromNamespace,
    );
    await receiver.exited;
    return parseOneWay(receiver.stdout(), options.count);
  } finally {
    receiver.kill('SIGKILL');
  }
}
