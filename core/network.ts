/** What the network measurements return: RTT between node pairs and bytes exchanged per pair. */

export interface RttMatrix {
  /** Epoch ms when the measurement finished. */
  time: number;
  /** One entry per ordered pair measured; null rtt when every ping was lost. */
  pairs: { from: string; to: string; avgMs: number | null; lossPercent: number }[];
  /** Mean of avgMs over the pairs that answered. */
  meanMs: number | null;
}

export interface TrafficMatrix {
  time: number;
  /** Bytes sent plus received per unordered node pair, summed over connection types. */
  pairs: { a: string; b: string; bytes: number }[];
}

/** A fleet's network as scenarios set it: scales over the reference values and the cut links. */
export interface NetworkSettings {
  latencyScale: number;
  bandwidthScale: number;
  /** Ids of the links that are cut. */
  cut: string[];
}
