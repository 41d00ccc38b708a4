import { judgeKills, type Kill } from '../../bench/faults/judge';
import type { Sample } from '../../core/samples';

const ORIGIN = 1_000_000;
const at = (s: number) => ORIGIN + s * 1000;

function samplesWithout(lastS: number, holes: number[]): Sample[] {
  return Array.from({ length: lastS }, (_, i) => i + 1)
    .filter((s) => !holes.includes(s))
    .map((s): Sample => ({ time: at(s), elapsedS: s, okPerS: 100, failedPerS: 0, ops: {} }));
}

describe('bench:faults judging which kill lost which seconds', () => {
  // The project's bench:faults of 2026-12-07: a client killed at 375.1 s lost 374 and 375 (its last
  // status lines died with it), the worker killed at 419.4 s lost 419 to 422.
  const kills: Kill[] = [
    { part: 'worker', pid: 1, at: at(47.5) },
    { part: 'tincd', pid: 2, at: at(340.7) },
    { part: 'ycsb', pid: 3, at: at(375.1) },
    { part: 'worker', pid: 4, at: at(419.4) },
  ];
  const holes = [48, 49, 374, 375, 419, 420, 421, 422];

  it('puts each hole on the kill that made it, from the second before the kill', () => {
    const outcomes = judgeKills(kills, samplesWithout(600, holes), [], [], ORIGIN, at(600));
    expect(outcomes.map((o) => [o.kill.pid, o.missingSeconds])).toEqual([
      [1, [48, 49]],
      [2, []],
      [3, [374, 375]],
      [4, [419, 420, 421, 422]],
    ]);
  });

  it('counts a hole that runs to the phase end, and never a second before the phase', () => {
    const outcomes = judgeKills([{ part: 'ycsb', pid: 5, at: at(0.2) }], samplesWithout(20, [1, 2, 19, 20]), [], [], ORIGIN, at(20.5));
    expect(outcomes[0].missingSeconds).toEqual([1, 2, 19, 20]);
  });
});
