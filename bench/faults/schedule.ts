/**
 * When bench:faults kills what: every part `kills` times, at seeded times spread over the phase so
 * that one kill's recovery is over before the next begins. The window is cut into one slot per
 * kill, parts are dealt to slots in a seeded order, and each kill falls in the first half of its
 * slot: two kills are at least half a slot apart.
 */
import { seededRandom } from '../../core/seeded-random';

export const PARTS = ['emulator', 'tincd', 'wireguard', 'database', 'ycsb', 'worker', 'temporal-server'] as const;
export type Part = (typeof PARTS)[number];

export interface PlannedKill {
  part: Part;
  /** Seconds into the run phase. */
  atS: number;
}

export function planKills(options: { seed: number; kills: number; fromS: number; toS: number }): PlannedKill[] {
  const random = seededRandom(options.seed);
  const deck = PARTS.flatMap((part) => Array.from({ length: options.kills }, () => part));
  for (let i = deck.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const slot = (options.toS - options.fromS) / deck.length;
  // Tenths of a second: a kill never falls on the same instant of the monitors' one-second ticks.
  return deck.map((part, i) => ({ part, atS: Math.round((options.fromS + slot * i + random() * slot * 0.5) * 10) / 10 }));
}

/** A seeded choice among candidates (which tincd, which Redis server). */
export function pick<T>(candidates: readonly T[], random: () => number): T | undefined {
  return candidates.length === 0 ? undefined : candidates[Math.floor(random() * candidates.length)];
}
