// Which role a process counts as, and which interface carries a single link (no root needed).
import type { ProcessInfo } from '../../core/telemetry';
import { planFleet } from '../../infra/local/plan';
import type { FleetState } from '../../infra/local/state';
import { emulatorLinkBytes, localFleetClassifier } from '../../operations/telemetry/local-fleet';
import { smallTopology } from '../support/small-topology';

const plan = planFleet(smallTopology);

const state: FleetState = {
  status: 'up',
  builderPid: 1,
  createdAt: 0,
  topologyFile: 'telemetry.yaml',
  plan,
  namespaces: [],
  processes: [
    { kind: 'emulator', owner: 'wan', pid: 100, program: 'fb-wan' },
    { kind: 'wireguard', owner: 'fbalpha-0', pid: 101, program: 'wireguard-go' },
    { kind: 'tinc', owner: 'tinc-alpha', pid: 102, program: 'tincd' },
    // A WireGuard implementation the program rules do not know: only its recorded PID tells.
    { kind: 'wireguard', owner: 'fbbeta-3', pid: 103, program: 'boringtun' },
  ],
};

const WORKER = 4242;
const classify = localFleetClassifier(state, WORKER);
const proc = (pid: number, comm: string, argv: string[], namespace?: string): ProcessInfo => ({ pid, comm, argv, namespace });
const YCSB_ARGV = ['java', '-Xmx512m', '-cp', 'x.jar', 'fragbench.ycsb.Main', '-t', '-db', 'fragbench.ycsb.RedisClusterClient'];

describe('local fleet classifier', () => {
  it("the sampler's own process is the worker", () => {
    expect(classify(proc(WORKER, 'node', ['node', 'worker.js']))).toBe('worker');
  });

  it('recorded PIDs count as what the fleet started, while they still run that program', () => {
    expect(classify(proc(100, 'fb-wan', ['/x/fb-wan', '-config', 'c'], 'fb-wan'))).toBe('emulator');
    // Just after the start the recorded PID is still `chrt` about to exec: argv[0] is not yet the program.
    expect(classify(proc(102, 'tincd', ['tincd', '-D'], 'fb-alpha'))).toBe('tinc');
    expect(classify(proc(103, 'boringtun', ['boringtun', 'fbbeta-3'], 'fb-beta'))).toBe('wireguard');
    expect(classify(proc(999, 'boringtun', ['boringtun', 'fbbeta-3'], 'fb-beta'))).toBeUndefined();
    // A recycled PID running something else is not the fleet's.
    expect(classify(proc(101, 'bash', ['bash'], undefined))).toBeUndefined();
  });

  it('daemons the state does not list are still known by program', () => {
    expect(classify(proc(200, 'wireguard-go', ['wireguard-go', '-f', 'fbbeta-0'], 'fb-beta'))).toBe('wireguard');
    expect(classify(proc(201, 'temporal', ['/opt/temporal', 'server', 'start-dev']))).toBe('temporal');
  });

  it('YCSB by its main class, named after the node it runs on', () => {
    expect(classify(proc(300, 'java', YCSB_ARGV, 'fb-cl'))).toBe('ycsb:cl');
    expect(classify(proc(301, 'java', YCSB_ARGV))).toBe('ycsb:host');
  });

  it('a database server on a data node is db:<node>; on the client node, the WAN namespace or the host it is not', () => {
    expect(classify(proc(400, 'redis-server', ['redis-server', '198.19.100.1:6379'], 'fb-alpha'))).toBe('db:alpha');
    expect(classify(proc(401, 'java', ['java', 'org.apache.cassandra.service.CassandraDaemon'], 'fb-gamma'))).toBe('db:gamma');
    expect(classify(proc(402, 'redis-server', ['redis-server'], 'fb-cl'))).toBeUndefined();
    expect(classify(proc(403, 'redis-server', ['redis-server'], 'fb-wan'))).toBeUndefined();
    expect(classify(proc(404, 'redis-server', ['redis-server']))).toBeUndefined();
    expect(classify(proc(405, 'ping', ['ping', '198.19.100.2'], 'fb-alpha'))).toBeUndefined();
  });

  it("the adapter's own JVMs on a data node (nodetool, CQL, the ring watcher) are the worker's, not the database's", () => {
    const tool = (main: string[]) => proc(500, 'java', ['java', '-Xmx128m', '-cp', '/x/lib/*', ...main], 'fb-gamma');
    expect(classify(tool(['org.apache.cassandra.tools.NodeTool', '-h', '127.0.0.1', 'status']))).toBe('worker');
    expect(classify(tool(['Cql', '198.19.100.3', '9042']))).toBe('worker');
    expect(classify(tool(['RingWatch', '127.0.0.1', '7199', '1000']))).toBe('worker');
    // An argument merely ending like one is not: the whole argument is the main class.
    expect(classify(tool(['org.apache.cassandra.service.CassandraDaemon', '-Dx=/tmp/NotCql']))).toBe('db:gamma');
  });

  it('without a fleet state every fb- namespace may hold a database', () => {
    expect(localFleetClassifier(undefined, WORKER)(proc(402, 'redis-server', ['redis-server'], 'fb-cl'))).toBe('db:cl');
  });
});

describe('emulator link bytes', () => {
  it('reads each link from its a end: tx is a → b, rx is b → a', async () => {
    const direction = (bytes: number) => ({
      delayMs: 5,
      rateMbps: null,
      lossPercent: 0,
      packets: 1,
      bytes,
      queued: 0,
      drops: { cut: 0, loss: 0, queue: 0, foreign: 0, send: 0 },
    });
    const emulator = { stats: () => Promise.resolve([{ id: 'alpha-beta/0', cut: false, ab: direction(700), ba: direction(30) }]) };
    expect(await emulatorLinkBytes(emulator)()).toEqual({ 'alpha-beta/0': { txBytes: 700, rxBytes: 30 } });
  });
});
