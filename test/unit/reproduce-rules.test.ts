/**
 * The comparison rules (core/reproduce/rules.ts) on synthetic figures: a value agrees, disagrees
 * or is undecided by its interval against the published value widened by the tolerance; a floor
 * and a ceiling bound one side only; fewer than two samples decide nothing; an ordering agrees
 * only when it held every time; a claim of parts disagrees when any part does; and the counts a
 * table ends with. Also the seeded bootstrap interval they rest on.
 */
import { derivedTarget, targetOf } from '../../core/reproduce/published';
import {
  DECISION,
  countAgreements,
  formatCounts,
  judge,
  judgeHolds,
  judgeParts,
  judgeValues,
  tolerated,
  type Observation,
} from '../../core/reproduce/rules';
import { bootstrapMedianInterval, estimate, median, ratioNoise } from '../../core/reproduce/statistics';
import { throughputError } from '../../core/reproduce/figures';

const value = (v: number) => targetOf({ value: v });
const range = (a: number, b: number) => targetOf({ range: [a, b] });
const floor = (v: number) => targetOf({ value: v, bound: 'lower' });
const ceiling = (v: number) => targetOf({ value: v, bound: 'upper' });
const held = (holds: boolean[]): Observation[] => holds.map((h, i) => ({ holds: h, from: `r${i + 1}`, shows: '' }));

test('the tolerance is 20 %, stated once, and two samples are the fewest an interval is made of', () => {
  expect(DECISION).toEqual({ tolerance: 0.2, minSamples: 2 });
  const t = tolerated(value(1.84));
  expect(t.low).toBeCloseTo(1.472, 9);
  expect(t.high).toBeCloseTo(2.208, 9);
  expect(tolerated(range(5, 6))).toEqual({ low: 4, high: 7.2 });
  expect(tolerated(floor(4))).toEqual({ low: 3.2, high: Infinity });
  expect(tolerated(ceiling(65))).toEqual({ low: -Infinity, high: 78 });
  // A negative published change widens away from zero on both ends alike.
  expect(tolerated(value(-25))).toEqual({ low: -30, high: -20 });
});

test('median and the seeded bootstrap interval: the same values give the same interval; two samples give their span', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  const a = bootstrapMedianInterval([4.8, 5.1, 5.6, 4.9]);
  expect(bootstrapMedianInterval([4.8, 5.1, 5.6, 4.9])).toEqual(a);
  expect(a.low).toBeGreaterThanOrEqual(4.8);
  expect(a.high).toBeLessThanOrEqual(5.6);
  expect(bootstrapMedianInterval([7])).toEqual({ low: 7, high: 7 });
  expect(estimate([1.8, 2.0])).toMatchObject({ low: 1.8, high: 2.0, n: 2 });
});

describe('a value against a published single value', () => {
  test('agrees when the interval meets the value within 20 %, even when the value itself is outside the interval', () => {
    expect(judgeValues([1.99, 2.0], value(1.84))).toMatchObject({ agreement: 'agree', why: 'our interval meets 1.84 ± 20 %' });
    expect(judgeValues([1.7, 1.9, 1.8], value(1.84)).agreement).toBe('agree');
  });

  test('disagrees when the interval lies wholly above or below the widened value', () => {
    // Cassandra A T(0.2)/T(0.4) as measured on 2026-11-25 against the published 1.38.
    expect(judgeValues([1.84, 1.88], value(1.38))).toMatchObject({ agreement: 'disagree', why: 'our interval lies above 1.38 plus 20 %' });
    expect(judgeValues([0.9, 1.0], value(1.38))).toMatchObject({ agreement: 'disagree', why: 'our interval lies below 1.38 less 20 %' });
  });

  test('is undecided when the interval reaches past the widened value on both sides: too wide to decide', () => {
    // Cassandra's 1.61 one day and 1.86 the next is not wide enough; 1.0 and 1.9 around 1.38 is.
    expect(judgeValues([1.0, 1.9], value(1.38))).toMatchObject({
      agreement: 'undecided',
      why: expect.stringMatching(/too wide to decide/) as unknown,
    });
    // Past one side only: the interval still meets the value, and holds no disagreement on the other side.
    expect(judgeValues([1.3, 1.9], value(1.38)).agreement).toBe('agree');
  });

  test('is undecided with one sample, which gives no interval', () => {
    const j = judgeValues([5.14], value(5));
    expect(j).toMatchObject({ agreement: 'undecided', why: '1 sample: the rule needs an interval (2 or more)', ours: '5.14 (1 sample)' });
    // Even one far off: a single run decides nothing.
    expect(judgeValues([50], value(5)).agreement).toBe('undecided');
  });

  test('no sample is not comparable', () => {
    expect(judgeValues([], value(5)).agreement).toBe('not comparable');
  });
});

describe('a ratio of throughputs: its interval holds its own noise, measured from their seconds', () => {
  test("a throughput's error is its seconds' spread over sqrt(seconds), never below one operation in all it counted", () => {
    // A steady closed loop, 3 or 4 operations a second for 40 s: about 2 %.
    const steady = Array.from({ length: 40 }, (_, i) => (i % 2 ? 3 : 4));
    expect(throughputError(steady)).toBeCloseTo(Math.sqrt(0.25641) / Math.sqrt(40) / 3.5, 3);
    // Two long scans in 40 s: per-second 0 and 1, at least one operation in two (50 %).
    const scans = Array.from({ length: 40 }, (_, i) => (i === 7 || i === 29 ? 1 : 0));
    expect(throughputError(scans)).toBeGreaterThanOrEqual(0.5);
    // A count that the seconds' spread underrates: 2 operations, both in one second's count, each second alike.
    expect(throughputError([1, 1])).toBe(0.5);
    expect(throughputError([0, 0, 0])).toBe(Infinity);
    // The client's wind-down (its last seconds while YCSB exits) is not the spread: `1 0` after 12-19 a second.
    const epoch = [12, 16, 10, 11, 13, 16, 14, 13, 13, 19, 14];
    expect(throughputError([...epoch, 1, 0])).toBe(throughputError(epoch));
    expect(throughputError(epoch)).toBeLessThan(0.06);
    expect(
      ratioNoise([
        { relativeError: 0.03, counted: 140 },
        { relativeError: 0.04, counted: 250 },
      ]),
    ).toEqual({ error: 0.05, fewestCounted: 140 });
  });

  test('two repetitions that agree over 2 operations each decide nothing: undecided where the bare values disagree', () => {
    // Redis E T(0.2)/T(1.0): 9 and 2, 14 and 3 operations measured per repetition in session 21's run.
    const values = [9.2, 9.9];
    const noise = [
      ratioNoise([
        { relativeError: 0.33, counted: 9 },
        { relativeError: 0.7, counted: 2 },
      ]),
      ratioNoise([
        { relativeError: 0.27, counted: 14 },
        { relativeError: 0.58, counted: 3 },
      ]),
    ];
    expect(judgeValues(values, value(4.8)).agreement).toBe('disagree');
    const j = judgeValues(values, value(4.8), '', noise);
    expect(j).toMatchObject({
      agreement: 'undecided',
      why: expect.stringMatching(
        /^the samples' own noise alone leaves their mean ±\d+ % at 95 % \(fewest operations counted 2\), wider than the tolerance ±20 %: too few operations to decide$/,
      ) as unknown,
    });
    // Whatever the values: 4.50 and 7.78 (session 21) agreed bare, and are as undecided.
    expect(judgeValues([4.5, 7.78], value(4.8)).agreement).toBe('agree');
    expect(judgeValues([4.5, 7.78], value(4.8), '', noise).agreement).toBe('undecided');
    // Seeded: the same figures give the same interval.
    expect(judgeValues(values, value(4.8), '', noise).estimate).toEqual(j.estimate);
  });

  test('a steady throughput of thousands barely moves the interval, and a clear disagreement stays one', () => {
    const values = [1.84, 1.88];
    const noise = [
      ratioNoise([
        { relativeError: 0.01, counted: 9_000 },
        { relativeError: 0.012, counted: 4_900 },
      ]),
      ratioNoise([
        { relativeError: 0.01, counted: 9_100 },
        { relativeError: 0.012, counted: 4_850 },
      ]),
    ];
    const bare = estimate(values);
    const noisy = estimate(values, noise);
    expect(noisy.fewestCounted).toBe(4_850);
    expect(Math.abs(noisy.low - bare.low)).toBeLessThan(0.05);
    expect(Math.abs(noisy.high - bare.high)).toBeLessThan(0.05);
    expect(judgeValues(values, value(1.38), '', noise)).toMatchObject({
      agreement: 'disagree',
      why: 'our interval lies above 1.38 plus 20 % (the interval holds the noise of each ratio as well; fewest operations counted 4850)',
    });
    // Noise 0.05 a sample leaves it a disagreement; 0.12 (±27 % alone, ±18 % for the mean of two) decides, its interval
    // now wide enough to meet the widened value; 0.14 (±21 % for the mean) is too noisy to decide.
    const at = (error: number) =>
      judgeValues(values, value(1.38), '', [
        { error, fewestCounted: 100 },
        { error, fewestCounted: 100 },
      ]).agreement;
    expect(at(0.05)).toBe('disagree');
    expect(at(0.12)).toBe('agree');
    expect(at(0.14)).toBe('undecided');
  });

  test('a sample without noise of its own adds none', () => {
    expect(estimate([1.8, 2.0], [undefined, undefined])).toMatchObject({ low: 1.8, high: 2.0, n: 2 });
    expect(estimate([1.8, 2.0], [undefined, undefined]).fewestCounted).toBeUndefined();
  });
});

describe('a value against a published range, floor or ceiling', () => {
  test('a range: agrees when the interval meets it widened, disagrees beyond it', () => {
    expect(judgeValues([5.1, 5.2], range(5, 5.8)).agreement).toBe('agree');
    expect(judgeValues([7.5, 8], range(5, 6)).agreement).toBe('disagree');
    expect(judgeValues([3, 9], range(5, 6)).agreement).toBe('undecided');
  });

  test('a floor (bound: lower): wholly above it agrees, wholly below disagrees, straddling it is undecided', () => {
    expect(judgeValues([4.5, 5.2], floor(4)).agreement).toBe('agree');
    expect(judgeValues([9, 12], floor(4)).agreement).toBe('agree');
    expect(judgeValues([2, 3], floor(4))).toMatchObject({ agreement: 'disagree', why: 'our interval lies below ≥ 4 less 20 %' });
    expect(judgeValues([3, 5], floor(4))).toMatchObject({ agreement: 'undecided', why: expect.stringMatching(/too wide/) as unknown });
  });

  test('a ceiling (bound: upper): wholly below it agrees, above disagrees, straddling it is undecided', () => {
    expect(judgeValues([40, 50], ceiling(65)).agreement).toBe('agree');
    expect(judgeValues([-5, 10], ceiling(65)).agreement).toBe('agree');
    expect(judgeValues([90, 95], ceiling(65)).agreement).toBe('disagree');
    expect(judgeValues([70, 85], ceiling(65)).agreement).toBe('undecided');
  });

  test('a target computed from printed figures says how', () => {
    const t = derivedTarget(0.6, 0.6, '60/100 as printed');
    expect(t.text).toBe('0.6 (60/100 as printed)');
    expect(judgeValues([0.68, 0.8], t).agreement).toBe('agree');
    expect(judgeValues([0.9, 0.95], t).agreement).toBe('disagree');
  });
});

describe('a stated ordering or shape', () => {
  test('agrees when it held every time, disagrees when never, undecided when sometimes', () => {
    expect(judgeHolds(held([true, true, true]))).toMatchObject({ agreement: 'agree', ours: expect.stringMatching(/^held in 3 of 3/) as unknown });
    expect(judgeHolds(held([false, false]))).toMatchObject({ agreement: 'disagree', why: 'held in none of 2' });
    expect(judgeHolds(held([true, false, true]))).toMatchObject({ agreement: 'undecided', why: 'held in 2 of 3' });
  });

  test('one observation decides nothing', () => {
    expect(judgeHolds(held([true]))).toMatchObject({ agreement: 'undecided', why: '1 observation: the rule needs 2 or more' });
    expect(judgeHolds([]).agreement).toBe('not comparable');
  });
});

test('a claim of parts: any part disagreeing disagrees, all agreeing agrees, else undecided', () => {
  const agree = judgeHolds(held([true, true]));
  const disagree = judgeHolds(held([false, false]));
  const undecided = judgeHolds(held([true]));
  expect(
    judgeParts([
      { name: 'x', judgement: agree },
      { name: 'y', judgement: disagree },
    ]),
  ).toMatchObject({ agreement: 'disagree', why: 'disagrees in: y' });
  expect(
    judgeParts([
      { name: 'x', judgement: agree },
      { name: 'y', judgement: agree },
    ]).agreement,
  ).toBe('agree');
  expect(
    judgeParts([
      { name: 'x', judgement: agree },
      { name: 'y', judgement: undecided },
    ]).agreement,
  ).toBe('undecided');
  // The dispatcher judges each part against its own target.
  const parts = judge(
    {
      kind: 'parts',
      parts: [
        {
          name: 'ratio',
          observed: {
            kind: 'values',
            samples: [
              { value: 5, from: 'r1' },
              { value: 5.2, from: 'r2' },
            ],
            unit: '',
          },
          target: range(5, 6),
        },
        { name: 'order', observed: { kind: 'holds', observations: held([true, true]) } },
      ],
    },
    undefined,
  );
  expect(parts.agreement).toBe('agree');
  expect(judge({ kind: 'missing', why: 'r1 not measured: redis · a-lsf1 · throughput' })).toMatchObject({
    agreement: 'not comparable',
    why: 'r1 not measured: redis · a-lsf1 · throughput',
  });
});

test('the counts a table ends with: each agreement, and the not comparable ones by reason', () => {
  const counts = countAgreements([
    { agreement: 'agree' },
    { agreement: 'disagree' },
    { agreement: 'undecided' },
    { agreement: 'undecided' },
    { agreement: 'not comparable', reason: 'database not runnable here' },
    { agreement: 'not comparable', reason: 'database not runnable here' },
    { agreement: 'not comparable', reason: 'not measured ok here' },
  ]);
  expect(counts).toEqual({
    agree: 1,
    disagree: 1,
    undecided: 2,
    notComparable: 3,
    why: { 'database not runnable here': 2, 'not measured ok here': 1 },
  });
  expect(formatCounts(counts)).toBe(
    'agree 1, disagree 1, undecided 2, not comparable here 3 (database not runnable here: 2; not measured ok here: 1)',
  );
});
