/** What the network measurements return: RTT between node pairs and bytes exchanged per pair. */
import {
  referenceConditions,
  scaledConditions,
  withOverrides,
  type Direction,
  type DirectionOverride,
  type LinkConditions,
  type LinkReferenceConditions,
} from './link-conditions';
import type { Position } from './site-motion';

export interface RttMatrix {
  /** Epoch ms when the measurement finished. */
  time: number;
  /** Epoch ms when its first ping went out (records written before it was kept have none). */
  startedAt?: number;
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

/**
 * A fleet's network as scenarios set it: scales over the reference values, per-link per-direction
 * values set by network events (which win over the scales), and the links cut both ways or one way.
 */
export interface NetworkSettings {
  latencyScale: number;
  bandwidthScale: number;
  /** Ids of the links that are cut both ways. */
  cut: string[];
  /** Links cut in one direction only: b still hears a, or a still hears b. */
  oneWayCuts?: OneWayCut[];
  /** Values network events set, per link and direction; they win over the scales until reset. */
  overrides?: Record<string, Partial<Record<Direction, DirectionOverride>>>;
  /** Links a partition cut (and no other cut had): what `heal` restores, exactly. */
  partitioned?: string[];
  /** Where moved nodes stand now (a `move` event's end): the next move starts here, not at the topology's position. */
  positions?: Record<string, Position>;
  /** The seed the links' loss and jitter draws last started from (a run's cell reset); given again when a restarted shaper is set up. */
  lossSeed?: number;
}

export interface OneWayCut {
  link: string;
  direction: Direction;
}

/** The network as the topology gives it: no scale, nothing cut, nothing set by events. */
export const REFERENCE_SETTINGS: NetworkSettings = { latencyScale: 1, bandwidthScale: 1, cut: [] };

/** A link's conditions now: its reference under the scales, then what events set. */
export function conditionsOf(link: { id: string } & LinkReferenceConditions, settings: NetworkSettings): LinkConditions {
  return withOverrides(scaledConditions(referenceConditions(link), settings), settings.overrides?.[link.id]);
}

/** Whether a link carries nothing in at least one direction. */
export function isCutAnyWay(settings: NetworkSettings, id: string): boolean {
  return settings.cut.includes(id) || (settings.oneWayCuts ?? []).some((c) => c.link === id);
}
