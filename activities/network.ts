/**
 * The network activities (activities/contracts.ts NetworkActivities): the fleet network
 * operations of operations/network/network-operations.ts as they are. Each is short (one command
 * per link or node, a measurement of a few seconds), so none heartbeats; bad input is an
 * InputError, which the worker turns into a non-retryable failure.
 */
import type { NetworkActivities } from './contracts';
import * as network from '../operations/network/network-operations';
import { heartbeatingActivity } from './heartbeat';

export const {
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
} = network;

// Ramps, moves, flaps and trace replays run for their whole duration: they heartbeat like a resize.
export const rampLinkConditions = heartbeatingActivity(network.rampLinkConditions);
export const moveSite = heartbeatingActivity(network.moveSite);
export const flapLink = heartbeatingActivity(network.flapLink);
export const replayLinkTrace = heartbeatingActivity(network.replayLinkTrace);

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
