/**
 * The traffic reproduction's split of bytes per second into a background that grows with time and
 * a part per operation, solved from the epochs at 0.2 and 1.0: what explains bytes per operation
 * growing far more here than published when the background is heavy.
 */
import { epochLabel } from '../../core/reproduce/experiment';
import type { Figure } from '../../core/reproduce/figures';
import { RepetitionFigures } from '../../core/reproduce/observe';
import { TRAFFIC_COMPARES, trafficSplit } from '../../core/reproduce/traffic';

const figure = (phase: string, measure: string, value: number): Figure => ({
  database: 'cassandra',
  cell: 'latencyScale=0.2',
  phase,
  measure,
  unit: measure === 'throughput' ? 'ops/s' : 'B',
  value,
  verdict: 'ok',
});

/** Epochs whose bytes/s are background + perOp x ops/s. */
function epochs(backgroundBytesPerS: number, perOpBytes: number, opsFast: number, opsSlow: number): Figure[] {
  return [
    [0.2, opsFast],
    [1, opsSlow],
  ].flatMap(([scale, ops]) => [
    figure(epochLabel('a', scale), 'throughput', ops),
    figure(epochLabel('a', scale), 'bytes per operation', (backgroundBytesPerS + perOpBytes * ops) / ops),
  ]);
}

test('a background and a size per operation are recovered from the two epochs', () => {
  const split = trafficSplit(new RepetitionFigures(epochs(64_000, 1_500, 19.6, 3.5), 'r1'), 'cassandra', 'a');
  expect(split.backgroundBytesPerS).toBeCloseTo(64_000, 3);
  expect(split.perOpBytes).toBeCloseTo(1_500, 3);
});

test('no background: bytes per operation do not grow, and the split says so', () => {
  const split = trafficSplit(new RepetitionFigures(epochs(0, 2_000, 20, 4), 'r1'), 'cassandra', 'a');
  expect(split.backgroundBytesPerS).toBeCloseTo(0, 3);
  expect(split.perOpBytes).toBeCloseTo(2_000, 3);
});

test('throughput that did not fall cannot be split', () => {
  expect(() => trafficSplit(new RepetitionFigures(epochs(1_000, 2_000, 5, 5), 'r1'), 'cassandra', 'a')).toThrow(/did not fall/);
});

test('the growth row shows the split beside its figure, per repetition', () => {
  const row = TRAFFIC_COMPARES.find((c) => c.id === 'trf-cassandra-a-growth')!;
  const text = row.beside!([epochs(64_000, 1_500, 19.6, 3.5), epochs(60_000, 1_400, 18, 3.6)]);
  expect(text).toMatch(/background kB\/s: 64\.0, 60\.0; kB per operation: 1\.50, 1\.40; background share of the bytes at 1\.0, %: 92\.4, 92\.3/);
});
