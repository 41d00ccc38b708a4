/**
 * The validity verdict: did the tool stay out of the way while a phase was measured? A pure
 * judge over the phase's evidence (host telemetry, RTT probes, load samples), separate from what
 * recorded it, like Jepsen's checker. A figure that is not `ok` is shown flagged, never dropped.
 *
 * Rules (thresholds in VERDICT_THRESHOLDS), each over the telemetry seconds and RTT probes from the
 * client's first operation to its last sample (its JVM and driver starting, which print status
 * lines of no operations for a second or three while they pin a core, are the tool's set-up, not
 * the load):
 * - host-bound: the host's CPU (all cores) is ≥ 90 % busy in ≥ 10 % of the seconds; or a role
 *   other than a database or a YCSB client (emulator, wireguard, tinc, temporal, worker, other)
 *   uses ≥ 95 % of one core in ≥ 10 % of the seconds; or the network stack (emulator, wireguard
 *   and tinc together, which the local fleet pins to one CPU) does. A share of seconds rather than the median:
 *   a tenth of a phase starved is enough to bend its throughput curve, and a median would hide it.
 * - client-bound: a YCSB client role uses ≥ 95 % of one core in ≥ 10 % of the seconds (the
 *   client's threads compete for a core, so the load it offers is what the client could do, not
 *   what the database could take). Only the client's own CPU counts; a busy host is host-bound.
 * - network-off: more than 10 % of the RTT probes miss their configured RTT by more than
 *   max(1 ms, 5 %). A share of probes rather than the median error: a link that is right half the
 *   time is still not the network the scenario describes. A probe with no reply is no RTT and is
 *   not passed here (loss is an event's business, e.g. a cut).
 * Severity: host-bound > client-bound > network-off > ok. Causes rank above symptoms: a starved
 * host also delays the emulator (network-off) and the client, so when both hold the host is the
 * finding; a saturated client caps the load but leaves the network as configured.
 */
import { sumOps, type Sample } from './samples';
import { isDbRole, isYcsbRole, type TelemetrySample } from './telemetry';
import { runPhaseOf } from './scenario';

export type Verdict = 'ok' | 'host-bound' | 'client-bound' | 'network-off';

/** Least serious first. */
export const VERDICT_SEVERITY: readonly Verdict[] = ['ok', 'network-off', 'client-bound', 'host-bound'];

export const VERDICT_THRESHOLDS = {
  hostBusyPercent: 90,
  /** % of one core at which a role counts as pinned to a full core. */
  pinnedPercentOfCore: 95,
  /** % of the judged seconds the host or a role may spend at the levels above. */
  shareOfSecondsPercent: 10,
  rttToleranceMs: 1,
  rttTolerancePercent: 5,
  /** % of probes that may miss their configured RTT (strictly more flags the phase). */
  probesOffPercent: 10,
};
export type VerdictThresholds = typeof VERDICT_THRESHOLDS;

/** One in-run RTT measurement between two nodes. */
export interface RttProbe {
  /** Epoch ms, on the samples' clock. */
  time: number;
  from: string;
  to: string;
  /** null when no reply came within the probe's timeout (loss is an event's business, e.g. a cut). */
  measuredMs: number | null;
  /** The RTT the link was configured for at that time (after any latency scaling). */
  configuredMs: number;
}

export interface VerdictReason {
  verdict: Exclude<Verdict, 'ok'>;
  /** The figure that crossed the threshold, in the threshold's unit (here always %). */
  figure: number;
  threshold: number;
  /** e.g. "host CPU ≥ 90 % in 34 % of seconds (threshold 10 %)". */
  text: string;
}

/** The local fleet's network daemons, which share one CPU (infra/local/network-cpus.ts). */
const NETWORK_STACK_ROLES: readonly string[] = ['emulator', 'wireguard', 'tinc'];

/** The tool's own layers, for CPU per database operation. */
export type ToolLayer = 'emulator' | 'wireguard' | 'tinc' | 'ycsb' | 'worker' | 'temporal';
const TOOL_LAYERS: readonly ToolLayer[] = ['emulator', 'wireguard', 'tinc', 'ycsb', 'worker', 'temporal'];

export interface PhaseFigures {
  /** Telemetry seconds judged. */
  telemetrySeconds: number;
  /** Load samples (seconds) in the phase. */
  loadSeconds: number;
  probes: number;
  /** Successful database operations in the phase (Sample.okPerS summed). */
  okOps: number;
  /** Median host busy %; null without telemetry. */
  hostBusyMedianPercent: number | null;
  /** % of judged seconds with the host ≥ hostBusyPercent busy; null without telemetry. */
  hostBusySharePercent: number | null;
  /** Per role: median CPU, % of one core. */
  roleMedianPercent: Record<string, number>;
  /** Per role: % of judged seconds at ≥ pinnedPercentOfCore of one core. */
  rolePinnedSharePercent: Record<string, number>;
  /** % of probes outside tolerance; null without probes. */
  probesOffPercent: number | null;
  /** Median |measured − configured| RTT, ms; null without probes. */
  probeMedianErrorMs: number | null;
  /** µs of CPU each tool layer spent per successful operation; null without ops or telemetry. */
  cpuUsPerOp: Record<ToolLayer, number | null>;
}

export interface PhaseEvidence {
  /** Name shown in a cell's reasons, e.g. `run` or the phase's index. */
  phase?: string;
  /** A warm-up phase is judged but does not count toward the cell's verdict. */
  warmup?: boolean;
  telemetry: TelemetrySample[];
  probes: RttProbe[];
  samples: Sample[];
}

export interface PhaseVerdict {
  phase?: string;
  warmup: boolean;
  verdict: Verdict;
  reasons: VerdictReason[];
  /** Checks that had no evidence to judge (`host`, `client`, `network`): `ok` does not vouch for them. */
  unchecked: string[];
  figures: PhaseFigures;
  /** Copied from the run phase this phase ran inside (a ramped client's): counted there, not again. */
  inheritedFrom?: string;
}

/**
 * A ramped client's phase (`ramp:c2`) ran inside its run phase (`ramp`), on the same host in the
 * same seconds, and has no telemetry of its own: it carries that phase's verdict, marked as copied.
 */
export function withRunPhaseVerdicts<P extends { name: string; verdict?: PhaseVerdict }>(phases: P[]): P[] {
  return phases.map((phase) => {
    const runPhase = runPhaseOf(phase.name);
    const parent = runPhase === undefined || phase.verdict ? undefined : phases.find((p) => p.name === runPhase)?.verdict;
    return parent ? { ...phase, verdict: { ...parent, phase: phase.name, inheritedFrom: runPhase } } : phase;
  });
}

export function worstVerdict(verdicts: Verdict[]): Verdict {
  return verdicts.reduce<Verdict>((worst, v) => (VERDICT_SEVERITY.indexOf(v) > VERDICT_SEVERITY.indexOf(worst) ? v : worst), 'ok');
}

export function phaseVerdict(evidence: PhaseEvidence, t: VerdictThresholds = VERDICT_THRESHOLDS): PhaseVerdict {
  const span = judgedSpan(evidence.samples);
  const telemetry = evidence.telemetry.filter(within(span));
  const reasons: VerdictReason[] = [];
  const unchecked: string[] = [];
  const share = (pred: (s: TelemetrySample) => boolean) => percent(telemetry.filter(pred).length, telemetry.length);

  const hostBusyShare = telemetry.length ? share((s) => s.hostBusyPercent >= t.hostBusyPercent) : null;
  const roles = [...new Set(telemetry.flatMap((s) => Object.keys(s.roles)))].sort();
  const roleMedianPercent: Record<string, number> = {};
  const rolePinnedSharePercent: Record<string, number> = {};
  for (const role of roles) {
    roleMedianPercent[role] = round1(median(telemetry.map((s) => s.roles[role] ?? 0)) ?? 0);
    rolePinnedSharePercent[role] = share((s) => (s.roles[role] ?? 0) >= t.pinnedPercentOfCore);
  }

  if (telemetry.length === 0) unchecked.push('host', 'client');
  if (hostBusyShare !== null && hostBusyShare >= t.shareOfSecondsPercent) {
    reasons.push(secondsReason('host-bound', `host CPU ≥ ${t.hostBusyPercent} %`, hostBusyShare, t));
  }
  const stackShare = share((s) => NETWORK_STACK_ROLES.reduce((sum, role) => sum + (s.roles[role] ?? 0), 0) >= t.pinnedPercentOfCore);
  // One daemon at a full core is named by the rule below, which is the more precise finding.
  const oneDaemonPinned = NETWORK_STACK_ROLES.some((role) => (rolePinnedSharePercent[role] ?? 0) >= t.shareOfSecondsPercent);
  if (!oneDaemonPinned && stackShare >= t.shareOfSecondsPercent) {
    reasons.push(
      secondsReason('host-bound', `network stack (${NETWORK_STACK_ROLES.join(' + ')}) ≥ ${t.pinnedPercentOfCore} % of one core`, stackShare, t),
    );
  }
  for (const role of roles) {
    const pinned = rolePinnedSharePercent[role];
    if (isDbRole(role) || pinned < t.shareOfSecondsPercent) continue;
    const verdict = isYcsbRole(role) ? 'client-bound' : 'host-bound';
    reasons.push(secondsReason(verdict, `${role} ≥ ${t.pinnedPercentOfCore} % of one core`, pinned, t));
  }

  const answered = evidence.probes.filter(within(span)).filter((p): p is RttProbe & { measuredMs: number } => p.measuredMs !== null);
  const errors = answered.map((p) => Math.abs(p.measuredMs - p.configuredMs));
  const off = answered.filter((p, i) => errors[i] > Math.max(t.rttToleranceMs, (p.configuredMs * t.rttTolerancePercent) / 100)).length;
  const probesOffPercent = answered.length ? percent(off, answered.length) : null;
  const probeMedianErrorMs = median(errors);
  if (probesOffPercent === null) unchecked.push('network');
  else if (probesOffPercent > t.probesOffPercent) {
    reasons.push({
      verdict: 'network-off',
      figure: probesOffPercent,
      threshold: t.probesOffPercent,
      text:
        `RTT off by more than max(${t.rttToleranceMs} ms, ${t.rttTolerancePercent} %) in ${probesOffPercent} % of ` +
        `${answered.length} probes (threshold ${t.probesOffPercent} %; median error ${roundOrNull(probeMedianErrorMs)} ms)`,
    });
  }

  const okOps = sumOps(evidence.samples).ok;
  return {
    ...(evidence.phase !== undefined ? { phase: evidence.phase } : {}),
    warmup: evidence.warmup ?? false,
    verdict: worstVerdict(reasons.map((r) => r.verdict)),
    reasons,
    unchecked,
    figures: {
      telemetrySeconds: telemetry.length,
      loadSeconds: evidence.samples.length,
      probes: answered.length,
      okOps,
      hostBusyMedianPercent: roundOrNull(median(telemetry.map((s) => s.hostBusyPercent))),
      hostBusySharePercent: hostBusyShare,
      roleMedianPercent,
      rolePinnedSharePercent,
      probesOffPercent,
      probeMedianErrorMs: roundOrNull(probeMedianErrorMs),
      cpuUsPerOp: cpuPerOp(telemetry, okOps),
    },
  };
}

export interface CellVerdict {
  verdict: Verdict;
  /** Every reason of every measured phase, with the phase it came from. */
  reasons: (VerdictReason & { phase?: string })[];
  /** Checks some measured phase could not make. */
  unchecked: string[];
  measuredPhases: number;
}

/** The worst verdict of the measured phases; warm-up phases are left out (a JIT warming up is expected). */
export function cellVerdict(phases: PhaseVerdict[]): CellVerdict {
  const measured = phases.filter((p) => !p.warmup && p.inheritedFrom === undefined);
  return {
    verdict: worstVerdict(measured.map((p) => p.verdict)),
    reasons: measured.flatMap((p) => p.reasons.map((r) => ({ ...r, ...(p.phase !== undefined ? { phase: p.phase } : {}) }))),
    unchecked: [...new Set(measured.length ? measured.flatMap((p) => p.unchecked) : ['host', 'client', 'network'])],
    measuredPhases: measured.length,
  };
}

/**
 * The span judged: the load samples' seconds (a sample's time ends the second it covers), from
 * the first sample with an operation: the samples before it are the client still starting (a real
 * run's first: 3 s at 101-132 % of a core, 0 operations). A phase with no operation at all is
 * judged whole; one with no samples, all of it.
 */
function judgedSpan(samples: Sample[]): { first: number; last: number } {
  if (samples.length === 0) return { first: -Infinity, last: Infinity };
  const started = samples.findIndex((s) => s.okPerS + s.failedPerS > 0);
  const span = started < 0 ? samples : samples.slice(started);
  return { first: Math.min(...span.map((s) => s.time)), last: Math.max(...span.map((s) => s.time)) };
}

const within = (span: { first: number; last: number }) => (x: { time: number }) => x.time >= span.first && x.time <= span.last;

/** Role CPU-seconds over the phase / ok operations, in µs. */
function cpuPerOp(telemetry: TelemetrySample[], okOps: number): Record<ToolLayer, number | null> {
  const cpuSeconds = (layer: ToolLayer) =>
    telemetry.reduce((sum, s) => {
      const pct = Object.entries(s.roles)
        .filter(([role]) => (layer === 'ycsb' ? isYcsbRole(role) : role === layer))
        .reduce((a, [, v]) => a + v, 0);
      return sum + (pct / 100) * (s.intervalMs / 1000);
    }, 0);
  const perOp = (layer: ToolLayer) => (okOps > 0 && telemetry.length > 0 ? round1((cpuSeconds(layer) * 1e6) / okOps) : null);
  return Object.fromEntries(TOOL_LAYERS.map((layer) => [layer, perOp(layer)])) as Record<ToolLayer, number | null>;
}

function secondsReason(verdict: VerdictReason['verdict'], what: string, figure: number, t: VerdictThresholds): VerdictReason {
  return {
    verdict,
    figure,
    threshold: t.shareOfSecondsPercent,
    text: `${what} in ${figure} % of seconds (threshold ${t.shareOfSecondsPercent} %)`,
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const roundOrNull = (x: number | null) => (x === null ? null : round1(x));
const percent = (part: number, whole: number) => (whole === 0 ? 0 : round1((100 * part) / whole));
