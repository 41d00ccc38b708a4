import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Targets } from '../../bench/targets';

const judged = (short: boolean) => {
  const lines: string[] = [];
  return { lines, targets: new Targets((l) => lines.push(l), short) };
};

describe('a benchmark target', () => {
  it('prints its evidence only when it is missed', () => {
    const { lines, targets } = judged(false);
    targets.count('pairs', 12, 12, 12, { onMiss: 'outside: a-b 4 -> 6 ms' });
    targets.count('pairs loaded', 11, 12, 12, { note: 'why looser', onMiss: 'outside: a-b 4 -> 6 ms' });
    expect(lines).toEqual([
      'target pairs: 12/12 against 12/12: met',
      'target pairs loaded: 11/12 against 12/12: MISSED (why looser) (outside: a-b 4 -> 6 ms)',
    ]);
    expect(targets.missed.map((j) => j.name)).toEqual(['pairs loaded']);
  });

  it('does not print evidence for a speed target short mode does not judge', () => {
    const { lines, targets } = judged(true);
    targets.atMost('cpu', 640, 300, ' us', { kind: 'speed', onMiss: 'ycsb 217' });
    expect(lines).toEqual(['target cpu: 640.00 us against <= 300.00 us: (speed: not judged in short mode)']);
  });

  it("reaches CI's summary of what failed with a note and evidence after MISSED", () => {
    // The pattern scripts/run-benchmarks.sh collects missed targets with.
    const script = readFileSync(`${__dirname}/../../scripts/run-benchmarks.sh`, 'utf8');
    const pattern = /grep -E '(\^target [^']+)' "\$log"/.exec(script)?.[1];
    expect(pattern).toBeDefined();
    const { lines, targets } = judged(false);
    targets.count('pairs', 11, 12, 12, { note: 'short mode', onMiss: 'outside: a-b' });
    targets.count('other', 1, 1);
    const matched = execFileSync('grep', ['-E', pattern!], { input: lines.join('\n') + '\n', encoding: 'utf8' });
    expect(matched.trim().split('\n')).toEqual([lines[0]]);
  });
});
