/** RTT of every directly linked pair of a fleet, over the overlay: what the network benchmarks compare with the configuration. */
import { namespaceOf } from '../infra/local/plan';
import { NetnsExec } from '../services/exec/transports';
import { ping } from '../services/probes/ping';
import { median, quantile } from '../services/probes/quantile';
import { findNode, type Inventory } from '../core/inventory';

/** Pairs pinged at once: enough to finish in seconds, few enough not to load two cores. */
export const PAIRS_AT_ONCE = 3;

export interface PairRtt {
  a: string;
  b: string;
  configuredMs: number;
  medianMs: number;
  p99Ms: number;
  /** Every reply's RTT, ms. */
  samplesMs: number[];
}

/** Every unordered pair with a direct link, pinged from a to b; configured = reference RTT x scale. */
export async function rttPairs(inventory: Inventory, scale: number, pings: number, intervalS: number): Promise<PairRtt[]> {
  const links = inventory.links.filter((l) => l.type === 0);
  const results: PairRtt[] = [];
  for (let i = 0; i < links.length; i += PAIRS_AT_ONCE) {
    const batch = links.slice(i, i + PAIRS_AT_ONCE);
    results.push(
      ...(await Promise.all(
        batch.map(async (link) => {
          const result = await ping(new NetnsExec(namespaceOf(link.a)), findNode(inventory, link.b).overlayAddress, pings, intervalS);
          if (result.samplesMs.length === 0) throw new Error(`no reply from ${link.b} to ${link.a}`);
          return {
            a: link.a,
            b: link.b,
            configuredMs: link.latencyMs * scale,
            medianMs: median(result.samplesMs),
            p99Ms: quantile(result.samplesMs, 0.99),
            samplesMs: result.samplesMs,
          };
        }),
      )),
    );
  }
  return results;
}
