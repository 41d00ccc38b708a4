import { measurementOp, parseYcsbLine } from '../../services/ycsb/output';
import { parseSummaryMetrics } from '../../services/ycsb/summary';
import { FIXTURES, readRecordedRun } from './fixtures/ycsb/read';

describe('YCSB status lines', () => {
  it('reads time, elapsed seconds, cumulative operations and per-interval blocks, failures included', () => {
    const { statuses } = readRecordedRun('run-faults').output;
    const withFailures = statuses.map((s) => s.line).find((l) => l.blocks['READ-FAILED'] && l.blocks['READ-FAILED'].count > 0);
    expect(withFailures).toBeDefined();
    expect(withFailures!.blocks['UPDATE-FAILED'].count).toBeGreaterThan(0);
    expect(withFailures!.blocks['READ-FAILED'].avgUs).toBeGreaterThan(0);
    // Cumulative counts never decrease; elapsed seconds never go back.
    for (let i = 1; i < statuses.length; i++) {
      expect(statuses[i].line.totalOps).toBeGreaterThanOrEqual(statuses[i - 1].line.totalOps);
      expect(statuses[i].line.elapsedSec).toBeGreaterThanOrEqual(statuses[i - 1].line.elapsedSec);
    }
  });

  it('reads an interval with no operation as a block of zeros, and the cumulative count stays put', () => {
    const lines = readRecordedRun('run-faults').output.statuses.map((s) => s.line);
    const empty = lines
      .map((line, i) => ({ line, previous: lines[i - 1] }))
      .filter(({ line }) => line.elapsedSec > 0 && Object.keys(line.blocks).length > 0 && Object.values(line.blocks).every((b) => b.count === 0));
    expect(empty.length).toBeGreaterThanOrEqual(2);
    for (const { line, previous } of empty) expect(line.totalOps).toBe(previous.totalOps);
  });

  it.each(FIXTURES)('%s: the n-th block of a measurement and its n-th interval line are the same cut', (name) => {
    const { statuses, intervals } = readRecordedRun(name).output;
    const used = new Map<string, number>();
    let compared = 0;
    for (const { line } of statuses) {
      for (const [measurement, block] of Object.entries(line.blocks)) {
        const n = used.get(measurement) ?? 0;
        used.set(measurement, n + 1);
        const cut = intervals.filter((i) => i.measurement === measurement)[n];
        expect(cut).toBeDefined();
        expect(cut.count).toBe(block.count);
        expect(cut.avgUs).toBeCloseTo(block.avgUs, 1);
        expect(cut.p99Us).toBe(block.p99Us);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('tells the PID, CPU, interval and other lines apart', () => {
    expect(parseYcsbLine('FRAGBENCH-PID 4242')).toEqual({ kind: 'pid', pid: 4242 });
    expect(parseYcsbLine('FRAGBENCH-CPU-READY 1830')).toEqual({ kind: 'cpu-ready', cpuMs: 1830 });
    expect(parseYcsbLine('FRAGBENCH-CPU 2790')).toEqual({ kind: 'cpu', cpuMs: 2790 });
    expect(parseYcsbLine('Loading workload...')).toEqual({ kind: 'other', text: 'Loading workload...' });
    const interval = parseYcsbLine('FRAGBENCH-INTERVAL op=READ-MODIFY-WRITE startMs=10 endMs=1010 count=7 avgUs=1.50 p95Us=3 p99Us=4');
    expect(interval).toMatchObject({ kind: 'interval', measurement: 'READ-MODIFY-WRITE', startMs: 10, endMs: 1010, count: 7, avgUs: 1.5 });
  });
});

describe('measurement names', () => {
  it('maps ok and failed measurements to their operation type', () => {
    expect(measurementOp('READ')).toEqual({ op: 'READ', failed: false });
    expect(measurementOp('READ-FAILED')).toEqual({ op: 'READ', failed: true });
    expect(measurementOp('READ-MODIFY-WRITE')).toEqual({ op: 'READ-MODIFY-WRITE', failed: false });
    expect(measurementOp('UPDATE-NOT_FOUND')).toEqual({ op: 'UPDATE', failed: true });
    expect(measurementOp('CLEANUP')).toBeNull();
  });
});

describe('YCSB final summary', () => {
  it.each(FIXTURES)('%s: ok and failed per type agree with YCSB return-code counts', (name) => {
    const { stdout, totals } = readRecordedRun(name);
    const metrics = parseSummaryMetrics(stdout);
    expect(Object.keys(totals.ops).length).toBeGreaterThan(0);
    for (const [op, t] of Object.entries(totals.ops)) {
      const returns = metrics.get(op)!;
      const okReturns = returns.get('Return=OK') ?? 0;
      const otherReturns = [...returns].filter(([k]) => k.startsWith('Return=') && k !== 'Return=OK').reduce((n, [, v]) => n + v, 0);
      expect(t.ok).toBe(okReturns);
      expect(t.failed).toBe(otherReturns);
    }
    expect(totals.runtimeMs).toBeGreaterThan(0);
  });

  it('has failed operations only in the run where redis was killed', () => {
    expect(readRecordedRun('run-short').totals.ops.READ!.failed).toBe(0);
    const faults = readRecordedRun('run-faults').totals.ops;
    expect(faults.READ!.failed).toBeGreaterThan(0);
    expect(faults.UPDATE!.failed).toBeGreaterThan(0);
  });
});
