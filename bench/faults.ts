/**
 * The chaos benchmark: scenarios/faults.yaml (ten minutes of steady load on Redis Cluster, fhc-4)
 * runs through `fragbench dev` as a user runs it, while this kills, with SIGKILL at seeded times,
 * each of the tool's own parts: the WAN emulator, a tincd, a WireGuard daemon, a Redis server, the
 * YCSB JVM, the worker and the Temporal dev server. It prints, per part: kills, how many the tool
 * detected, detection and recovery times, seconds of samples lost, when the load was back; then
 * whether the run completed with a report that verifies, whether any private key is found outside
 * its file, whether the restarted emulator's control socket is still root's alone, and whether the
 * host is clean. Its own state root, results directory, task queue and dev server port: nothing of a
 * user's is touched, and it refuses to start beside a fleet.
 *
 *   npm run bench:faults [-- --short] [--seed N] [--kills N] [--keep]   (--keep: leave its state and results)
 */
import { BENCH_RESULTS_DIR, BENCH_STATE_DIR } from './faults-state';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { startRun } from '../cli/run';
import type { RecordedEvent } from '../core/events';
import { seededRandom } from '../core/seeded-random';
import { FLEET_DIR, fleetPaths, readState } from '../infra/local/state';
import { keyScanPlaces, localFleetKeys } from '../operations/fleet/fleet-keys';
import { keyScanProblems, scanForPrivateKeys, type FleetPrivateKey } from '../operations/fleet/secret-scan';
import { listNamespaces, markedNamespaces } from '../infra/local/namespaces';
import { namespaceOf, WAN_NAMESPACE } from '../infra/local/plan';
import { statePaths } from '../platform/paths';
import { identify, isSameProcessAlive, signalPid, type ProcessIdentity } from '../platform/pid';
import { readPidFile } from '../platform/process';
import { sleep, waitFor } from '../platform/wait';
import { verifyStoredRun } from '../report/verify';
import { ResultsStore } from '../services/results/results-store';
import { connectClient, temporalSettings } from '../worker/connection';
import { answers, DEV_SERVER, stopDevServer } from '../worker/dev-server';
import type { DevFault } from '../worker/dev-supervisor';
import { progressQuery, type RunProgress, type RunSummary } from '../workflows/definitions';
import { flag, option, SHORT } from './args';
import { judgeKills, type Kill, type KillOutcome } from './faults/judge';
import { PARTS, planKills } from './faults/schedule';
import { findTarget, workerPid } from './faults/targets';
import { runBenchmark, Targets } from './targets';

const SCENARIO = path.resolve(__dirname, '../scenarios/faults.yaml');
const DATABASE_NODES = ['sydney', 'pune', 'singapore', 'seoul'];
/** Short: the 600 s phase at 11 % of its length (66 s), each part killed once, about 6 s apart. */
const TIME_SCALE = SHORT ? 0.11 : 1;
const KILLS_PER_PART = option('kills', SHORT ? 1 : 2);
const SEED = option('seed', 1);
/** No kill in the phase's first and last seconds: the first give the load a level to come back to. */
const QUIET_START_S = SHORT ? 10 : 40;
const QUIET_END_S = SHORT ? 10 : 40;
const TARGETS = { detectS: 2, lostS: 5 };
/** `fragbench dev`'s output, the worker's included: searched for keys too. */
const DEV_LOG = path.join(BENCH_STATE_DIR, 'dev.log');

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

async function refuseIfBusy(): Promise<void> {
  if (await answers(DEV_SERVER.ip, DEV_SERVER.port)) {
    throw new Error(
      `a Temporal server answers on ${DEV_SERVER.ip}:${DEV_SERVER.port}; this benchmark starts and kills a dev server of its own on that port: stop what serves there first`,
    );
  }
  const ours = new Set([...DATABASE_NODES.map(namespaceOf), WAN_NAMESPACE, namespaceOf('client')]);
  const taken = (await listNamespaces()).filter((n) => ours.has(n));
  if (taken.length > 0) throw new Error(`a local fleet is up (${taken.join(', ')}); bring it down first (fragbench fleet down)`);
}

function startDev(): ChildProcess {
  const out = openSync(DEV_LOG, 'a');
  return spawn(process.execPath, [path.resolve(__dirname, '../bin/fragbench.js'), 'dev'], { stdio: ['ignore', out, out], env: process.env });
}

/** The run's progress, or undefined while the server is away (it is being killed too). */
async function progressOf(handle: WorkflowHandle): Promise<RunProgress | undefined> {
  return (await handle.query(progressQuery).catch(() => undefined)) as RunProgress | undefined;
}

/** The run's end; a server restarting meanwhile is waited out, a failed run is an answer. */
async function resultOf(handle: WorkflowHandle): Promise<{ summary?: RunSummary; failure?: string }> {
  for (;;) {
    try {
      return { summary: (await handle.result()) as RunSummary };
    } catch (err) {
      if (err instanceof WorkflowFailedError) return { failure: err.cause?.message ?? err.message };
      await sleep(1000);
    }
  }
}

/** Waits for the emulator's replacement, then checks its control socket is root's alone. */
async function emulatorSocketPrivate(killedPid: number): Promise<string> {
  const replaced = await waitFor(
    () => {
      const emulator = readState()?.processes.find((p) => p.kind === 'emulator');
      return emulator && emulator.pid !== killedPid ? true : undefined;
    },
    { what: 'the emulator to be restarted', timeoutMs: 30_000, intervalMs: 200 },
  ).catch(() => false);
  if (!replaced) return 'no replacement emulator within 30 s';
  const socket = statSync(fleetPaths.emulatorSocket);
  const dir = statSync(path.dirname(fleetPaths.emulatorSocket));
  const rootOnly = (s: { uid: number; mode: number }) => s.uid === 0 && (s.mode & 0o077) === 0;
  return rootOnly(socket) || rootOnly(dir)
    ? 'root only'
    : `socket mode ${(socket.mode & 0o777).toString(8)}, directory ${(dir.mode & 0o777).toString(8)}`;
}

interface Gathered {
  kills: Kill[];
  keys: FleetPrivateKey[];
  /** The key scan while the fleet was still up, after the last kill: logs, state, results so far, the Temporal store. */
  keysWhileUp: string[];
  socketChecks: string[];
  originMs: number;
  /** The run phase's planned length: its client's seconds end there. */
  durationS: number;
  /** The killed processes and the fleet's daemons after the last kill (a PID alone may be another's by the end). */
  fleetProcesses: ProcessIdentity[];
}

/** Waits for the run phase, then kills each planned part at its time. */
async function killOnSchedule(handle: WorkflowHandle): Promise<Gathered> {
  const progress = await waitFor(
    async () => {
      const p = await progressOf(handle);
      if (p?.status === 'finished') throw new Error('the run finished before its run phase started');
      return p?.cell?.step === 'run' && p.cell.phaseStartedAt && p.cell.phaseDurationS ? p.cell : undefined;
    },
    { what: 'the run phase to start', timeoutMs: 10 * 60_000, intervalMs: 1000 },
  );
  const originMs = progress.phaseStartedAt!;
  const durationS = progress.phaseDurationS!;
  const plan = planKills({ seed: SEED, kills: KILLS_PER_PART, fromS: QUIET_START_S, toS: durationS - QUIET_END_S });
  log(`run phase started (${durationS} s); ${plan.length} kills planned at ${plan.map((k) => `${k.atS} s ${k.part}`).join(', ')}`);
  const keys = localFleetKeys();
  const random = seededRandom(SEED + 1);
  const kills: Kill[] = [];
  const killedProcesses: ProcessIdentity[] = [];
  const socketChecks: string[] = [];
  for (const planned of plan) {
    await sleep(Math.max(0, originMs + planned.atS * 1000 - Date.now()));
    // A part still coming back from an earlier kill is waited for, briefly.
    const target = await waitFor(() => findTarget(planned.part, DATABASE_NODES, random), {
      what: `a running ${planned.part}`,
      timeoutMs: 15_000,
      intervalMs: 250,
    }).catch(() => undefined);
    if (!target) {
      log(`${planned.part}: none running at ${planned.atS} s; not killed`);
      continue;
    }
    killedProcesses.push(...identities([target.pid]));
    const at = Date.now();
    signalPid(target.pid, 'SIGKILL');
    kills.push({ part: planned.part, pid: target.pid, owner: target.owner, at });
    log(`killed ${planned.part} (pid ${target.pid}${target.owner ? `, ${target.owner}` : ''}) at ${((at - originMs) / 1000).toFixed(1)} s`);
    if (planned.part === 'emulator') socketChecks.push(await emulatorSocketPrivate(target.pid));
  }
  // The fleet's daemons as they are now (replacements included): each must be gone at the end.
  const fleetProcesses = [...killedProcesses, ...identities(readState()?.processes.map((p) => p.pid) ?? [])];
  const keysWhileUp = await keyProblems(keys, [...keyScanPlaces(BENCH_RESULTS_DIR), DEV_LOG], true);
  return { kills, keys, keysWhileUp, socketChecks, originMs, durationS, fleetProcesses };
}

/** The processes at these PIDs now; a PID with none is left out (gone is what the end checks for). */
function identities(pids: readonly number[]): ProcessIdentity[] {
  return pids.flatMap((pid) => identify(pid) ?? []);
}

function readDevFaults(): DevFault[] {
  const file = statePaths.devSupervision('faults.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DevFault);
}

/**
 * The key scan's problems: `places` searched for the fleet's private keys. Once the fleet is down
 * its key files are gone by design, so only while it is up are their modes judged.
 */
async function keyProblems(keys: FleetPrivateKey[], places: string[], fleetUp: boolean): Promise<string[]> {
  const scan = await scanForPrivateKeys(keys, places);
  if (!fleetUp) scan.badModes = scan.badModes.filter((b) => b.mode !== 'missing');
  return keyScanProblems(scan);
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1));
const worst = (xs: (number | undefined)[]) => {
  const known = xs.filter((x): x is number => x !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
};

function printTable(outcomes: KillOutcome[]): void {
  console.log('\npart             kills  detected  detect s (max)  back s (max)  samples lost s (max)  load back s (max)');
  for (const part of PARTS) {
    const mine = outcomes.filter((o) => o.kill.part === part);
    const detected = mine.filter((o) => o.detectedS !== undefined).length;
    console.log(
      `${part.padEnd(16)} ${String(mine.length).padStart(5)}  ${String(detected).padStart(8)}  ${fmt(worst(mine.map((o) => o.detectedS))).padStart(14)}  ${fmt(worst(mine.map((o) => o.backS))).padStart(12)}  ${String(worst(mine.map((o) => o.missingSeconds.length)) ?? '-').padStart(20)}  ${fmt(worst(mine.map((o) => o.loadBackS))).padStart(17)}`,
    );
  }
  console.log('\neach kill:');
  for (const o of outcomes) {
    console.log(
      `  ${o.kill.part} pid ${o.kill.pid}${o.kill.owner ? ` (${o.kill.owner})` : ''}: detected ${fmt(o.detectedS)} s, back ${fmt(o.backS)} s, ${o.missingSeconds.length} s of samples missing${o.missingSeconds.length ? ` (${o.missingSeconds.join(', ')} of the phase, killed at ${fmt(o.killedAtS)} s)` : ''}, load back ${fmt(o.loadBackS)} s; ${o.seenAs ?? 'NOT DETECTED'}`,
    );
  }
}

async function main(): Promise<void> {
  await refuseIfBusy();
  // This fleet's namespaces only (prefix and marker): another fleet's, beside it in CI, are not its leftovers.
  const namespacesBefore = await markedNamespaces();
  log(`bench:faults${SHORT ? ' --short' : ''}: seed ${SEED}, ${KILLS_PER_PART} kill(s) per part, state ${BENCH_STATE_DIR}`);
  const dev = startDev();
  const targets = new Targets();
  let client: Client | undefined;
  // Each process this run saw, as it was when seen: on a busy host (pid_max 32768) a killed
  // process's PID can belong to another lane's process by the end (seen once in CI).
  const seen: ProcessIdentity[] = [];
  try {
    await waitFor(() => (workerPid() !== undefined && readPidFile(statePaths.temporalDev('pid')) !== undefined ? true : undefined), {
      what: 'fragbench dev to start its server and worker',
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    const settings = temporalSettings();
    client = await connectClient(settings);
    const handle = await startRun(client, settings, SCENARIO, { timeScale: TIME_SCALE });
    const gathered = await killOnSchedule(handle);
    seen.push(...gathered.fleetProcesses);
    log('all kills sent; waiting for the run to end');
    const { summary, failure } = await resultOf(handle);
    // Seconds are missing only up to the phase's planned end: the run's report and teardown after
    // it have no client (taking the run's end counted them against the last kill: 7-12 s "lost"
    // after a kill whose hole was 1 s).
    const phaseEndMs = gathered.originMs + gathered.durationS * 1000;
    const status = summary?.status ?? failure ?? 'unknown';
    targets.holds('the run under the kills', status, 'completed', summary?.status === 'completed');

    const store = new ResultsStore(BENCH_RESULTS_DIR);
    const runId = summary?.runId ?? handle.workflowId;
    const run = await store.readRun(runId);
    const [cell] = await store.readCells(run);
    const phase = cell?.phases.find((p) => p.name === 'run');
    const events: RecordedEvent[] = phase?.events ?? [];
    const devFaults = readDevFaults();
    seen.push(...identities(devFaults.flatMap((f) => (f.newPid ? [f.newPid] : []))));
    const outcomes = judgeKills(gathered.kills, phase?.samples ?? [], events, devFaults, gathered.originMs, phaseEndMs);
    printTable(outcomes);

    const failedRestarts = events.filter((e) => e.detail.restartFailed !== undefined);
    for (const e of failedRestarts)
      console.log(`restart failed: ${e.label} at ${e.scheduledOffsetS.toFixed(1)} s: ${String(e.detail.restartFailed).split('\n')[0]}`);
    targets.holds('restarts that failed before one held', String(failedRestarts.length), '0', failedRestarts.length === 0);
    const planned = PARTS.length * KILLS_PER_PART;
    targets.count(
      'parts killed as planned',
      PARTS.filter((part) => outcomes.filter((o) => o.kill.part === part).length >= KILLS_PER_PART).length,
      PARTS.length,
    );
    const undetected = outcomes.filter((o) => o.detectedS === undefined);
    targets.count(
      `kills detected${undetected.length ? ` (not: ${undetected.map((o) => o.kill.part).join(', ')})` : ''}`,
      outcomes.length - undetected.length,
      planned,
    );
    const slow = outcomes.filter((o) => (o.detectedS ?? 0) > TARGETS.detectS);
    const lossy = outcomes.filter((o) => o.missingSeconds.length > TARGETS.lostS);
    targets.count(
      `kills detected within ${TARGETS.detectS} s${slow.length ? ` (late: ${slow.map((o) => `${o.kill.part} ${fmt(o.detectedS)} s`).join(', ')})` : ''}`,
      outcomes.length - slow.length,
      outcomes.length,
    );
    targets.count(
      `kills with at most ${TARGETS.lostS} s of samples lost${lossy.length ? ` (over: ${lossy.map((o) => `${o.kill.part} ${o.missingSeconds.length} s`).join(', ')})` : ''}`,
      outcomes.length - lossy.length,
      outcomes.length,
    );

    const verification = await verifyStoredRun(store, runId);
    const problemsFound = verification.problems.length === 0 ? 'none' : verification.problems.join('; ');
    targets.holds(`results verify ${runId}`, problemsFound, 'none', verification.problems.length === 0);
    const reportPath = summary?.reportPath;
    const reportOk = reportPath !== undefined && existsSync(reportPath);
    targets.holds('report written', reportOk ? reportPath : 'missing', 'a report', reportOk);
    const sockets = gathered.socketChecks.join(', ') || 'no emulator kill';
    targets.holds(
      'emulator control socket after restart',
      sockets,
      'root only',
      gathered.socketChecks.every((c) => c === 'root only'),
    );
    const keysAfter = await keyProblems(gathered.keys, [...keyScanPlaces(BENCH_RESULTS_DIR).filter((place) => place !== FLEET_DIR), DEV_LOG], false);
    const keyIssues = [...gathered.keysWhileUp, ...keysAfter];
    // With no key read the scan checks nothing: that is a miss, not a pass.
    targets.atLeast('fleet private keys read for the scan', gathered.keys.length, 1, '', { digits: 0 });
    targets.holds(
      'private keys outside their 0600 files, after the kills and after the run',
      keyIssues.length === 0 ? 'none' : keyIssues.join('; '),
      'none',
      keyIssues.length === 0,
    );
  } finally {
    await client?.connection.close().catch(() => undefined);
    const worker = workerPid();
    if (worker) seen.push(...identities([worker]));
    const exited = new Promise((resolve) => (dev.exitCode === null ? dev.once('exit', resolve) : resolve(undefined)));
    dev.kill('SIGTERM');
    await exited;
    const server = readPidFile(statePaths.temporalDev('pid'));
    if (server) seen.push(...identities([server]));
    await stopDevServer();
  }
  const leftNamespaces = (await markedNamespaces()).filter((n) => !namespacesBefore.includes(n));
  const leftPids = [...new Set(seen.filter(isSameProcessAlive).map((p) => p.pid))];
  const left = [...leftNamespaces.map((n) => `namespace ${n}`), ...leftPids.map((pid) => `pid ${pid}`)];
  targets.holds('left on the host after the run', left.length === 0 ? 'nothing' : left.join(', '), 'nothing', left.length === 0);
  if (!flag('keep')) for (const dir of [BENCH_STATE_DIR, BENCH_RESULTS_DIR]) rmSync(dir, { recursive: true, force: true });
  targets.finish();
}

runBenchmark('faults', main);
