/**
 * The one-thread distance line (core/reproduce/distance-model.ts): two regions fix it, it prices
 * any round trip, and it says which round trip an operation time needs; two regions at one round
 * trip, or operations that do not slow with distance, are refused with the field named.
 */
import { lineThrough, opMsAt, rttForOpMs } from '../../core/reproduce/distance-model';

test('the line through two regions prices a third and inverts', () => {
  // 0.6 ms private, an eighth of the operations crossing: Sydney 18.5 ms, Virginia 229.5 ms.
  const cost = (rttMs: number) => 0.6 + rttMs / 8;
  const line = lineThrough({ rttMs: 18.5, opMs: cost(18.5) }, { rttMs: 229.5, opMs: cost(229.5) });
  expect(line.publicShare).toBeCloseTo(0.125, 12);
  expect(line.localMs).toBeCloseTo(0.6, 12);
  expect(opMsAt(line, 121.8)).toBeCloseTo(cost(121.8), 12);
  expect(rttForOpMs(line, cost(42))).toBeCloseTo(42, 12);
});

test('two regions at one round trip fix no line; a flat line fixes no round trip', () => {
  expect(() => lineThrough({ rttMs: 50, opMs: 3 }, { rttMs: 50, opMs: 4 })).toThrow(/^rttMs: two regions with the same round trip \(50 ms\)/);
  expect(() => rttForOpMs({ localMs: 2, publicShare: 0 }, 3)).toThrow(/^publicShare: operations that do not slow with distance/);
});
