/**
 * The network activities (activities/contracts.ts NetworkActivities): the fleet network
 * operations of operations/network/network-operations.ts as they are. Each is short (one command
 * per link or node, a measurement of a few seconds), so none heartbeats; bad input is an
 * InputError, which the worker turns into a non-retryable failure.
 */
import type { NetworkActivities } from './contracts';
import * as network from '../operations/network/network-operations';
import {
  applyLatencyEpoch,
  applyBandwidthEpoch,
  cutLink,
  restoreLink,
  changeLinkConditions,
  partitionLinks,
  healPartition,
  resetNetwork,
  measureRtt,
  measureBandwidth,
  readTraffic,
  overlayRoute,
} from '../operations/network/network-operations';
import { heartbeating } from './heartbeat';

type Input<K extends keyof NetworkActivities> = Parameters<NetworkActivities[K]>[0];

export {
  applyLatencyEpoch,
  applyBandwidthEpoch,
  cutLink,
  restoreLink,
  changeLinkConditions,
  partitionLinks,
  healPartition,
  resetNetwork,
  measureRtt,
  measureBandwidth,
  readTraffic,
  overlayRoute,
};

// Ramps, moves, flaps and trace replays run for their whole duration: they heartbeat like a resize.
export function rampLinkConditions(input: Input<'rampLinkConditions'>) {
  return heartbeating(() => network.rampLinkConditions(input));
}
export function moveSite(input: Input<'moveSite'>) {
  return heartbeating(() => network.moveSite(input));
}
export function flapLink(input: Input<'flapLink'>) {
  return heartbeating(() => network.flapLink(input));
}
export function replayLinkTrace(input: Input<'replayLinkTrace'>) {
  return heartbeating(() => network.replayLinkTrace(input));
}

// This module implements the contract exactly (checked, not exported: the worker registers what activities/index.ts lists).
({
  applyLatencyEpoch,
  applyBandwidthEpoch,
  cutLink,
  restoreLink,
  changeLinkConditions,
  rampLinkConditions,
  moveSite,
  partitionLinks,
  healPartition,
  flapLink,
  replayLinkTrace,
  resetNetwork,
  measureRtt,
  measureBandwidth,
  readTraffic,
  overlayRoute,
}) satisfies NetworkActivities;
