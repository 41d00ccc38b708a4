import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ProcessClassifier, TelemetrySample } from '../../core/telemetry';
import { TelemetrySampler } from '../../operations/telemetry/sampler';

const BUSY_ROLE = 'ycsb:busy';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child that spins one core until killed (by its PID). */
function spinner(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
}

function kill(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
}

/** Time on a CPU in ns from the scheduler's own account (/proc/<pid>/schedstat), not the tick counts the sampler reads. */
function onCpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
}

describe('telemetry sampler on this host', () => {
  let child: ChildProcess | undefined;
  afterEach(() => kill(child));

  it('shows a spinning child under the role the classifier gave it, at the CPU the scheduler gave it', async () => {
    const busy = spinner();
    child = busy;
    const classify: ProcessClassifier = (p) => (p.pid === busy.pid ? BUSY_ROLE : p.pid === process.pid ? 'worker' : undefined);
    const sampler = new TelemetrySampler({ classify });
    await sleep(100); // past node's start-up, so the child spins for the whole interval
    await sampler.begin();
    const [ns0, t0, own0] = [onCpuNs(busy.pid!), performance.now(), process.cpuUsage()];
    await sleep(1000);
    const sample = await sampler.sample();
    const [ns1, t1, own] = [onCpuNs(busy.pid!), performance.now(), process.cpuUsage(own0)];
    const scheduled = (100 * (ns1 - ns0)) / 1e6 / (t1 - t0);
    const ownPercent = (100 * (own.user + own.system)) / 1e3 / (t1 - t0);

    expect(sampler.classified()).toEqual({ [BUSY_ROLE]: 1, worker: 1 });
    // About one core when the host is quiet; on this shared 2-core host whatever the scheduler gave it.
    expect(Math.abs(sample.roles[BUSY_ROLE] - scheduled)).toBeLessThan(10);
    expect(sample.roles[BUSY_ROLE]).toBeGreaterThan(40);
    expect(sample.roles[BUSY_ROLE]).toBeLessThanOrEqual(105);
    // This process, as its own account says: the jest runner beside the test does other work in
    // some seconds (31 % of a core was seen), so its share is compared, not bounded.
    expect(Math.abs(sample.roles.worker - ownPercent)).toBeLessThan(10);
    expect(Object.keys(sample.roles).sort()).toEqual(['other', BUSY_ROLE, 'worker'].sort());
    // The host was at least as busy as the spinner alone.
    expect(sample.hostBusyPercent).toBeGreaterThanOrEqual((sample.roles[BUSY_ROLE] / sample.cores) * 0.95);
    expect(sample.hostBusyPercent + sample.hostIdlePercent).toBeCloseTo(100, 0);
    expect(sample.roleMaxPercent).toBe(sample.cores * 100);
    expect(sample.memAvailableMb).toBeGreaterThan(0);
    expect(sample.memUsedMb).toBeGreaterThan(0);
    expect(Object.keys(sample.interfaces).some((k) => k.startsWith('host/'))).toBe(true);
    expect(Object.keys(sample.interfaces)).not.toContain('host/lo');
  });

  it('started, samples once a second on the wall-clock second until stopped', async () => {
    const sampler = new TelemetrySampler({ classify: (p) => (p.pid === process.pid ? 'worker' : undefined) });
    const samples: TelemetrySample[] = [];
    await new Promise<void>((resolve, reject) => {
      sampler
        .start((s) => {
          samples.push(s);
          if (samples.length === 2) resolve();
        })
        .catch(reject);
    });
    sampler.stop();
    expect(samples.map((s) => s.time % 1000)).toEqual([0, 0]);
    expect(samples[1].time - samples[0].time).toBe(1000);
    // A tick on a loaded shared host may run a little late; never by half a second.
    expect(samples[1].intervalMs).toBeGreaterThan(750);
    expect(samples[1].intervalMs).toBeLessThan(1250);
    expect(samples[1].roles.worker).toBeDefined();
    await sleep(1100);
    expect(samples).toHaveLength(2);
  });

  it('drops a process that ended: its role disappears from the next sample', async () => {
    const busy = spinner();
    child = busy;
    const sampler = new TelemetrySampler({ classify: (p) => (p.pid === busy.pid ? BUSY_ROLE : undefined) });
    await sleep(100);
    await sampler.begin();
    await sleep(300);
    expect((await sampler.sample()).roles[BUSY_ROLE]).toBeGreaterThan(20);
    kill(busy);
    await new Promise((resolve) => busy.once('exit', resolve));
    expect((await sampler.sample()).roles[BUSY_ROLE]).toBeUndefined();
    expect(sampler.classified()).toEqual({});
  });

  it('a process that becomes a classified program (exec) counts from the scan that sees it, not from its start', async () => {
    // Starts as sh (seen unclassified at the first reading), execs into a spinner; sampled every 300 ms.
    const shell = spawn('sh', ['-c', `sleep 0.1; exec ${process.execPath} -e 'for(;;){}'`], { stdio: 'ignore' });
    child = shell;
    const classify: ProcessClassifier = (p) => (p.pid === shell.pid && p.comm === 'node' ? BUSY_ROLE : undefined);
    const sampler = new TelemetrySampler({ classify, scanEverySeconds: 60 });
    await sampler.begin();
    const busy: (number | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      await sleep(300);
      busy.push((await sampler.sample()).roles[BUSY_ROLE]);
    }
    // Its unclassified CPU sets off a scan in the first 300 ms, which takes its baseline then: the
    // CPU it used as the same process before is not its (it started before the last reading).
    // Counted from its start, the second reading would hold its first 200 ms too: ~167 %. /proc counts
    // CPU in 10 ms ticks, 3.3 % of a 300 ms reading each (CI saw 105.1 % against a bound of 105).
    expect(busy[0]).toBeLessThan(10);
    expect(busy[1]).toBeGreaterThan(20);
    expect(busy[1]).toBeLessThanOrEqual(115);
    expect(busy[2]).toBeGreaterThan(20);
  });

  it('a process started between scans is found in the second its unclassified CPU shows, and counted whole there', async () => {
    // Scans every 60 s: only the scan that unclassified CPU sets off can find it.
    const sampler = new TelemetrySampler({
      classify: (p) => (p.pid === child?.pid ? BUSY_ROLE : p.pid === process.pid ? 'worker' : undefined),
      scanEverySeconds: 60,
    });
    await sampler.begin();
    await sleep(500);
    expect((await sampler.sample()).roles[BUSY_ROLE]).toBeUndefined();
    child = spinner();
    await sleep(1000);
    const ranMs = onCpuNs(child.pid!) / 1e6;
    const first = await sampler.sample();
    // All it ran, since its start inside this second, under its role: about a core. Had the scan
    // missed it, or counted it from the scan, the rest would be in `other`; these two catch both.
    // `other` itself is not judged: it is the whole rest of the host, and beside CI's benchmark
    // lane it read 24.8 % and, another time, a core more than the reading before (a benchmark's
    // process starting; local CIs of 6c3e9c4 and 7b157d4), where alone it reads 0-4 %.
    expect(first.roles[BUSY_ROLE]).toBeGreaterThan(40);
    expect(Math.abs(first.roles[BUSY_ROLE] - (100 * ranMs) / first.intervalMs)).toBeLessThan(15);
  });

  it('a process started since the last reading and found by a due scan counts from its start, not from the scan', async () => {
    const sampler = new TelemetrySampler({ classify: (p) => (p.pid === child?.pid ? BUSY_ROLE : undefined), scanEverySeconds: 1 });
    await sampler.begin();
    await sleep(100);
    child = spinner();
    await sleep(1000);
    const ranMs = onCpuNs(child.pid!) / 1e6;
    const sample = await sampler.sample();
    // Everything it ran since its start, all of it inside this interval.
    expect(sample.roles[BUSY_ROLE]).toBeGreaterThan(40);
    expect(Math.abs(sample.roles[BUSY_ROLE] - (100 * ranMs) / sample.intervalMs)).toBeLessThan(15);
  });

  it("per-link bytes from the back end's counters; a second they fail leaves links empty and is reported", async () => {
    let total = 0;
    let failing = false;
    const errors: string[] = [];
    const sampler = new TelemetrySampler({
      classify: () => undefined,
      linkBytes: () => {
        if (failing) return Promise.reject(new Error('emulator control socket: no answer'));
        total += 1000;
        return Promise.resolve({ 'a-b/0': { rxBytes: total / 2, txBytes: total } });
      },
      onError: (err) => errors.push(err.message),
    });
    await sampler.begin();
    expect((await sampler.sample()).links).toEqual({ 'a-b/0': { rxBytes: 500, txBytes: 1000 } });
    failing = true;
    expect((await sampler.sample()).links).toEqual({});
    expect(errors).toEqual(['emulator control socket: no answer']);
    failing = false;
    // The second after a gap has nothing to subtract from: empty again, then deltas resume.
    expect((await sampler.sample()).links).toEqual({});
    expect((await sampler.sample()).links).toEqual({ 'a-b/0': { rxBytes: 500, txBytes: 1000 } });
  });

  it('refuses to sample before its first reading', async () => {
    await expect(new TelemetrySampler().sample()).rejects.toThrow(/begin/);
  });

  it('by default counts itself as the worker and nothing else by node', async () => {
    const sampler = new TelemetrySampler();
    await sampler.begin();
    expect(sampler.classified().worker).toBe(1);
    expect(Object.keys(sampler.classified()).filter((r) => r.startsWith('db:'))).toEqual([]);
  });
});
