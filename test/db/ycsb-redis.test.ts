/**
 * The YCSB runner against a real redis-server: both run inside a scratch namespace (its own
 * loopback), the client started through the same netns transport the local fleet uses. And a
 * phase's client (services/ycsb/phase-client.ts) whose JVM is killed mid-phase: seen at once,
 * restarted for the rest of the phase, the death recorded with its cause.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runHost } from '../../platform/command';
import { MockActivityEnvironment } from '@temporalio/testing';
import { runYcsb } from '../../services/ycsb/runner';
import { runPhaseClient } from '../../services/ycsb/phase-client';
import { ResultsStore } from '../../services/results/results-store';
import { checkPhase, problemsOf } from '../../core/verify-run';
import type { RecordedEvent } from '../../core/events';
import { signalPid } from '../../platform/pid';
import { runYcsbReporting, type LoadProgress } from '../../activities/ycsb-reporting';
import type { YcsbSettings } from '../../activities/contracts';
import type { ExecTarget } from '../../core/inventory';
import type { OpType, RunSeries, Sample } from '../../core/samples';
import { freePort, startRedis, type RedisProcess } from './ycsb-redis-server';

const NAMESPACE = 'fb-ty-client';
const target: ExecTarget = { transport: 'netns', namespace: NAMESPACE };
const JAR = path.resolve(__dirname, '../../ycsb/target/fragbench-ycsb.jar');

const base: YcsbSettings = {
  workload: 'a',
  recordCount: 2000,
  operationCount: 30_000,
  threads: 2,
  fieldCount: 10,
  fieldLength: 8,
  timeoutMs: 2000,
  retries: 0,
};

function redisBinding(redis: RedisProcess, settings: YcsbSettings) {
  return {
    dbClass: 'fragbench.ycsb.RedisClient',
    properties: {
      'redis.hosts': `127.0.0.1:${redis.port}`,
      'redis.cluster': 'false',
      'redis.timeoutMs': String(settings.timeoutMs),
      'redis.maxAttempts': String(settings.retries + 1),
    },
  };
}

async function namespacePids(): Promise<number[]> {
  const { stdout } = await runHost(['ip', 'netns', 'pids', NAMESPACE]);
  return stdout.split('\n').filter(Boolean).map(Number);
}

function expectOneSamplePerSecond(series: RunSeries): void {
  expect(series.samples.map((s) => s.elapsedS)).toEqual(series.samples.map((_, i) => i + 1));
  for (let i = 1; i < series.samples.length; i++) {
    expect(series.samples[i].time - series.samples[i - 1].time).toBe(1000);
  }
}

function expectTotalsMatchSummary(series: RunSeries): void {
  for (const [op, total] of Object.entries(series.totals.ops)) {
    const sum = series.samples.reduce(
      (t, s: Sample) => ({ ok: t.ok + (s.ops[op as OpType]?.ok ?? 0), failed: t.failed + (s.ops[op as OpType]?.failed ?? 0) }),
      { ok: 0, failed: 0 },
    );
    expect({ op, ...sum }).toEqual({ op, ok: total.ok, failed: total.failed });
  }
}

describe('YCSB against a real redis-server', () => {
  let redis: RedisProcess;

  beforeAll(async () => {
    if (!existsSync(JAR)) throw new Error(`${JAR} is missing: run bash scripts/build.d/ycsb.sh`);
    await runHost(['ip', 'netns', 'delete', NAMESPACE], { allowFailure: true });
    await runHost(['ip', 'netns', 'add', NAMESPACE]);
    await runHost(['ip', '-n', NAMESPACE, 'link', 'set', 'lo', 'up']);
  });

  beforeEach(async () => {
    redis = await startRedis({ port: await freePort(), namespace: NAMESPACE });
  });

  afterEach(async () => {
    await redis.stop();
  });

  afterAll(async () => {
    await runHost(['ip', 'netns', 'delete', NAMESPACE], { allowFailure: true });
  });

  it('loads, then runs workload A: one sample per second, totals equal to the summary', async () => {
    const loaded = await runYcsb({ target, phase: 'load', settings: base, binding: redisBinding(redis, base) });
    expect(loaded.totals.ops.INSERT).toMatchObject({ ok: base.recordCount, failed: 0 });
    expectTotalsMatchSummary(loaded);

    const settings = { ...base, target: 2000 };
    const heartbeats: Sample[] = [];
    const run = await runYcsb({ target, phase: 'run', settings, binding: redisBinding(redis, settings), onSample: (s) => heartbeats.push(s) });
    expectOneSamplePerSecond(run);
    expect(run.samples.length).toBeGreaterThanOrEqual(14);
    expectTotalsMatchSummary(run);
    expect(run.totals.ops.READ!.ok + run.totals.ops.UPDATE!.ok).toBe(settings.operationCount);
    expect(run.totals.ops.READ!.ok).toBeGreaterThan(0);
    expect(run.totals.ops.UPDATE!.ok).toBeGreaterThan(0);
    // Heartbeats came while it ran, about one per second, each the final series' second.
    expect(heartbeats.length).toBeGreaterThanOrEqual(run.samples.length - 3);
    for (const beat of heartbeats) {
      const final = run.samples[beat.elapsedS - 1];
      expect({ ...beat, time: 0 }).toEqual({ ...final, time: 0 });
    }
    // A heartbeat's time comes from the status lines seen so far, the least delayed of which sets
    // the clocks' offset, so it is later than the final one by up to their delivery delay: a few
    // ms alone, 101 ms beside CI's other lanes (local CI of 6c3e9c4). Under half a second the
    // second it stands for, asserted above, cannot change.
    const worstMs = Math.max(...heartbeats.map((beat) => Math.abs(beat.time - run.samples[beat.elapsedS - 1].time)));
    expect(worstMs).toBeLessThan(500);
  }, 90_000);

  it('keeps running when redis dies: failed operations in the samples, and it still returns', async () => {
    const settings: YcsbSettings = { ...base, operationCount: 0, maxSeconds: 8, target: 1000, timeoutMs: 300 };
    await runYcsb({ target, phase: 'load', settings, binding: redisBinding(redis, settings) });
    // Killed once two seconds have been served, however slowly the client started.
    let killedAfterS: number | undefined;
    const onSample = (s: Sample) => {
      if (killedAfterS !== undefined || s.elapsedS < 2 || s.okPerS === 0) return;
      killedAfterS = s.elapsedS;
      redis.signal('SIGKILL');
    };
    const run = await runYcsb({ target, phase: 'run', settings, binding: redisBinding(redis, settings), onSample });
    expectOneSamplePerSecond(run);
    expectTotalsMatchSummary(run);
    expect(killedAfterS).toBeDefined();
    // The seconds up to the kill served. A failure among them is an operation over its 300 ms
    // timeout (the CI of 6b78bf9 had one in the JVM's first second under stage 1's load), so the
    // claim is made from the kill, not from the first failure; and one of them may hold nothing
    // when the host starves the JVM for a second (CI of f6ea233, a stage 1 at ~2 cores busy), so
    // the claim is on the most of them, the last one included.
    const beforeKill = run.samples.filter((s) => s.elapsedS <= killedAfterS!);
    expect(beforeKill.filter((s) => s.okPerS > 0).length).toBeGreaterThanOrEqual(beforeKill.length - 1);
    expect(beforeKill.at(-1)!.okPerS).toBeGreaterThan(0);
    // A live sample is the second before the newest status line's, so the kill falls in the second
    // after the next (it may hold successes before it). After that nothing succeeds and the seconds
    // keep coming to the end; one of them may hold no operation at all (CI's last second once did,
    // beside stage 1's load), so their failures are summed.
    const afterKill = run.samples.filter((s) => s.elapsedS > killedAfterS! + 2);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(afterKill.every((s) => s.okPerS === 0)).toBe(true);
    expect(afterKill.reduce((sum, s) => sum + (s.ops.READ?.failed ?? 0) + (s.ops.UPDATE?.failed ?? 0), 0)).toBeGreaterThan(0);
  }, 90_000);

  it('stops the client when aborted and rejects with the reason', async () => {
    const settings: YcsbSettings = { ...base, operationCount: 0, maxSeconds: 60, target: 500 };
    await runYcsb({ target, phase: 'load', settings, binding: redisBinding(redis, settings) });
    const controller = new AbortController();
    const started = Date.now();
    const running = runYcsb({
      target,
      phase: 'run',
      settings,
      binding: redisBinding(redis, settings),
      signal: controller.signal,
      onSample: (s) => s.elapsedS >= 2 && controller.abort(new Error('cancelled by the test')),
    });
    await expect(running).rejects.toThrow('cancelled by the test');
    expect(Date.now() - started).toBeLessThan(20_000);
    // Only redis is left in the namespace: the client is gone.
    expect(await namespacePids()).toEqual([redis.pid]);
  }, 90_000);

  it('as an activity: heartbeats every second, and cancelling stops the client', async () => {
    const settings: YcsbSettings = { ...base, operationCount: 0, maxSeconds: 60, target: 500 };
    await runYcsb({ target, phase: 'load', settings, binding: redisBinding(redis, settings) });
    const env = new MockActivityEnvironment();
    const beats: LoadProgress[] = [];
    env.on('heartbeat', (details: LoadProgress) => {
      beats.push(structuredClone(details));
      if (details.latest && details.latest.elapsedS >= 3) env.cancel();
    });
    const running = env.run(runYcsbReporting, { target, phase: 'run' as const, settings, binding: redisBinding(redis, settings) }, 'cell-1');
    await expect(running).rejects.toThrow();
    expect(beats.some((b) => b.latest === null)).toBe(true); // while the client was connecting
    const withSamples = beats.filter((b) => b.latest !== null);
    expect(withSamples.length).toBeGreaterThanOrEqual(3);
    expect(withSamples.every((b) => b.phase === 'run' && b.label === 'cell-1')).toBe(true);
    expect(withSamples[withSamples.length - 1].latest!.okPerS).toBeGreaterThan(0);
    expect(await namespacePids()).toEqual([redis.pid]);
  }, 90_000);

  it('a phase whose JVM is SIGKILLed: the death is seen within 2 s, recorded with its cause, and a new client runs the rest', async () => {
    const settings: YcsbSettings = { ...base, operationCount: 1_000_000, target: 500 };
    await runYcsb({ target, phase: 'load', settings, binding: redisBinding(redis, settings) });
    const dir = mkdtempSync(path.join(tmpdir(), 'fb-client-death-'));
    try {
      const store = new ResultsStore(dir);
      const sink = { runId: 'r', cellId: 'c', phaseIndex: 0 };
      const originMs = Date.now();
      const untilMs = originMs + 14_000;
      let killedAt: number | undefined;
      // Per client process: when the phase client asked for it, and when its first second arrived.
      type Client = { spawnedAt: number; firstSampleAt?: number };
      const clients: Client[] = [];
      const result = await runPhaseClient(
        { settings, label: 'run', sink, originMs, untilMs },
        {
          store,
          attempt: 1,
          run: ({ settings: left, onSample, signal }) => {
            const client: Client = { spawnedAt: Date.now() };
            clients.push(client);
            return runYcsb({
              target,
              phase: 'run',
              settings: left,
              binding: redisBinding(redis, left),
              signal,
              onSample: (sample) => {
                client.firstSampleAt ??= Date.now();
                onSample?.(sample);
                // Once, four seconds into the phase: the only process in the namespace besides redis is the JVM.
                if (killedAt !== undefined || sample.time - originMs < 4_000) return;
                killedAt = Date.now();
                void namespacePids().then((pids) => pids.filter((pid) => pid !== redis.pid).forEach((pid) => signalPid(pid, 'SIGKILL')));
              },
            });
          },
        },
      );
      expect(killedAt).toBeDefined();
      expect(result.restarts).toHaveLength(1);
      const [restart] = result.restarts;
      expect(restart).toMatchObject({ kind: 'client-restart', label: 'run client restarted (signal SIGKILL)' });
      expect(restart.detail).toMatchObject({ cause: 'signal SIGKILL', signal: 'SIGKILL', exitCode: 137, attempt: 1 });
      const { detectedAt, restartedAt, lastStoredElapsedS, withoutClientS } = restart.detail as Record<string, number>;
      expect(detectedAt - killedAt!).toBeLessThanOrEqual(2_000);
      expect(restartedAt).toBeGreaterThanOrEqual(detectedAt);
      // The engine's bound on samples lost to a client restart (bench:faults, scenario-engine): a new
      // JVM's start under stage 1's load took 3.04 s once in CI.
      expect(withoutClientS).toBeLessThanOrEqual(5);
      // Stored as it happened, beside the samples.
      expect(await store.readStream<RecordedEvent>('r', 'c', 0, 'faults')).toEqual(result.restarts);

      const samples = await store.readSampleStream('r', 'c', 0);
      const seconds = samples.map((s) => s.elapsedS);
      const after = seconds.filter((s) => s > lastStoredElapsedS);
      // The hole is the restart's and nothing else: the time the phase went without a process, then
      // the new JVM's own start-up (from the phase client asking for it to its first second), and a
      // second for rounding; every second after it is kept. How long a JVM takes to start is the
      // host's (the first client's start bounded it until one CI run, under stage 1's changing load,
      // took 8 s against the first's 2): bench:faults judges that speed; here only a hung start fails.
      expect(clients).toHaveLength(2);
      const [, replacement] = clients;
      const startupS = (replacement.firstSampleAt! - replacement.spawnedAt) / 1000;
      const holeS = after[0] - lastStoredElapsedS - 1;
      console.log(`restart: ${withoutClientS.toFixed(1)} s without a process, the new JVM's start ${startupS.toFixed(1)} s, hole ${holeS} s`);
      expect(startupS).toBeLessThanOrEqual(20);
      expect(holeS).toBeLessThanOrEqual(Math.ceil(withoutClientS + startupS) + 1);
      expect(after).toEqual(Array.from({ length: after.length }, (_, i) => after[0] + i));
      expect(after.at(-1)!).toBeGreaterThanOrEqual(11);
      // The new client serves: every second once it is up, but for at most one the host starved it
      // through (CI of f6ea233, a stage 1 at ~2 cores busy, had one such second).
      const served = samples.filter((s) => s.elapsedS > lastStoredElapsedS + 4);
      expect(served.filter((s) => s.okPerS > 0).length).toBeGreaterThanOrEqual(served.length - 1);
      // The gap is the recorded restart's: a verified run has no unexplained hole.
      const check = checkPhase('c', 'run', samples, result.restarts);
      expect(check.gaps.every((g) => g.explainedBy)).toBe(true);
      expect(problemsOf(check)).toEqual([]);
      // Only redis is left: the replacement client ended with the phase.
      expect(await namespacePids()).toEqual([redis.pid]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
