/**
 * fleet up's overlay cost (infra/local/plausible-overlay-cost.ts): a plausible reading is used at once; an
 * implausible one is taken again; three implausible ones fail the up, naming them.
 */
import { MAX_OVERLAY_COST_MS, plausibleOverlayCost } from '../../infra/local/plausible-overlay-cost';

function readings(...ms: number[]): jest.Mock<Promise<number>, []> {
  return jest.fn(() => Promise.resolve(ms.shift() ?? NaN));
}

test('a plausible reading is used as it is, measured once', async () => {
  const measure = readings(0.31);
  const said: string[] = [];
  await expect(plausibleOverlayCost(measure, (l) => said.push(l), 0)).resolves.toBe(0.31);
  expect(measure).toHaveBeenCalledTimes(1);
  expect(said).toEqual([]);
});

test('a reading above the bound is taken again, and a plausible second one is used', async () => {
  const measure = readings(122, 0.4);
  const said: string[] = [];
  await expect(plausibleOverlayCost(measure, (l) => said.push(l), 0)).resolves.toBe(0.4);
  expect(measure).toHaveBeenCalledTimes(2);
  expect(said).toEqual([`the overlay's own cost read 122.00 ms, above the ${MAX_OVERLAY_COST_MS} ms it can be; measuring again`]);
});

test('three implausible readings fail, naming each, and nothing is returned', async () => {
  const measure = readings(122, 40, 6);
  await expect(plausibleOverlayCost(measure, () => undefined, 0)).rejects.toThrow(
    "the overlay's own RTT cost read 122.0 ms, 40.0 ms, 6.0 ms, above the 5 ms it can be",
  );
  expect(measure).toHaveBeenCalledTimes(3);
});
