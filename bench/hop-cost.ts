/**
 * What one userspace hop costs on this machine: the CPU a process spends to take a datagram in and
 * send it on, with a timer wake-up between (as every daemon of the local fleet's data path does).
 * Measured on fb-wan itself, relaying on loopback: a datagram from A crosses one link with a 1 ms
 * delay to B, B echoes it back over the same link, and fb-wan's CPU time (/proc/<pid>/stat, its
 * own process alone) is divided by the datagrams it relayed. A figure in hops travels between
 * machines where one in µs does not: the same code measured 230 and 629 µs per operation on two.
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../infra/local/emulator-client';
import { networkCpus } from '../infra/local/network-cpus';
import { readPidStat } from '../platform/pid';
import { USER_HZ } from '../platform/proc';
import { sleep } from '../platform/wait';

const A = { address: '127.77.40.100', port: 41_001 };
const B = { address: '127.77.40.200', port: 41_002 };
const RELAY = { address: '127.77.40.1', a: 41_101, b: 41_102 };

function bound(at: { address: string; port: number }): Promise<Socket> {
  const socket = createSocket('udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(at.port, at.address, () => resolve(socket));
  });
}

/** fb-wan's CPU µs per relayed datagram, `ratePerS` datagrams a second from A for `seconds`. */
export async function hopCostUs(ratePerS: number, seconds: number): Promise<{ usPerHop: number; relayed: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fb-hop-'));
  const config = join(dir, 'relay.json');
  const direction = { delayMs: 1, rateMbps: null, lossPercent: 0 };
  writeFileSync(
    config,
    JSON.stringify({
      links: [
        {
          id: 'hop',
          a: { listen: `${RELAY.address}:${RELAY.a}`, peer: `${A.address}:${A.port}` },
          b: { listen: `${RELAY.address}:${RELAY.b}`, peer: `${B.address}:${B.port}` },
          ab: direction,
          ba: direction,
        },
      ],
    }),
  );
  // Placed as a small fleet's daemons are (network-cpus.ts).
  const relay = await startEmulator({
    configPath: config,
    controlPath: join(dir, 'control.sock'),
    logPath: join(dir, 'relay.log'),
    cpus: networkCpus(1),
  });
  const [a, b] = await Promise.all([bound(A), bound(B)]);
  try {
    let relayed = 0;
    b.on('message', (m) => {
      relayed++;
      b.send(m, RELAY.b, RELAY.address);
    });
    a.on('message', () => relayed++);
    const payload = Buffer.alloc(200);
    const cpu = () => {
      const stat = readPidStat(relay.pid);
      if (!stat) throw new Error('the relay died while its hop cost was measured');
      return ((stat.utime + stat.stime) / USER_HZ) * 1e6;
    };
    const before = cpu();
    const started = Date.now();
    const count = Math.round(ratePerS * seconds);
    for (let i = 0; i < count; i++) {
      // An absolute schedule, so that a late wake-up does not lower the rate.
      const due = started + (i * 1000) / ratePerS;
      if (due > Date.now()) await sleep(due - Date.now());
      a.send(payload, RELAY.a, RELAY.address);
    }
    await sleep(200); // the last echoes back
    const used = cpu() - before;
    if (relayed === 0) throw new Error('no datagram came through the relay while its hop cost was measured');
    return { usPerHop: used / relayed, relayed };
  } finally {
    a.close();
    b.close();
    await relay.process.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
