/**
 * The overlay's own RTT cost, as fleet up measures it, held to what it can plausibly be. Here it
 * reads 0.2-0.5 ms alone and ~2 ms under CI's load. A reading far above that measured something
 * else (122 ms once, every daemon unpinned on fhc-32 and near two full cores, cause not found),
 * and subtracted from every link it would make the whole fleet that much short; so such a reading
 * is taken again, and the up fails if every one is implausible.
 */
import { sleep } from '../../platform/wait';

export const MAX_OVERLAY_COST_MS = 5;
const TRIES = 3;

export async function plausibleOverlayCost(measure: () => Promise<number>, progress: (line: string) => void, retryMs = 3_000): Promise<number> {
  const readings: number[] = [];
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    const ms = await measure();
    if (ms <= MAX_OVERLAY_COST_MS) return ms;
    readings.push(ms);
    progress(`the overlay's own cost read ${ms.toFixed(2)} ms, above the ${MAX_OVERLAY_COST_MS} ms it can be; measuring again`);
    if (attempt < TRIES) await sleep(retryMs);
  }
  throw new Error(
    `the overlay's own RTT cost read ${readings.map((ms) => `${ms.toFixed(1)} ms`).join(', ')}, above the ${MAX_OVERLAY_COST_MS} ms it can be: ` +
      'the host was too busy or the overlay still settling, and every link would have been that much short; ' +
      'bring the fleet up again once the host is quieter (with FRAGBENCH_NETWORK_CPUS at its default)',
  );
}
