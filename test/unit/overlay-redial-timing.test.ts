import { msUntilEarlyInSecond } from '../../infra/local/overlay-paths';

test('a redial starts in the first tenth of a whole second: at once there, else just after the next second begins', () => {
  const second = Date.UTC(2026, 10, 26, 16, 30, 0);
  expect(msUntilEarlyInSecond(second)).toBe(0);
  expect(msUntilEarlyInSecond(second + 100)).toBe(0);
  expect(msUntilEarlyInSecond(second + 101)).toBe(904);
  expect(msUntilEarlyInSecond(second + 950)).toBe(55);
  for (const into of [101, 500, 999]) expect((second + into + msUntilEarlyInSecond(second + into)) % 1000).toBe(5);
});
