import type { Sample } from '../../core/samples';
import type { TelemetrySample } from '../../core/telemetry';
import { cellVerdict, phaseVerdict, withRunPhaseVerdicts, worstVerdict, type PhaseEvidence, type RttProbe } from '../../core/verdict';

const T0 = 1_795_000_000_000;

/** n seconds of telemetry from T0+1 s; `at(i)` overrides second i (0-based). */
function telemetry(n: number, at: (i: number) => Partial<TelemetrySample> & { roles?: Record<string, number> } = () => ({})): TelemetrySample[] {
  return Array.from({ length: n }, (_, i) => {
    const over = at(i);
    return {
      time: T0 + (i + 1) * 1000,
      intervalMs: 1000,
      hostBusyPercent: 40,
      hostIdlePercent: 60,
      cores: 2,
      memUsedMb: 3000,
      memAvailableMb: 21000,
      roleMaxPercent: 200,
      interfaces: {},
      links: {},
      ...over,
      roles: { 'db:sydney': 60, 'ycsb:client': 30, emulator: 5, wireguard: 10, tinc: 4, worker: 1, temporal: 2, other: 8, ...over.roles },
    };
  });
}

/** n seconds of load at `okPerS`, on the telemetry's seconds. */
function samples(n: number, okPerS = 1000, from = 0): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    time: T0 + (from + i + 1) * 1000,
    elapsedS: i + 1,
    ops: { READ: { ok: okPerS, failed: 0, latencyUs: { avg: 500, p95: 900, p99: 1500 } } },
    okPerS,
    failedPerS: 0,
  }));
}

/** One probe a second, on the load's seconds. */
function probes(configuredMs: number, measured: number[]): RttProbe[] {
  return measured.map((measuredMs, i) => ({ time: T0 + (i + 1) * 1000, from: 'client', to: 'sydney', measuredMs, configuredMs }));
}

const evidence = (e: Partial<PhaseEvidence>): PhaseEvidence => ({
  telemetry: telemetry(100),
  probes: probes(10, [10.5, 10.8, 9.6]),
  samples: samples(100),
  ...e,
});

describe('phase verdict', () => {
  it('ok when the host has room, no tool role is pinned and RTTs match', () => {
    const v = phaseVerdict(evidence({}));
    expect(v.verdict).toBe('ok');
    expect(v.reasons).toEqual([]);
    expect(v.unchecked).toEqual([]);
    expect(v.figures).toMatchObject({
      telemetrySeconds: 100,
      loadSeconds: 100,
      probes: 3,
      okOps: 100_000,
      hostBusySharePercent: 0,
      probesOffPercent: 0,
    });
    expect(v.figures.hostBusyMedianPercent).toBe(40);
    expect(v.figures.roleMedianPercent.wireguard).toBe(10);
  });

  it('host-bound: the network stack together at a full core (the local fleet pins it to one CPU), though no one daemon is', () => {
    const stackFull = telemetry(100, (i) => (i < 20 ? { roles: { emulator: 40, wireguard: 30, tinc: 27 } } : {}));
    const v = phaseVerdict(evidence({ telemetry: stackFull }));
    expect(v.verdict).toBe('host-bound');
    expect(v.reasons).toEqual([
      {
        verdict: 'host-bound',
        figure: 20,
        threshold: 10,
        text: 'network stack (emulator + wireguard + tinc) ≥ 95 % of one core in 20 % of seconds (threshold 10 %)',
      },
    ]);
    const justBelow = telemetry(100, (i) => (i < 20 ? { roles: { emulator: 40, wireguard: 30, tinc: 24 } } : {}));
    expect(phaseVerdict(evidence({ telemetry: justBelow })).verdict).toBe('ok');
  });

  it('host-bound: host ≥ 90 % busy in ≥ 10 % of seconds, with the share as its figure', () => {
    const v = phaseVerdict(evidence({ telemetry: telemetry(100, (i) => (i < 34 ? { hostBusyPercent: 95, hostIdlePercent: 5 } : {})) }));
    expect(v.verdict).toBe('host-bound');
    expect(v.reasons).toEqual([{ verdict: 'host-bound', figure: 34, threshold: 10, text: 'host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)' }]);
  });

  it('just under the share is ok; exactly at it is host-bound', () => {
    const busy = (k: number) => telemetry(100, (i) => (i < k ? { hostBusyPercent: 90 } : {}));
    expect(phaseVerdict(evidence({ telemetry: busy(9) })).verdict).toBe('ok');
    expect(phaseVerdict(evidence({ telemetry: busy(10) })).verdict).toBe('host-bound');
  });

  it('host-bound: a tool role (not the database) pinned at a full core; the database pinned is fine', () => {
    const pinned = (role: string) => telemetry(50, (i) => (i % 4 === 0 ? { roles: { [role]: 99 } } : {}));
    const v = phaseVerdict(evidence({ telemetry: pinned('emulator'), samples: samples(50) }));
    expect(v.verdict).toBe('host-bound');
    expect(v.reasons).toHaveLength(1);
    expect(v.reasons[0]).toMatchObject({ figure: 26, text: 'emulator ≥ 95 % of one core in 26 % of seconds (threshold 10 %)' });
    expect(phaseVerdict(evidence({ telemetry: pinned('other'), samples: samples(50) })).verdict).toBe('host-bound');
    expect(phaseVerdict(evidence({ telemetry: pinned('db:sydney'), samples: samples(50) })).verdict).toBe('ok');
  });

  it('client-bound: a YCSB client pinned at a full core in ≥ 10 % of seconds', () => {
    const v = phaseVerdict(evidence({ telemetry: telemetry(100, (i) => (i >= 80 ? { roles: { 'ycsb:client': 120 } } : {})) }));
    expect(v.verdict).toBe('client-bound');
    expect(v.reasons).toEqual([
      { verdict: 'client-bound', figure: 20, threshold: 10, text: 'ycsb:client ≥ 95 % of one core in 20 % of seconds (threshold 10 %)' },
    ]);
  });

  it('network-off: more than 10 % of probes outside max(1 ms, 5 %) of their configured RTT', () => {
    // 100 ms configured: tolerance 5 ms. 2 of 10 off (20 %).
    const v = phaseVerdict(evidence({ probes: probes(100, [101, 104.9, 99, 98, 100, 102, 103, 106, 93, 100]) }));
    expect(v.verdict).toBe('network-off');
    expect(v.reasons[0]).toMatchObject({ verdict: 'network-off', figure: 20, threshold: 10 });
    expect(v.reasons[0].text).toMatch(/in 20 % of 10 probes \(threshold 10 %; median error 2 ms\)/);
    // 10 ms configured: 5 % is 0.5 ms, so the 1 ms floor applies: 10.9 passes, 11.1 does not.
    expect(phaseVerdict(evidence({ probes: probes(10, [10.9, 9.1, 10.9, 9.2]) })).verdict).toBe('ok');
    expect(phaseVerdict(evidence({ probes: probes(10, [11.1, 9.1, 10.9, 9.2]) })).verdict).toBe('network-off');
  });

  it('one probe off in ten is within the allowed share', () => {
    expect(phaseVerdict(evidence({ probes: probes(10, [20, 10, 10, 10, 10, 10, 10, 10, 10, 10]) })).verdict).toBe('ok');
  });

  it('several reasons: all listed, the verdict is the most serious', () => {
    const v = phaseVerdict(
      evidence({
        telemetry: telemetry(100, (i) => (i < 20 ? { hostBusyPercent: 99, roles: { 'ycsb:client': 100, wireguard: 97 } } : {})),
        probes: probes(10, [30, 30]),
      }),
    );
    expect(v.verdict).toBe('host-bound');
    expect(v.reasons.map((r) => r.verdict).sort()).toEqual(['client-bound', 'host-bound', 'host-bound', 'network-off']);
    expect(worstVerdict(['network-off', 'client-bound'])).toBe('client-bound');
    expect(worstVerdict([])).toBe('ok');
  });

  it("judges only the telemetry inside the load samples' span (a JVM starting before its first status line is not judged)", () => {
    // 10 pinned seconds before the load starts, then 50 quiet seconds under load.
    const v = phaseVerdict(
      evidence({ telemetry: telemetry(60, (i) => (i < 10 ? { roles: { 'ycsb:client': 100 } } : {})), samples: samples(50, 1000, 10) }),
    );
    expect(v.figures.telemetrySeconds).toBe(50);
    expect(v.verdict).toBe('ok');
  });

  it("leaves out the seconds before the client's first operation: status lines of no operations while its JVM starts", () => {
    // Status lines from t=1, the first operation at t=4; the JVM pins a core up to then (recorded as `other` or the client).
    const starting = samples(20, 100).map((s, i) => (i < 3 ? { ...s, ops: {}, okPerS: 0 } : s));
    const v = phaseVerdict(
      evidence({
        telemetry: telemetry(20, (i) => (i < 3 ? { hostBusyPercent: 95, roles: { other: 130, 'ycsb:client': 100 } } : {})),
        samples: starting,
      }),
    );
    expect(v.figures.telemetrySeconds).toBe(17);
    expect(v.verdict).toBe('ok');
    // Probes sent while it started are left out with them: 3 of 10 off there would be network-off.
    const startProbes = phaseVerdict(evidence({ probes: probes(10, [30, 30, 30, 10, 10, 10, 10, 10, 10, 10]), samples: starting }));
    expect(startProbes.figures.probes).toBe(7);
    expect(startProbes.verdict).toBe('ok');
    // The same seconds later in the phase (a stall of the client after it started) are judged.
    const stalled = samples(20, 100).map((s, i) => (i >= 10 && i < 13 ? { ...s, ops: {}, okPerS: 0 } : s));
    const w = phaseVerdict(
      evidence({ telemetry: telemetry(20, (i) => (i >= 10 && i < 13 ? { hostBusyPercent: 95, roles: { other: 130 } } : {})), samples: stalled }),
    );
    expect(w.figures.telemetrySeconds).toBe(20);
    expect(w.verdict).toBe('host-bound');
    // A phase that never completed an operation is judged whole.
    const none = samples(5, 0);
    expect(phaseVerdict(evidence({ telemetry: telemetry(5), samples: none })).figures.telemetrySeconds).toBe(5);
  });

  it('no telemetry: host and client unchecked, not ok by evidence', () => {
    const v = phaseVerdict(evidence({ telemetry: [] }));
    expect(v.verdict).toBe('ok');
    expect(v.unchecked).toEqual(['host', 'client']);
    expect(v.figures).toMatchObject({ telemetrySeconds: 0, hostBusyMedianPercent: null, hostBusySharePercent: null });
    expect(v.figures.cpuUsPerOp.emulator).toBeNull();
  });

  it('no probes: network unchecked; no load samples: all telemetry judged, no CPU per op', () => {
    const v = phaseVerdict({ telemetry: telemetry(5), probes: [], samples: [] });
    expect(v.unchecked).toEqual(['network']);
    expect(v.figures).toMatchObject({ probes: 0, probesOffPercent: null, probeMedianErrorMs: null, telemetrySeconds: 5, okOps: 0 });
    expect(Object.values(v.figures.cpuUsPerOp)).toEqual([null, null, null, null, null, null]);
  });

  it('a short phase: one pinned second of three is a third of the phase', () => {
    const v = phaseVerdict(evidence({ telemetry: telemetry(3, (i) => (i === 1 ? { hostBusyPercent: 100 } : {})), samples: samples(3) }));
    expect(v.verdict).toBe('host-bound');
    expect(v.reasons[0].figure).toBe(33.3);
  });

  it('tool CPU per operation by layer: role CPU-seconds over ok operations, in µs', () => {
    // 100 s at 1000 ok/s = 100 000 ops. wireguard 10 % of a core for 100 s = 10 CPU-s → 100 µs/op.
    const v = phaseVerdict(evidence({}));
    expect(v.figures.cpuUsPerOp).toEqual({ emulator: 50, wireguard: 100, tinc: 40, ycsb: 300, worker: 10, temporal: 20 });
    // A longer interval (a late tick) counts for its length.
    const late = phaseVerdict(evidence({ telemetry: telemetry(100, (i) => (i === 0 ? { intervalMs: 11_000 } : {})) }));
    expect(late.figures.cpuUsPerOp.wireguard).toBe(110);
  });
});

describe('cell verdict', () => {
  const ok = phaseVerdict({ ...evidence({}), phase: 'run' });
  const clientBound = phaseVerdict({ ...evidence({ telemetry: telemetry(100, () => ({ roles: { 'ycsb:client': 100 } })) }), phase: 'run-2' });
  const hostBoundWarmup = phaseVerdict({
    ...evidence({ telemetry: telemetry(100, () => ({ hostBusyPercent: 100 })) }),
    phase: 'warm-up',
    warmup: true,
  });

  it('is the worst of the measured phases, with each reason tagged by its phase', () => {
    const cell = cellVerdict([ok, clientBound]);
    expect(cell.verdict).toBe('client-bound');
    expect(cell.measuredPhases).toBe(2);
    expect(cell.reasons).toEqual([expect.objectContaining({ verdict: 'client-bound', figure: 100, phase: 'run-2' })]);
  });

  it('leaves warm-up phases out', () => {
    expect(hostBoundWarmup.verdict).toBe('host-bound');
    expect(hostBoundWarmup.warmup).toBe(true);
    const cell = cellVerdict([hostBoundWarmup, ok]);
    expect(cell).toEqual({ verdict: 'ok', reasons: [], unchecked: [], measuredPhases: 1 });
  });

  it('with no measured phase says nothing was checked', () => {
    expect(cellVerdict([hostBoundWarmup])).toEqual({ verdict: 'ok', reasons: [], unchecked: ['host', 'client', 'network'], measuredPhases: 0 });
    expect(cellVerdict([]).measuredPhases).toBe(0);
  });

  it("a ramped client's phase carries its run phase's verdict, counted once", () => {
    const [run, client, other] = withRunPhaseVerdicts([{ name: 'run-2', verdict: clientBound }, { name: 'run-2:c2' }, { name: 'run:c3' }]);
    expect(run.verdict).toBe(clientBound);
    expect(client.verdict).toEqual({ ...clientBound, phase: 'run-2:c2', inheritedFrom: 'run-2' });
    // A client phase whose run phase was not judged stays unjudged.
    expect(other.verdict).toBeUndefined();
    const cell = cellVerdict([ok, run.verdict!, client.verdict!]);
    expect(cell.measuredPhases).toBe(2);
    expect(cell.reasons).toHaveLength(1);
  });
});
