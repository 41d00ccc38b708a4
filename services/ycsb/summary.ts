/**
 * Parses YCSB's final summary as the text exporter prints it on stdout
 * (`[READ], Operations, 50229`, `[OVERALL], RunTime(ms), 2434`...) into RunTotals.
 * Stack traces YCSB prints to stdout never match the `[NAME], metric, value` shape.
 */
import type { OpType, RunTotals } from '../../core/samples';
import { measurementOp } from './output';

const SUMMARY_LINE = /^\[([^\]]+)\], ([^,]+), (.+)$/;

/** metric values by measurement name, e.g. metrics.get('READ')?.get('Operations') */
export type SummaryMetrics = Map<string, Map<string, number>>;

export function parseSummaryMetrics(stdout: string): SummaryMetrics {
  const metrics: SummaryMetrics = new Map();
  for (const line of stdout.split('\n')) {
    const m = SUMMARY_LINE.exec(line.trim());
    if (!m) continue;
    if (!metrics.has(m[1])) metrics.set(m[1], new Map());
    metrics.get(m[1])!.set(m[2], Number(m[3]));
  }
  return metrics;
}

/** Null when the output has no [OVERALL] section, i.e. YCSB did not finish. */
export function parseSummary(stdout: string): RunTotals | null {
  const metrics = parseSummaryMetrics(stdout);
  const overall = metrics.get('OVERALL');
  const runtimeMs = overall?.get('RunTime(ms)');
  if (runtimeMs === undefined) return null;
  const ops: RunTotals['ops'] = {};
  for (const [name, values] of metrics) {
    const kind = measurementOp(name);
    const count = values.get('Operations');
    if (!kind || count === undefined) continue;
    const entry = (ops[kind.op] ??= { ok: 0, failed: 0, avgLatencyUs: null });
    if (kind.failed) {
      entry.failed += count;
    } else {
      entry.ok += count;
      const avg = values.get('AverageLatency(us)');
      entry.avgLatencyUs = count > 0 && avg !== undefined && Number.isFinite(avg) ? avg : null;
    }
  }
  for (const op of Object.keys(ops) as OpType[]) {
    if (ops[op]!.ok + ops[op]!.failed === 0) delete ops[op];
  }
  return { runtimeMs, throughputOpsPerS: overall?.get('Throughput(ops/sec)') ?? 0, ops };
}
