/**
 * The latency-scale line (core/reproduce/latency-scale-model.ts): two scales fix it, and a
 * published ratio names the fixed part an operation needs to give it.
 */
import { fixedMsForRatio, msAtScale, scaleLine } from '../../core/reproduce/latency-scale-model';

const cost = (fixedMs: number, msPerScale: number) => (scale: number) => ({ scale, ms: fixedMs + msPerScale * scale });

test('two scales give back the fixed part and the round trips per unit of scale', () => {
  const at = cost(3, 400);
  const line = scaleLine(at(0.2), at(0.4));
  expect(line.fixedMs).toBeCloseTo(3, 9);
  expect(line.msPerScale).toBeCloseTo(400, 9);
  expect(msAtScale(line, 1.0)).toBeCloseTo(at(1.0).ms, 9);
});

test('the fixed part a ratio needs gives that ratio back, and none gives exactly the scales apart', () => {
  const line = scaleLine({ scale: 0.2, ms: 80 }, { scale: 0.4, ms: 160 });
  const fixed = fixedMsForRatio(line, 0.2, 0.4, 1.38);
  expect((fixed + 0.4 * line.msPerScale) / (fixed + 0.2 * line.msPerScale)).toBeCloseTo(1.38, 9);
  expect(fixed).toBeCloseTo((80 * 0.62) / 0.38, 9);
  expect(fixedMsForRatio(line, 0.2, 1.0, 5)).toBeCloseTo(0, 9);
  // A 50 % drop from 0.2 to 1.0 (ratio 2) needs three times the round trips at 0.2.
  expect(fixedMsForRatio(line, 0.2, 1.0, 2)).toBeCloseTo(3 * 80, 9);
});

test('refuses what no line answers: one scale twice, a flat line, a ratio no fixed part gives', () => {
  expect(() => scaleLine({ scale: 0.2, ms: 1 }, { scale: 0.2, ms: 2 })).toThrow(/^scale: two points at the same scale/);
  expect(() => fixedMsForRatio({ fixedMs: 1, msPerScale: 0 }, 0.2, 0.4, 1.5)).toThrow(/^msPerScale:/);
  expect(() => fixedMsForRatio({ fixedMs: 1, msPerScale: 10 }, 0.2, 0.4, 2.5)).toThrow(/^ratio: 2.5 is outside \(1, 2\]/);
  expect(() => fixedMsForRatio({ fixedMs: 1, msPerScale: 10 }, 0.2, 0.4, 1)).toThrow(/^ratio:/);
  expect(() => fixedMsForRatio({ fixedMs: 1, msPerScale: 10 }, 0.4, 0.2, 1.5)).toThrow(/^to:/);
});
