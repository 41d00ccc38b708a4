/**
 * The per-key register check on hand-made histories: each case is a few operations whose
 * outcome is known from the definitions (core/consistency/register-check.ts), fed in end-time
 * order as the merged client histories are.
 */
import { RegisterChecker, type CheckOptions } from '../../core/consistency/register-check';
import { registerHash, seenValue } from '../../core/consistency/history';
import { cellConsistency, consistencyTotals, consistencyVerdict } from '../../core/consistency/consistency';
import type { HistoryRecord, ReadRecord } from '../../core/consistency/history';
import { T0_MS, close, failedRead, marker, open, read, write } from '../support/history-builder';

const K = 'user1';

function check(run: HistoryRecord[], final: ReadRecord[] = [], options: Partial<CheckOptions> = {}) {
  const checker = new RegisterChecker({ originMs: T0_MS, clients: ['a', 'b'], maxOperationUs: 5_000_000, ...options });
  for (const r of run) checker.add(r);
  const keys = checker.keysWritten();
  for (const r of final) checker.addFinal(r);
  return { result: checker.result(), keys, checker };
}

describe('the marker', () => {
  it('hashes key/field as the Java client does (FNV-1a, 32 bits)', () => {
    // Read back from a real run (the smoke run of ycsb/ on loopback): fbw:abc.932.03bd5719; in field1.
    expect(registerHash('user1000385178204227360', 'field1')).toBe('03bd5719');
    expect(registerHash('user1000385178204227360', 'field0')).toBe('02bd5586');
  });

  it('reads a write, an unmarked value, and corrupt ones', () => {
    expect(seenValue(marker('a', 7, K), K, 'field0')).toEqual({ kind: 'write', client: 'a', seq: 7, id: 'a.7' });
    expect(seenValue('', K, 'field0')).toEqual({ kind: 'unmarked' });
    expect(seenValue(undefined, K, 'field0')).toEqual({ kind: 'unmarked' });
    const elsewhere = seenValue(marker('a', 7, 'user2'), K, 'field0');
    expect(elsewhere.kind === 'corrupt' && elsewhere.why).toMatch(/another key or field/);
    expect(seenValue(marker('a', 7, K, 'field1'), K, 'field0')).toMatchObject({ kind: 'corrupt' });
    expect(seenValue('?fbw:a.7', K, 'field0')).toMatchObject({ kind: 'corrupt', why: 'not a marker any write makes' });
  });
});

describe('stale reads', () => {
  it('a read that returns a value older than a write acknowledged before it began is stale', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 30), read(K, 40, 50, { field0: marker('a', 1, K) })]);
    expect(result.totals).toMatchObject({ reads: 1, writes: 2, stale: 1, corrupt: 0 });
    expect(result.verdict).toBe('stale reads');
    expect(result.examples).toEqual([
      {
        kind: 'stale',
        key: K,
        field: 'field0',
        expected: { id: 'a.2', startMs: T0_MS + 20, endMs: T0_MS + 30 },
        got: 'a.1',
        gotWrite: { id: 'a.1', startMs: T0_MS + 0, endMs: T0_MS + 10 },
        read: { startMs: T0_MS + 40, endMs: T0_MS + 50 },
      },
    ]);
    // Counted in the second the read ended in (50 ms after the origin: second 1).
    expect(result.seconds).toHaveLength(1);
    expect(result.seconds[0]).toMatchObject({ elapsedS: 1, time: T0_MS + 1000, reads: 1, writes: 2, stale: 1 });
  });

  it('is not stale when the newer write was acknowledged only after the read began', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10), read(K, 40, 50, { field0: marker('a', 1, K) }), write('a', 2, K, 20, 60)]);
    expect(result.totals.stale).toBe(0);
    expect(result.verdict).toBe('no anomaly seen');
  });

  it('concurrent writes whose order is unknown: a read of either is current', () => {
    const { result } = check([
      open('a'),
      open('b'),
      write('a', 1, K, 0, 30),
      write('b', 1, K, 10, 40),
      read(K, 50, 60, { field0: marker('a', 1, K) }),
      read(K, 70, 80, { field0: marker('b', 1, K) }),
    ]);
    expect(result.totals).toMatchObject({ reads: 2, stale: 0, corrupt: 0 });
  });

  it('an initial or absent value read after a write was acknowledged is stale; before, it is not', () => {
    const { result } = check([
      open('a'),
      read(K, 2, 8, {}),
      write('a', 1, K, 0, 10, { fields: ['field0', 'field1'] }),
      read(K, 5, 12, { field0: '', field1: '' }),
      read(K, 20, 30, {}),
    ]);
    expect(result.totals).toMatchObject({ reads: 3, stale: 1 });
    expect(result.examples[0]).toMatchObject({ kind: 'stale', expected: { id: 'a.1' } });
    expect(result.examples[0].got).toMatch(/^initial value/);
  });

  it('a value written by a client of no phase of this history counts as the initial value', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10), read(K, 20, 30, { field0: marker('zz', 4, K) })]);
    expect(result.totals).toMatchObject({ stale: 1, corrupt: 0 });
  });

  it('a value of a phase client whose history is missing is not judged', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10), read(K, 20, 30, { field0: marker('b', 4, K) })]);
    expect(result.totals).toMatchObject({ stale: 0, corrupt: 0, unjudged: 1 });
    expect(result.history.missing).toEqual(['b']);
  });

  it('a read of a value whose write has not ended yet is fine', () => {
    const { result } = check([
      open('a'),
      write('a', 1, K, 0, 10),
      read(K, 20, 30, { field0: marker('a', 2, K) }),
      write('a', 2, K, 15, 40),
      close('a', 2, 50),
    ]);
    expect(result.totals).toMatchObject({ stale: 0, corrupt: 0 });
  });
});

describe('timeouts and failures', () => {
  it('counts failed operations by cause; a timed-out write read back is neither stale, corrupt nor lost', () => {
    const { result } = check(
      [
        open('a'),
        write('a', 1, K, 0, 10),
        write('a', 2, K, 20, 2020, { cause: 'timeout' }),
        failedRead(K, 2100, 2200, 'unavailable'),
        read(K, 3000, 3010, { field0: marker('a', 2, K) }),
        close('a', 2, 3100),
      ],
      [read(K, 4000, 4010, { field0: marker('a', 2, K) }, 'f')],
    );
    expect(result.totals).toMatchObject({ reads: 1, writes: 1, stale: 0, corrupt: 0, lost: 0, failed: { timeout: 1, unavailable: 1 } });
    expect(result.seconds.map((s) => s.failed)).toEqual([{}, {}, { timeout: 1, unavailable: 1 }, {}]);
    expect(result.verdict).toBe('no anomaly seen');
  });

  it('a timed-out write whose value is not read back is not lost: it was never acknowledged', () => {
    const { result } = check(
      [open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 2020, { cause: 'timeout' })],
      [read(K, 4000, 4010, { field0: marker('a', 1, K) }, 'f')],
    );
    expect(result.totals.lost).toBe(0);
  });
});

describe('lost writes', () => {
  it('an acknowledged last write whose value the read-back does not find is lost', () => {
    const { result, keys } = check(
      [open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 30)],
      [read(K, 100, 110, { field0: marker('a', 1, K) }, 'f')],
    );
    expect(keys).toEqual([K]);
    expect(result.totals.lost).toBe(1);
    expect(result.verdict).toBe('lost acknowledged writes');
    expect(result.examples).toEqual([
      expect.objectContaining({ kind: 'lost', key: K, field: 'field0', expected: { id: 'a.2', startMs: T0_MS + 20, endMs: T0_MS + 30 }, got: 'a.1' }),
    ]);
    // Placed in the second it was acknowledged in.
    expect(result.seconds[0].lost).toBe(1);
  });

  it('a write overwritten by a later acknowledged write is superseded, not lost', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 30)], [read(K, 100, 110, { field0: marker('a', 2, K) }, 'f')]);
    expect(result.totals.lost).toBe(0);
    expect(result.readBack).toEqual({ keys: 1, failed: 0, registers: 1, unverified: 0 });
  });

  it('concurrent last writes: a final value from either loses neither', () => {
    const { result } = check(
      [open('a'), open('b'), write('a', 1, K, 0, 30), write('b', 1, K, 10, 40)],
      [read(K, 100, 110, { field0: marker('a', 1, K) }, 'f')],
    );
    expect(result.totals.lost).toBe(0);
  });

  it('an absent final value loses every last write; each write counts once however many fields it wrote', () => {
    const { result } = check(
      [open('a'), write('a', 1, K, 0, 10, { fields: ['field0', 'field1'] }), write('a', 2, 'user2', 0, 10)],
      [read(K, 100, 110, {}, 'f'), read('user2', 100, 110, { field0: marker('a', 2, 'user2') }, 'f')],
    );
    expect(result.totals.lost).toBe(1);
    expect(result.readBack).toMatchObject({ keys: 2, registers: 3, unverified: 0 });
  });

  it('a register whose final read failed is unverified, not lost', () => {
    const { result } = check([open('a'), write('a', 1, K, 0, 10)], [failedRead(K, 100, 110, 'timeout', 'f')]);
    expect(result.totals.lost).toBe(0);
    expect(result.readBack).toEqual({ keys: 1, failed: 1, registers: 1, unverified: 1 });
  });
});

describe('corrupt reads', () => {
  it('a garbled value, a value of another register and a write its client never made are corrupt', () => {
    const { result } = check(
      [
        open('a'),
        write('a', 1, K, 0, 10),
        read(K, 20, 30, { field0: '?fbw:a.1.zz' }),
        read(K, 40, 50, { field0: marker('a', 1, 'user9') }),
        read(K, 60, 70, { field0: marker('a', 9, K) }),
        close('a', 1, 80),
      ],
      [read(K, 100, 110, { field0: marker('a', 1, K) }, 'f')],
    );
    expect(result.totals).toMatchObject({ reads: 3, corrupt: 3, stale: 0 });
    expect(result.verdict).toBe('corrupt reads');
    expect(result.examples.map((e) => e.why)).toEqual([
      'not a marker any write makes',
      expect.stringContaining('another key or field'),
      'its client made 1 writes, none with this number',
    ]);
  });
});

describe('long histories', () => {
  it('forgets superseded writes once old, still finds a read of a forgotten value stale, and finds the last write lost', () => {
    const run: HistoryRecord[] = [open('a')];
    // One write every 10 ms for 100 s to one register; the check may forget what is 1 s old.
    for (let i = 1; i <= 10_000; i++) run.push(write('a', i, K, i * 10, i * 10 + 5));
    run.push(read(K, 100_020, 100_030, { field0: marker('a', 3, K) }));
    const { result, checker } = check(run, [read(K, 200_000, 200_010, { field0: marker('a', 3, K) }, 'f')], { maxOperationUs: 1_000_000 });
    expect(checker.retainedWrites()).toBeLessThan(200);
    expect(result.totals).toMatchObject({ writes: 10_000, stale: 1, lost: 1 });
    expect(result.examples.find((e) => e.kind === 'lost')?.expected?.id).toBe('a.10000');
  });
});

describe('per cell', () => {
  it('sums the checked phases, takes the worst verdict, and gives the totals a comparison needs', () => {
    const stale = check([open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 30), read(K, 40, 50, { field0: marker('a', 1, K) })]).result;
    const lost = check([open('a'), write('a', 1, K, 0, 10), write('a', 2, K, 20, 30, { cause: 'timeout' })], [read(K, 100, 110, {}, 'f')]).result;
    const cell = cellConsistency([{ name: 'run', consistency: stale }, { name: 'run2', consistency: lost }, { name: 'load' }]);
    expect(cell).toMatchObject({ verdict: 'lost acknowledged writes', phases: ['run', 'run2'] });
    expect(cell!.totals).toMatchObject({ reads: 1, writes: 3, stale: 1, lost: 1, failed: { timeout: 1 } });
    expect(consistencyTotals({ summary: { consistency: cell } })).toEqual({
      verdict: 'lost acknowledged writes',
      reads: 1,
      writes: 3,
      stale: 1,
      corrupt: 0,
      lost: 1,
      failed: 1,
      timeouts: 1,
      // The first phase was never read back.
      unverified: 1,
    });
    expect(consistencyTotals({ summary: {} })).toBeUndefined();
    expect(consistencyVerdict({ stale: 0, corrupt: 0, lost: 0 })).toBe('no anomaly seen');
  });
});
