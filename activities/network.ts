/**
 * The network activities (activities/contracts.ts NetworkActivities): the fleet network
 * operations of operations/network/network-operations.ts as they are. Each is short (one command
 * per link or node, a measurement of a few seconds), so none heartbeats; bad input is an
 * InputError, which the worker turns into a non-retryable failure.
 */
import type { NetworkActivities } from './contracts';
import * as network from '../operations/network/network-operations';
import { heartbeating } from './heartbeat';

/** The group the worker registers; typed against the contract so a drift fails to compile. */
export const networkActivities: NetworkActivities = {
  applyLatencyEpoch: network.applyLatencyEpoch,
  applyBandwidthEpoch: network.applyBandwidthEpoch,
  cutLink: network.cutLink,
  restoreLink: network.restoreLink,
  changeLinkConditions: network.changeLinkConditions,
  // Ramps, flaps and trace replays run for their whole duration: they heartbeat like a resize.
  rampLinkConditions: (input) => heartbeating(() => network.rampLinkConditions(input)),
  // A move runs for its whole duration too.
  moveSite: (input) => heartbeating(() => network.moveSite(input)),
  partitionLinks: network.partitionLinks,
  healPartition: network.healPartition,
  flapLink: (input) => heartbeating(() => network.flapLink(input)),
  replayLinkTrace: (input) => heartbeating(() => network.replayLinkTrace(input)),
  resetNetwork: network.resetNetwork,
  measureRtt: network.measureRtt,
  measureBandwidth: network.measureBandwidth,
  readTraffic: network.readTraffic,
  overlayRoute: network.overlayRoute,
};
